"""C-VQA-Real answer parsers: the release's rules (case table) and our default parsers."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from whatifbench.answers.numbers import extract_number
from whatifbench.answers.yesno import extract_yes_no
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.real.paper_parser import paper_boolean, paper_number, tokens
from whatifbench.suites.cvqa.real.suite import CvqaRealSuite

CASES = Path(__file__).parent / "cases"
PAPER = json.loads((CASES / "cvqa_real_paper_parser.json").read_text(encoding="utf-8"))
NUMBERS = json.loads((CASES / "answers_numbers.json").read_text(encoding="utf-8"))["cases"]
YESNO = json.loads((CASES / "answers_yesno.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", PAPER["cases"], ids=lambda c: f"{c['rule']}:{c['reply'][:30]}")
def test_paper_parser_case_table(case: dict) -> None:
    parse = paper_number if case["kind"] == "number" else paper_boolean
    found = parse(case["reply"])
    assert found.value == case["expect"]
    assert (found.flag == "release-crash") == (case.get("flag") == "release-crash")


def test_paper_case_table_exercises_every_rule() -> None:
    used = {c["rule"] for c in PAPER["cases"]}
    assert used == set(PAPER["rules"])


def test_paper_tokens_keep_commas_as_empty_tokens() -> None:
    assert tokens("If 2, then Three!") == ["if", "2", "", "then", "three"]


@pytest.mark.parametrize("case", NUMBERS, ids=lambda c: c["reply"][:40])
def test_default_number_parser(case: dict) -> None:
    found = extract_number(case["reply"])
    assert found.value == case["expect"]
    if "flag" in case:
        assert found.flag == case["flag"]


@pytest.mark.parametrize("case", YESNO, ids=lambda c: c["reply"][:40])
def test_default_yes_no_parser(case: dict) -> None:
    found = extract_yes_no(case["reply"])
    assert found.value == case["expect"]
    if "flag" in case:
        assert found.flag == case["flag"]


def test_suite_runs_both_parsers_on_every_reply() -> None:
    suite = CvqaRealSuite()
    item = Item("x-cf", ("images/a.jpg",), "How many plates would there be if 2 were added?",
                "number", "3", pair_id="x", role="counterfactual", group="direct")
    found = suite.extract(item, "If 2 more plates were added there would be 3 plates", Protocol())
    assert {k: v.value for k, v in found.items()} == {"default": "3", "paper": None}
    boolean = Item("y-cf", ("images/a.jpg",), "Would it be wet if it rained?", "yes-no", "yes",
                   pair_id="y", role="counterfactual", group="boolean")
    found = suite.extract(boolean, "<think>no</think> It would be.", Protocol())
    assert {k: v.value for k, v in found.items()} == {"default": "yes", "paper": "no"}


def test_prompts_default_and_paper_families() -> None:
    suite = CvqaRealSuite()
    item = Item("x-ori", ("images/a.jpg",), "How many clocks?", "number", "1", pair_id="x",
                role="original", group="direct")
    assert suite.prompt_text(item, Protocol()) == "How many clocks?\nAnswer with a single number."
    assert suite.prompt_text(item, Protocol(prompt="paper")) == (
        "How many clocks? Answer the question using a single word or phrase.")
    assert suite.prompt_text(item, Protocol(prompt="paper:blip2")) == (
        "Question: How many clocks? Short answer:")


@pytest.mark.parametrize(("spec", "model_type", "prompt", "expected"), [
    ("hf:/m", "blip-2", "paper", "paper:blip2"),
    ("hf:/m", "instructblip", "paper", "paper:instructblip"),
    ("hf:/m", "qwen2_vl", "paper", "paper:qwen"), ("hf:/m", "llava", "paper", "paper:llava"),
    ("openai:gpt-4o", "", "paper", "paper:llava"),
    ("hf:/m", "blip-2", "paper:minigpt", "paper:minigpt"),
    ("hf:/m", "blip-2", "default", "default"),
])
def test_paper_prompt_family_follows_the_backend(spec: str, model_type: str, prompt: str,
                                                 expected: str) -> None:
    backend = SimpleNamespace(spec=spec, model_type=model_type)
    bound = CvqaRealSuite().bind(Protocol(prompt=prompt), backend)  # type: ignore[arg-type]
    assert bound.prompt == expected
    assert bound.family == (expected.split(":")[1] if ":" in expected else None)
    with pytest.raises(WhatifError, match="Unknown paper prompt family 'gpt'"):
        CvqaRealSuite().bind(Protocol(prompt="paper:gpt"), backend)  # type: ignore[arg-type]


def test_a_misspelt_paper_prompt_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from util import make_choice_dataset

    from whatifbench.cli.main import main

    ds = make_choice_dataset(tmp_path / "ds", n_pairs=2)
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--prompt", "papers",
                 "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "has no prompt 'papers'" in capsys.readouterr().err
