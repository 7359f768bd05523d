"""Pick a count out of a free-text reply (our default parser for "how many" questions).

Handles digits (``3``, ``1,000``), number words (``zero`` … ``twenty``, tens, ``twenty-one``),
``none`` / ``no`` as a quantity (→ 0, only when the reply has no other number), keyed answers
(``the answer is 4``), equations (``2 + 2 = 4`` → 4) and premises echoed from the question
(``if 2 more plates were added, there would be 3 plates`` → 3). ``<think>`` blocks are dropped.
A reply with no count is unparsed (scored wrong and flagged), never guessed.
"""

from __future__ import annotations

import re

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.think import strip_think

UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty"]
TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
        "ninety": 90}
WORD_VALUES: dict[str, int] = {w: i for i, w in enumerate(UNITS)} | TENS
_TENS_ALT = "|".join(["twenty", *TENS])
_WORD = (rf"(?:\b(?:{_TENS_ALT})[- ](?:one|two|three|four|five|six|seven|eight|nine)\b"
         rf"|\b(?:{'|'.join(sorted(WORD_VALUES, key=len, reverse=True))})\b)")
_DIGITS = r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?![\w]|\.\d)"
NUMBER = re.compile(rf"{_DIGITS}|{_WORD}")
"""One count written as digits or words."""

_NONE = re.compile(r"\bnone\b|\bno\b(?!\s+(?:more|fewer|less|longer)\s+than\b)")
_KEYED = re.compile(rf"\b(?:final answer|answer)\s*(?:is|would be|will be|:|=)?\s*[:=]?\s*"
                    rf"[\"'(*]*\s*({_DIGITS}|{_WORD})(?!\s*[-+*/×÷]\s*\d)")
_EQUATION = re.compile(rf"=\s*({_DIGITS}|{_WORD})")
_IF_CLAUSE = re.compile(
    r"\bif\s+\S+[^,;:.!?\n]*?(?:[,;:]|\bthen\b|(?=[.!?\n]|$|\b(?:there|it|they|he|she|we|you|i|"
    r"the answer)\s+(?:would|will|could|might|should|is|are|be)\b))")
_NOT_A_COUNT = re.compile(r"\s+(?:(?:more|fewer|less)\s+than|of)\b")
_NOBODY = re.compile(r"\bno[- ]one\b|\bnobody\b|\bnothing\b")
_MARKUP = re.compile(r"[*_`#]+")
_ABSTAIN = re.compile(r"\b(?:cannot|can't|can not|unable to|impossible to) (?:tell|determine|say|"
                      r"know|count|see)\b|\b(?:i don't know|unclear|not sure|unknown)\b")


def number_value(token: str) -> int | None:
    """The integer a digit string or number word stands for (``None`` if it is neither)."""
    token = token.strip().lower()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+", token):
        return int(token.replace(",", ""))
    if token in WORD_VALUES:
        return WORD_VALUES[token]
    parts = re.split(r"[- ]", token)
    if len(parts) == 2 and parts[0] in ("twenty", *TENS) and parts[1] in UNITS[1:10]:
        return WORD_VALUES[parts[0]] + WORD_VALUES[parts[1]]
    return None


def numbers_in(text: str) -> list[int]:
    """Every count written in ``text`` (digits or words), in order."""
    values = (number_value(m.group(0)) for m in NUMBER.finditer(text.lower()))
    return [v for v in values if v is not None]


def drop_if_clauses(text: str) -> str:
    """``text`` without conditional clauses (``if … ,`` / ``… if …`` to the clause end)."""
    return _IF_CLAUSE.sub(" ", text)


def extract_number(reply: str) -> Extraction:
    """Return the count a reply gives (as a digit string) or an unparsed extraction."""
    text, cut = strip_think(reply)
    if cut:
        return Extraction(None, "truncated-think")
    text = _NOBODY.sub("none", _MARKUP.sub(" ", text).lower()).strip()
    if not text:
        return Extraction(None, "empty")
    whole = re.fullmatch(rf"\W*({_DIGITS}|{_WORD})\W*", text)
    if whole:
        return _found(whole.group(1))
    keyed = _KEYED.findall(text)
    if keyed:
        return _found(keyed[-1])
    rest = drop_if_clauses(text)
    equation = _EQUATION.findall(rest)
    if equation:
        return _found(equation[-1])
    lead = re.match(rf"\W*({_DIGITS}|{_WORD})(?!\s*[-+*/×÷]\s*\d)(?!\s+(?:of|more|fewer|less)\b)",
                    rest)
    if lead:
        return _found(lead.group(1))
    digits = _candidates(_DIGITS, rest)
    words = _candidates(_WORD, rest)
    found = digits or words
    if found:
        values = {number_value(f) for f in found}
        flag = None if len(values) == 1 else "last-of-several"
        return _found(found[-1], flag)
    if _ABSTAIN.search(text):
        return Extraction(None, "no-answer")
    if _NONE.search(rest):
        return Extraction("0")
    return Extraction(None, "no-answer")


def _candidates(pattern: str, text: str) -> list[str]:
    """Counts in ``text`` except comparisons (``one more than``) and partitives (``one of``)."""
    return [m.group(0) for m in re.finditer(pattern, text)
            if not _NOT_A_COUNT.match(text, m.end())]


def _found(token: str, flag: str | None = None) -> Extraction:
    value = number_value(token)
    return Extraction(None, "no-answer") if value is None else Extraction(str(value), flag)
