"""The CELLO release's request and parse per model family (``evaluate_cello.py``, ``model.py``,
``utils.py`` of OpenCausaLab/CELLO), for ``--prompt paper[:FAMILY]`` and ``--parser paper``.

Every family asks ``Question: {q}\\nChoose from the following options:\\n(A). … \\n`` followed
by the answer phrase ``The best answer is: (``, with a budget of 30 new tokens and greedy
decoding; they differ in how that text reaches the model and how the reply is cleaned:

========  ==================================================================  ==================
family    request                                                             reply cleaning
========  ==================================================================  ==================
api       system ``Output your choice (option name, e.g., A, B, etc.)         none
          first.``; one user message: the text (phrase included), then the
          image (the release's GPT path; temperature 0)
claude    the same system text; user message: the image, then the text        none
gemini    no system message; user: ``System Instruction: output your choice   none
          …`` + newline + the text, then the image
llava     plain text (no chat template): ``A chat between a curious human …   split, strip
          questions. USER: <image>\\n{text}\\nASSISTANT:\\nThe best answer is:
          (`` (the release's ``llava_vicuna``, LLaVA-1.5)
bakllava  plain: ``USER: <image>\\n{text}\\nASSISTANT:\\n`` + phrase             split, strip
llava-    plain: ``[INST]: <image>\\n{text} [/INST] `` + phrase                 split, strip
mistral   (LLaVA-NeXT Mistral)
blip2,    plain: the text + phrase (the processor puts the image first)        strip
instruct-
blip
qwen      plain: ``Picture 1: <image>\\n`` + text + phrase (Qwen-VL's           split, strip
          ``from_list_format``)
other     the model's chat template: image, then text + phrase (InternLM-      strip
          XComposer2, MiniCPM, mPLUG-Owl and any other local model)
========  ==================================================================  ==================

*split*: the decoded text is cut at the last ``The best answer is: (`` (the LLaVA and Qwen paths
decode prompt and reply together); *strip*: outer whitespace removed. Qwen's text is decoded
with its special tokens, so a finished reply is followed by ``<|endoftext|>`` (a reply ``(``
is then wrong rather than a crash). Then, for every family,
one leading ``(`` is removed and the reply's first character must be the answer's letter.
An empty reply is wrong (the release catches that error); a reply that is empty after the
``(`` is removed crashes the release (``IndexError`` outside its ``try``), so we record it as
unparsed (flag ``release-crash``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from whatifbench.answers.extraction import RELEASE_CRASH as CRASH
from whatifbench.answers.extraction import Extraction
from whatifbench.answers.letters import letter_for
from whatifbench.core.requests import Part, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.family import ModelHint

PHRASE = "The best answer is: ("
"""The release's answer phrase (``utils.phrase_answer_multiple_choice``)."""
SYSTEM = "Output your choice (option name, e.g., A, B, etc.) first."
"""The system instruction of the release's API paths."""
GEMINI_SYSTEM = "System Instruction: output your choice (option name, e.g., A, B, etc.) first.\n"
"""Gemini has no system message in the release: this line starts the user text."""
VICUNA_SYSTEM = ("A chat between a curious human and an artificial intelligence assistant. The "
                 "assistant gives helpful, detailed, and polite answers to the human's "
                 "questions.")
"""The system sentence the release writes before ``USER:`` for LLaVA-1.5 (``llava_vicuna``)."""
MAX_NEW_TOKENS = 30
"""The release's generation budget (``run_model_vqa(..., 30)``)."""


