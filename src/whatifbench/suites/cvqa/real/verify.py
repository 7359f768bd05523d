"""Automatic checks of a counterfactual question (C-VQA §3.2 verification, made mechanical).

Each failed check is a ``Finding`` (a stable code and a sentence). Checks: numbers are
non-negative whole numbers; for the direct group the ``Step2`` arithmetic evaluates (safely) to
its stated result and that result is the new answer; a boolean answer really flipped; the new
question has an ``if`` premise and the right question form; the premise does not leak the
answer (the new count written in it, or a yes/no/true/false word).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from whatifbench.answers.arith import find_equation
from whatifbench.answers.numbers import numbers_in

_DIGITS = re.compile(r"[0-9]+")
_IF = re.compile(r"\bif\b", re.IGNORECASE)
_AUX = re.compile(r"(?:would|will|is|are|was|were|do|does|did|can|could|should|has|have|had|"
                  r"might|may)\b", re.IGNORECASE)
_YES_NO_WORDS = re.compile(r"\b(?:yes|no answer|true|false|the answer)\b", re.IGNORECASE)
_SHOULD_BE = re.compile(r"new answer should be\s*[\"']?\s*(yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    """One failed check."""

    code: str
    """Stable identifier (``answer-mismatch``, ``not-flipped``, ``leak`` …)."""
    message: str
    """What is wrong, in a sentence."""

    def to_json(self) -> dict[str, str]:
        """JSON form."""
        return {"code": self.code, "message": self.message}


def premise(question: str) -> str | None:
    """The counterfactual presupposition: the text after the first ``if`` (``None`` if none)."""
    match = _IF.search(question)
    if not match:
        return None
    text = question[match.end():].strip().rstrip("?").strip()
    return text or None


def check_pair(group: str, answer: str, new_question: str, new_answer: str,
               step1: str | None = None, step2: str | None = None) -> list[Finding]:
    """Every failed check for one candidate pair (empty when all pass)."""
    found: list[Finding] = []
    numeric = group in ("direct", "indirect")
    if numeric:
        found += _numbers(answer, new_answer)
    else:
        found += _boolean(answer, new_answer, step1)
    cond = premise(new_question)
    if cond is None:
        found.append(Finding("no-if-clause", f"The new question {new_question!r} has no "
                             "'if' clause holding a counterfactual premise."))
    if numeric and not new_question.strip().lower().startswith("how many"):
        found.append(Finding("question-form", "A numerical question should start with "
                             f"'How many'; got {new_question[:40]!r}."))
    if not numeric and not _AUX.match(new_question.strip()):
        found.append(Finding("question-form", "A boolean question should start with an "
                             f"auxiliary verb (Would, Is, …); got {new_question[:40]!r}."))
    if cond is not None:
        found += _leak(numeric, cond, new_answer)
    if group == "direct" and step2 is not None and _DIGITS.fullmatch(new_answer):
        found += _arithmetic(step2, answer, int(new_answer))
    return found


def _numbers(answer: str, new_answer: str) -> list[Finding]:
    out = []
    for name, value in (("original answer", answer), ("new answer", new_answer)):
        if not _DIGITS.fullmatch(value):
            out.append(Finding("not-integer", f"The {name} {value!r} is not a non-negative whole "
                               "number."))
    return out


def _boolean(answer: str, new_answer: str, step1: str | None) -> list[Finding]:
    if new_answer not in ("yes", "no"):
        return [Finding("not-yes-no", f"The new answer {new_answer!r} is not yes or no.")]
    out = []
    if new_answer == answer:
        out.append(Finding("not-flipped", f"The answer stays {answer!r}; the boolean prompt asks "
                           "for a premise that flips it."))
    said = _SHOULD_BE.search(step1 or "")
    if said and said.group(1).lower() != new_answer:
        out.append(Finding("step1-mismatch", f"Step1 says the new answer should be "
                           f"{said.group(1).lower()!r}, but the new answer is {new_answer!r}."))
    return out


def _leak(numeric: bool, cond: str, new_answer: str) -> list[Finding]:
    if numeric:
        if _DIGITS.fullmatch(new_answer) and int(new_answer) in numbers_in(cond):
            return [Finding("leak", f"The premise {cond!r} contains the new answer {new_answer}: "
                            "echoing the premise's number would be right without looking.")]
        return []
    if _YES_NO_WORDS.search(cond):
        return [Finding("leak", f"The premise {cond!r} states an answer word.")]
    return []


def _arithmetic(step2: str, answer: str, new_answer: int) -> list[Finding]:
    eq = find_equation(step2)
    if eq is None:
        return [Finding("no-arithmetic", f"Step2 {step2!r} holds no calculation 'a + b = c' to "
                        "check the new answer against.")]
    out = []
    if eq.value != eq.right:
        out.append(Finding("arithmetic-error", f"Step2 says {eq.left} = {_num(eq.right)}, but "
                           f"{eq.left} = {_num(eq.value)}."))
    if eq.value.denominator != 1 or eq.value < 0:
        out.append(Finding("not-integer", f"Step2's result {_num(eq.value)} is not a "
                           "non-negative whole number."))
    elif eq.value != new_answer:
        out.append(Finding("answer-mismatch", f"Step2 computes {eq.left} = {_num(eq.value)}, but "
                           f"the new answer is {new_answer}."))
    if _DIGITS.fullmatch(answer) and eq.first != int(answer):
        out.append(Finding("start-mismatch", f"Step2 starts from {_num(eq.first)}, not from the "
                           f"original answer {answer}."))
    return out


def _num(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
