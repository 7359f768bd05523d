"""Letter extraction against the JSON case table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from whatifbench.answers.letters import extract_choice
from whatifbench.answers.think import strip_think

CASES = json.loads((Path(__file__).parent / "cases" / "letters.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["reply"][:40] or "<empty>" for c in CASES])
def test_letter_cases(case: dict) -> None:
    found = extract_choice(case["reply"], case["choices"])
    assert found.value == case["expect"]
    if "flag" in case:
        assert found.flag == case["flag"]
    if case["expect"] is None:
        assert not found.parsed


def test_strip_think_closed_and_open() -> None:
    assert strip_think("<think>x</think> B") == ("B", False)
    assert strip_think("A <THINK>unfinished") == ("A", True)