@dataclass(frozen=True)
class Family:
    """How one model family is asked and how its reply is read."""

    name: str
    """The name after ``--prompt paper:`` (``api``, ``llava`` …)."""
    release: str
    """Which path of the release it reproduces (its model keys)."""
    system: str | None = None
    """A system message (API paths)."""
    before: str = ""
    """Text before the image."""
    image_end: str = ""
    """Text right after the image (``<image>\\n`` in the plain LLaVA and Qwen prompts)."""
    after: str = ""
    """Text between the question (with its options) and the answer phrase."""
    image_first: bool = True
    """The image comes before the question (else after the whole text)."""
    plain: bool = False
    """The text is the model's whole input, without a chat template (``Request.plain``)."""
    split: bool = False
    """The reply is cut at the last answer phrase."""
    strip: bool = False
    """Outer whitespace is removed from the reply."""
    end: str = ""
    """Text the release's decoding leaves after a finished reply (Qwen-VL is decoded with its
    special tokens: ``<|endoftext|>``), so that a reply ``(`` is wrong there, not a crash."""

    def turns(self, images: Sequence[Part], text: str) -> tuple[Turn, ...]:
        """The release's request for ``text`` (question and options, without the phrase)."""
        body = f"{text}{self.after}{PHRASE}"
        if self.plain:
            parts = (Part(text=self.before), *images, Part(text=self.image_end + body))
        elif self.image_first:
            parts = (*images, Part(text=self.before + body))
        else:
            parts = (Part(text=self.before + body), *images)
        user = Turn("user", tuple(p for p in parts if p.image is not None or p.text))
        return (Turn("system", (Part(text=self.system),)), user) if self.system else (user,)

    def parse(self, reply: str, choices: Sequence[str]) -> Extraction:
        """The option the release reads from ``reply`` (see the module docstring)."""
        text = reply + self.end
        text = text.split(PHRASE)[-1] if self.split else text
        text = text.strip() if self.strip else text
        if not text:
            return Extraction(None, "empty")
        text = text.removeprefix("(")
        if not text:
            return Extraction(None, CRASH)
        letters = [letter_for(i) for i in range(len(choices))]
        if text[0] in letters:
            return Extraction(choices[letters.index(text[0])])
        return Extraction(None, "no-letter")


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("api", "GPT path (gpt-4o, gpt-4-turbo)", system=SYSTEM, image_first=False),
    Family("claude", "Claude path", system=SYSTEM),
    Family("gemini", "Gemini path", before=GEMINI_SYSTEM, image_first=False),
    Family("llava", "llava_vicuna (llava-1.5-13b-hf)", before=f"{VICUNA_SYSTEM} USER: ",
           image_end="\n", after="\nASSISTANT:\n", plain=True, split=True, strip=True),
    Family("bakllava", "bakllava (bakLlava-v1-hf)", before="USER: ", image_end="\n",
           after="\nASSISTANT:\n", plain=True, split=True, strip=True),
    Family("llava-mistral", "llava_mistral (llava-v1.6-mistral-7b-hf)", before="[INST]: ",
           image_end="\n", after=" [/INST] ", plain=True, split=True, strip=True),
    Family("blip2", "blip2 (blip2-opt-2.7b)", plain=True, strip=True),
    Family("instructblip", "instructblip (instructblip-vicuna-13b)", plain=True, strip=True),
    Family("qwen", "qwen (Qwen-VL)", before="Picture 1: ", image_end="\n", plain=True,
           split=True, strip=True, end="<|endoftext|>"),
    Family("other", "internlm, minicpm, mplug (chat interfaces)", strip=True),
)}
"""Every family, by name."""


def family(name: str) -> Family:
    """The family called ``name``; a ``WhatifError`` listing them otherwise."""
    if name not in FAMILIES:
        raise WhatifError(f"CELLO has no paper protocol for the model family {name!r}; use one "
                          f"of {', '.join(FAMILIES)} (e.g. --prompt paper:llava).")
    return FAMILIES[name]


def auto_family(hint: ModelHint) -> str:
    """The family the release would use for this backend: API servers by the model's name
    (``claude``/``gemini`` in it, else the GPT path); ``hf:`` checkpoints by their model type;
    any other backend (built-in reference models) ``other``."""
    if hint.kind == "openai":
        return next((f for f in ("claude", "gemini") if f in hint.name), "api")
    if hint.kind != "hf":
        return "other"
    mistral = hint.text_model_type == "mistral"
    if hint.model_type == "llava":
        return "bakllava" if mistral else "llava"
    if hint.model_type == "llava_next":
        return "llava-mistral" if mistral else "llava"
    return {"blip-2": "blip2", "instructblip": "instructblip", "qwen2_vl": "qwen",
            "qwen2_5_vl": "qwen", "qwen": "qwen"}.get(hint.model_type, "other")
