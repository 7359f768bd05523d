"""The audit's pair-aware blind guesser (``joint guess``) and its whole-dataset reader
(``other items``), issue 41: a pair guessed from both texts at once is scored against the
joint chance (what the pairs' shared relations leave open), the paper designs' joint leaks are
flagged and the shortcut-free designs' are not; what only a reader of the whole dataset sees is
measured and flagged but leaves ``--strict`` alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from whatifbench.analysis.audit.audit import audit_items, flag_labels
from whatifbench.analysis.audit.joint import joint_guess
from whatifbench.analysis.audit.metadata import meta_view
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator


def _probe(result: dict[str, object], name: str) -> dict[str, object]:
    probes = result["probes"]
    assert isinstance(probes, list)
    return next(p for p in probes if p["name"] == name)


def _slice(probe: dict[str, object], key: str, value: str) -> dict[str, object]:
    slices = probe["slices"]
    assert isinstance(slices, list)
    return next(s for s in slices if s["key"] in key.split("|") and s["value"] == value)


def test_the_joint_chance_counts_what_the_pairs_relations_leave_open(tmp_path: Path) -> None:
    """C-VQA: 'if N were removed' makes every counterfactual the original minus N (joint
    chance 1/4); the other templates leave the change open (1/16)."""
    CvqaSyntheticGenerator.generate(tmp_path / "c", per_template=12, seed=2, workers=1)
    view = meta_view(load_dataset(tmp_path / "c").items)
    result = joint_guess(view)
    chances = {}
    for first, chance in zip(result.probe.scored, result.probe.chance, strict=True):
        chances.setdefault(view.items[first].meta["template"], set()).add(round(chance, 4))
    assert chances == {1: {0.0625}, 2: {0.25}, 3: {0.0625}, 4: {0.25}, 5: {0.0625},
                       6: {0.0625}}
    assert result.independent.tolist() == [0.0625] * len(result.independent)
    assert set(result.per_item) == {i for m in result.probe.scored
                                    for i in range(view.n)
                                    if view.items[i].pair_id == view.items[m].pair_id}


def _pairs(n: int, flip: float) -> list[Item]:
    """Two-option pairs whose counterfactual answer is the other option in a ``flip`` share
    of them (the paper CFMM's 80 %), answers and positions drawn at random (seeded)."""
    rng = random.Random(7)
    items = []
    for k in range(n):
        answer, other = rng.sample(("red", "blue"), 2)
        cf, wrong = (other, answer) if rng.random() < flip else (answer, other)
        first = (answer, other) if rng.random() < 0.5 else (other, answer)
        second = (cf, wrong) if rng.random() < 0.5 else (wrong, cf)
        items += [Item(f"p{k}-b", (), "What color is the square?", "choice", answer, first,
                       f"p{k}", "basic", "color"),
                  Item(f"p{k}-c", (), "If the square were repainted, what color would it be?",
                       "choice", cf, second, f"p{k}", "counterfactual", "color")]
    return items


def test_a_pair_whose_answer_changes_in_most_pairs_is_guessed_jointly() -> None:
    """Before this probe, a design whose counterfactual is 'the other option' in 80 % of the
    pairs passed the audit: guessing each question alone is at chance."""
    leaky = audit_items(_pairs(400, 0.8))
    joint = _probe(leaky, "joint guess")
    assert joint["chance"] == 25.0 and joint["chance_independent"] == 25.0
    assert joint["accuracy"] > 34 and joint["flagged"]
    assert "joint guess" in flag_labels(leaky)
    fair = _probe(audit_items(_pairs(400, 0.5)), "joint guess")
    assert fair["accuracy"] < 31 and not fair["flagged"]


@pytest.mark.slow
def test_the_paper_cfmm_is_flagged_jointly_and_the_shortcut_free_one_is_not(
        tmp_path: Path) -> None:
    CfmmSyntheticGenerator.generate(tmp_path / "p", per_category=200, seed=6, workers=1,
                                    design="paper")
    CfmmSyntheticGenerator.generate(tmp_path / "f", per_category=80, seed=6, workers=1)
    paper = _probe(audit_items(load_dataset(tmp_path / "p").items), "joint guess")
    free = _probe(audit_items(load_dataset(tmp_path / "f").items), "joint guess")
    assert paper["flagged"] and paper["accuracy"] > 32, paper["accuracy"]
    assert not free["flagged"] and free["accuracy"] < 30, free["accuracy"]


def test_what_only_a_whole_dataset_reader_sees_is_measured_not_strict(tmp_path: Path) -> None:
    """mucr-synthetic: the Exp question names the Cue answer (MuCR's protocol); in the paper
    design a pair's E2C question is the right candidate of its C2E (and the other way round);
    the shortcut-free design shares no picture between items."""
    MucrSyntheticGenerator.generate(tmp_path / "f", groups=15, seed=4)
    MucrSyntheticGenerator.generate(tmp_path / "p", groups=15, seed=4, design="paper")
    free = audit_items(load_dataset(tmp_path / "f").items)
    other = _probe(free, "other items")
    assert other["harness"] == "whole dataset"
    cues = sum(1 for i in load_dataset(tmp_path / "f").items if i.group == "cue")
    assert (other["n"], other["accuracy"], other["flagged"]) == (cues, 100.0, True)
    assert not any(label.startswith("other items") for label in flag_labels(free))
    assert main(["audit", str(tmp_path / "f"), "--strict"]) == 0
    paper = _probe(audit_items(load_dataset(tmp_path / "p").items), "other items")
    for group in ("c2e", "e2c"):
        assert _slice(paper, "role|group", group)["accuracy"] == 100.0
