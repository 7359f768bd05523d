"""Reading programs out of code LLM replies, the VisProg step language and its EVAL reader."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from whatifbench.answers.arith import ArithmeticProblem, evaluate_expression
from whatifbench.core.item import Item
from whatifbench.models.program.backend import answer_text
from whatifbench.models.program.codegen import python_program, step_program
from whatifbench.models.program.visprog_lang import ParseError, parse

CASES = json.loads((Path(__file__).parent / "cases" / "program_replies.json").read_text())
EXPRESSIONS = json.loads((Path(__file__).parent / "cases" / "eval_expressions.json")
                         .read_text())["cases"]


@pytest.mark.parametrize("case", CASES["python"], ids=lambda c: c["reply"][:40])
def test_python_replies(case: dict[str, Any]) -> None:
    program = python_program(case["reply"])
    if case["expect"] is None:
        assert program.code == "" and program.problem == case["problem"]
    else:
        assert program.problem is None and program.code == case["expect"]
        compile(program.code, "<program>", "exec")  # valid Python (never run here)


@pytest.mark.parametrize("case", CASES["steps"], ids=lambda c: c["reply"][:40])
def test_step_replies(case: dict[str, Any]) -> None:
    program = step_program(case["reply"])
    if case["expect"] is None:
        assert program.problem == case["problem"]
    else:
        assert program.problem is None and program.code == case["expect"]


@pytest.mark.parametrize("case", CASES["parse_errors"], ids=lambda c: c["program"][:30])
def test_step_parse_errors(case: dict[str, str]) -> None:
    with pytest.raises(ParseError) as info:
        parse(case["program"])
    assert str(info.value) == case["error"]


def test_step_parse_values() -> None:
    steps = parse("BOX0=LOC(image=IMAGE1, object='it\\'s')\n# note\n"
                  "A=EVAL(expr=\"{N} - 2\")\nB=EVAL(expr=3.5)")
    assert [s.name for s in steps] == ["LOC", "EVAL", "EVAL"]
    assert steps[0].args["image"].kind == "var" and steps[0].args["object"].value == "it's"
    assert steps[1].line == 3 and steps[1].args["expr"].value == "{N} - 2"
    assert steps[2].args["expr"].kind == "num"


@pytest.mark.parametrize("case", EXPRESSIONS, ids=lambda c: c["expr"][:30] or "empty")
def test_eval_expressions(case: dict[str, Any]) -> None:
    if "error" in case:
        kind = ZeroDivisionError if case["error"] == "ZeroDivisionError" else ArithmeticProblem
        with pytest.raises(kind) as info:
            evaluate_expression(case["expr"])
        if kind is ArithmeticProblem:
            assert str(info.value).startswith(case["error"]), str(info.value)
        return
    value = evaluate_expression(case["expr"])
    if isinstance(case["expect"], bool):
        assert value is case["expect"]
    elif isinstance(value, Fraction):
        assert value == Fraction(case["expect"])
    else:
        assert value == case["expect"]


def _item(kind: str, choices: tuple[str, ...] = ()) -> Item:
    return Item("i", ("a.png",), "q?", kind, choices[0] if choices else "1", choices)


@pytest.mark.parametrize(("kind", "choices", "value", "text"), [
    ("choice", ("3", "5", "7", "9"), 7, "C"),
    ("choice", ("3", "5", "7", "9"), "5", "B"),
    ("choice", ("3", "5", "7", "9"), 9.0, "D"),
    ("choice", ("3", "5", "7", "9"), 4, "4"),
    ("choice", ("yes", "no"), "No.", "B"),
    ("number", (), 3.0, "3"),
    ("number", (), 2.5, "2.5"),
    ("yes-no", (), True, "yes"),
    ("yes-no", (), "no", "no"),
    ("number", (), None, ""),
    ("number", (), {"patch": [0, 0, 1, 1]}, ""),
])
def test_answer_text(kind: str, choices: tuple[str, ...], value: Any, text: str) -> None:
    assert answer_text(_item(kind, choices), value) == text
