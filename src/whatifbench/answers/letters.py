"""Pick a multiple-choice option out of a free-text reply.

Handles ``B``, ``(B)``, ``B:``, ``B.``, ``Answer: B``, ``The answer is B: 11``, ``option (B)``,
and the option's value alone when exactly one option's value occurs in the reply. Anything else
is unparsed: it counts as wrong and is flagged, never replaced by a random guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.think import strip_think

LETTERS = "ABCDEFGHIJ"


def letter_for(index: int) -> str:
    """The option letter of a 0-based index."""
    return LETTERS[index]


def extract_choice(reply: str, choices: Sequence[str]) -> Extraction:
    """Return the chosen option (one of ``choices``) or an unparsed extraction."""
    text, cut = strip_think(reply)
    if cut:
        return Extraction(None, "truncated-think")
    text = text.strip()
    if not text:
        return Extraction(None, "empty")
    letters = LETTERS[: len(choices)]
    index, flag = _find_letter(text, letters)
    if index is not None:
        return Extraction(choices[index])
    if flag:
        return Extraction(None, flag)
    return _find_value(text, choices)


def _find_letter(text: str, letters: str) -> tuple[int | None, str | None]:
    cls = f"[{letters}]"
    # The whole reply is a letter: "B", "(B)", "B.", "b)".
    whole = re.fullmatch(rf"\(?({cls})\)?[.:)]?", text, flags=re.IGNORECASE)
    if whole:
        return letters.index(whole.group(1).upper()), None
    # Letters written as option markers anywhere: "(C)", "C:" or "C)".
    marked = {a or b for a, b in re.findall(rf"\(({cls})\)|\b({cls})[:)]", text)}
    # "Answer: B", "The answer is (B)", "correct option is B: 11", "I choose C".
    keyed = set(re.findall(
        rf"\b(?i:answer|option|choice|choose|select|pick)\w*\s*(?i:is|would be|:)?\s*:?\s*"
        rf"(?i:option\s+)?\(?({cls})\b(?!')",
        text))
    if len(keyed) == 1:
        letter = keyed.pop()
        if marked - {letter}:
            return None, "ambiguous"
        return letters.index(letter), None
    if len(keyed) > 1:
        return None, "ambiguous"
    # Starts with a letter then a delimiter: "B: 11", "(B) 11", "B. eleven".
    lead = re.match(rf"\(?({cls})(?:\)|[.:])(?:\s|$)", text)
    if lead:
        return letters.index(lead.group(1)), None
    if len(marked) == 1:
        return letters.index(marked.pop()), None
    if len(marked) > 1:
        return None, "ambiguous"
    return None, None


def _find_value(text: str, choices: Sequence[str]) -> Extraction:
    lowered = text.lower()
    hits = [
        i for i, choice in enumerate(choices)
        if choice and re.search(rf"(?<![\w.]){re.escape(choice.lower())}(?![\w]|\.\d)", lowered)
    ]
    if len(hits) == 1:
        return Extraction(choices[hits[0]])
    return Extraction(None, "ambiguous" if hits else "no-answer")
