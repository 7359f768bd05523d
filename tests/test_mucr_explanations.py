"""Splitting a model's Exp reply into its three explanations (JSON case table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from whatifbench.suites.mucr.explanations import split_explanations

CASES = json.loads((Path(__file__).parent / "cases" / "mucr_explanations.json")
                   .read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["reply"][:30] for c in CASES])
def test_split(case: dict) -> None:
    found = split_explanations(case["reply"])
    assert list(found.parts) == case["parts"]
    assert found.flag == case["flag"]
