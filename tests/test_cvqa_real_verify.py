"""The pipeline's reply reader, safe arithmetic and automatic checks (JSON case tables)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from whatifbench.answers.arith import ArithmeticProblem, evaluate, find_equation
from whatifbench.suites.cvqa.real.cot_reply import parse_reply
from whatifbench.suites.cvqa.real.verify import check_pair, premise

CASES = Path(__file__).parent / "cases"
ARITH = json.loads((CASES / "cvqa_real_arithmetic.json").read_text(encoding="utf-8"))
CHECKS = json.loads((CASES / "cvqa_real_checks.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", ARITH["evaluate"], ids=lambda c: c["expr"][:20] or "empty")
def test_safe_arithmetic(case: dict) -> None:
    if case["value"] is None:
        with pytest.raises((ArithmeticProblem, ZeroDivisionError)):
            evaluate(case["expr"])
    else:
        assert evaluate(case["expr"]) == Fraction(case["value"])


@pytest.mark.parametrize("case", ARITH["find"], ids=lambda c: c["text"][:30])
def test_find_equation(case: dict) -> None:
    eq = find_equation(case["text"])
    if case["left"] is None:
        assert eq is None
        return
    assert eq is not None
    assert (eq.left, eq.right, eq.value, eq.first) == (
        case["left"], Fraction(case["right"]), Fraction(case["value"]), Fraction(case["first"]))


@pytest.mark.parametrize("case", CHECKS, ids=lambda c: c["new_question"][:40])
def test_checks(case: dict) -> None:
    found = check_pair(case["group"], case["answer"], case["new_question"], case["new_answer"],
                       case.get("step1"), case.get("step2"))
    assert [f.code for f in found] == case["codes"]
    assert all(f.message.endswith(".") for f in found)


def test_premise() -> None:
    assert premise("How many cats would there be if the TV was off?") == "the TV was off"
    assert premise("How many cats?") is None
    assert premise("Would it be wet IF it rained?") == "it rained"


def test_reply_reader() -> None:
    good, why = parse_reply("<think>hmm</think>Original question:How many?\nOriginal answer:2\n"
                            "Step 1: add 2\nstep2 : 2+2=4\nNEW QUESTION: How many if 2 came?\n"
                            "New answer: 4.")
    assert why is None and good is not None
    assert (good.step1, good.step2, good.new_question, good.new_answer) == (
        "add 2", "2+2=4", "How many if 2 came?", "4")
    for reply, reason in (
        ("New question: x?\nNew answer: 1", "no 'Step1', 'Step2' line"),
        ("Step1:a\nStep2:b\nNew question:c?\nNew answer:1\nNew question:d?\nNew answer:2",
         "several 'New question', 'New answer' lines"),
        ("Step1:a\nStep2:b\nNew question:\nNew answer:1", "'New question' line is empty"),
        ("<think>Step1:", "stops inside a <think> block"),
    ):
        parsed, why = parse_reply(reply)
        assert parsed is None and why is not None and reason in why
