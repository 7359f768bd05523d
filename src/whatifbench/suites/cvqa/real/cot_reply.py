"""Read the LLM's chain-of-thought reply: ``Step1`` / ``Step2`` / ``New question`` / ``New answer``.

Lenient on form (any case, ``Step 1``, markdown bold, an echoed ``Original question`` block,
``<think>`` blocks), strict on content: each of the four fields exactly once and non-empty, or
the reply is malformed and the reason is recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from whatifbench.answers.think import strip_think

FIELDS = {"step1": "Step1", "step2": "Step2", "new_question": "New question",
          "new_answer": "New answer"}
_LINE = re.compile(r"^\W*(step\s*1|step\s*2|new\s+question|new\s+answer)\W*?\s*[:：]\s*(.*)$",
                   re.IGNORECASE)
_MARKUP = re.compile(r"\*\*|__|`")


@dataclass(frozen=True)
class CotReply:
    """The four fields of a well-formed reply."""

    step1: str
    """The planned change (numerical) or the flipped situation (boolean)."""
    step2: str
    """How the answer changes (numerical: a calculation) or how to make it true (boolean)."""
    new_question: str
    """The counterfactual question."""
    new_answer: str
    """Its answer as written (lower-cased; a trailing full stop removed)."""

    def to_json(self) -> dict[str, str]:
        """JSON form."""
        return dict(self.__dict__)


def parse_reply(reply: str) -> tuple[CotReply | None, str | None]:
    """The parsed reply, or ``None`` and why it is malformed."""
    text, cut = strip_think(reply or "")
    if cut:
        return None, "the reply stops inside a <think> block"
    found: dict[str, list[str]] = {key: [] for key in FIELDS}
    for line in _MARKUP.sub("", text).splitlines():
        match = _LINE.match(line.strip())
        if match:
            key = re.sub(r"\s+", "", match.group(1).lower())
            key = {"step1": "step1", "step2": "step2", "newquestion": "new_question",
                   "newanswer": "new_answer"}[key]
            found[key].append(match.group(2).strip())
    missing = [FIELDS[k] for k, v in found.items() if not v]
    if missing:
        return None, f"the reply has no {', '.join(repr(m) for m in missing)} line"
    repeated = [FIELDS[k] for k, v in found.items() if len(v) > 1]
    if repeated:
        return None, f"the reply has several {', '.join(repr(r) for r in repeated)} lines"
    empty = [FIELDS[k] for k, v in found.items() if not v[0]]
    if empty:
        return None, f"the reply's {', '.join(repr(e) for e in empty)} line is empty"
    answer = found["new_answer"][0].strip().strip("\"'").rstrip(".").strip().lower()
    return CotReply(found["step1"][0], found["step2"][0], found["new_question"][0], answer), None
