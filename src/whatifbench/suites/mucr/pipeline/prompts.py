"""The LLM step of ``whatif build mucr``: core caption pair → contextual description pair
(MuCR "Producing Contextual Description Pairs") plus draft annotations, and reading the reply.

The descriptions keep appearance, clothing, environment and atmosphere identical across the two
images and add subtle changes that show time passing. The draft annotations (cue phrase, three
false cues, three explanations) pre-fill the selection sheet, where people check and rewrite
them, as the paper's volunteers wrote them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

STYLE_WORDS = {"photograph": "a realistic photograph",
               "comic": "a comic-style illustration with bold outlines and flat colours"}
"""How each style is asked of the LLM and of the image backend."""

DESCRIBE = """You are helping to build a benchmark of cause-and-effect image pairs. Below is a \
core caption pair: the first caption states a cause, the second its effect.

Cause: {cause}
Effect: {effect}

Write two image descriptions for a text-to-image model, one for the cause image and one for the \
effect image, both to be drawn as {style}. The two images must show the same subjects with the \
same appearance, clothing, environment and atmosphere: repeat the same concrete details \
(colours, clothes, place, light) in both descriptions, so that the images look like two moments \
of one scene. Add subtle changes that show the passage of time (facial expressions, posture, \
light, the state of objects) and make the effect clearly visible. Each description is one \
paragraph of 40 to 80 words about what can be seen.

Also draft the annotations that a volunteer will check: "cue", a short phrase naming the visual \
cue that links the cause to the effect; "false_cues", three short phrases naming striking things \
in the images that are not the cue; "explanations", three sentences: what the cause image shows, \
what the effect image shows, and how the cause leads to the effect through the cue.

Reply with one JSON object and nothing else:
{{"cause_description": "...", "effect_description": "...", "cue": "...", \
"false_cues": ["...", "...", "..."], "explanations": ["...", "...", "..."]}}"""

RETRY = "\n\nYour reply must be the JSON object alone, with exactly these five keys."
"""Added to the prompt of a second attempt after a reply that could not be read."""


def describe_prompt(cause: str, effect: str, style: str, attempt: int) -> str:
    """The prompt of attempt ``attempt`` (1-based)."""
    text = DESCRIBE.format(cause=cause, effect=effect, style=STYLE_WORDS[style])
    return text + RETRY if attempt > 1 else text


def image_prompt(description: str, style: str) -> str:
    """The image backend's prompt for one description."""
    return f"{description.rstrip()} Drawn as {STYLE_WORDS[style]}."


@dataclass(frozen=True)
class Drafted:
    """A readable LLM reply."""

    descriptions: tuple[str, str]
    """Cause and effect descriptions."""
    cue: str
    """Draft cue phrase."""
    false_cues: tuple[str, str, str]
    """Draft false cues."""
    explanations: tuple[str, str, str]
    """Draft explanations: cause image, effect image, causal link."""

    def to_json(self) -> dict[str, Any]:
        """JSON form (for the pipeline log and provenance)."""
        return {"cause_description": self.descriptions[0],
                "effect_description": self.descriptions[1], "cue": self.cue,
                "false_cues": list(self.false_cues), "explanations": list(self.explanations)}


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_reply(reply: str) -> tuple[Drafted | None, str | None]:
    """The drafted descriptions and annotations, or why the reply cannot be used."""
    text = reply.strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None, "the reply holds no JSON object"
    try:
        obj = json.loads(text[start:end + 1])
    except json.JSONDecodeError as exc:
        return None, f"the reply's JSON does not parse ({exc.msg})"
    if not isinstance(obj, dict):
        return None, "the reply is not a JSON object"

    def text_of(key: str) -> str | None:
        value = obj.get(key)
        return " ".join(value.split()) if isinstance(value, str) and value.strip() else None

    def texts(key: str) -> tuple[str, ...] | None:
        value = obj.get(key)
        if not isinstance(value, list) or len(value) != 3:
            return None
        out = tuple(" ".join(v.split()) for v in value if isinstance(v, str) and v.strip())
        return out if len(out) == 3 else None

    cause, effect, cue = (text_of("cause_description"), text_of("effect_description"),
                          text_of("cue"))
    false_cues, explanations = texts("false_cues"), texts("explanations")
    missing = [k for k, v in (("cause_description", cause), ("effect_description", effect),
                              ("cue", cue), ("false_cues", false_cues),
                              ("explanations", explanations)) if v is None]
    if missing:
        return None, f"the reply lacks usable {', '.join(missing)}"
    assert cause and effect and cue and false_cues and explanations
    phrases = [cue.lower(), *(c.lower() for c in false_cues)]
    if len(set(phrases)) != 4:
        return None, "the cue and the three false cues are not four different phrases"
    return Drafted((cause, effect), cue, (false_cues[0], false_cues[1], false_cues[2]),
                   (explanations[0], explanations[1], explanations[2])), None
