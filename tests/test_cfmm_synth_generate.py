"""``whatif generate cfmm-synthetic``: format, answers recomputed from the intervened scenes,
determinism, balance, the card, the CLI, export/import, and text-only baselines."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.runner.evaluate import RunOptions
from whatifbench.scenes.opaque import opaque_naming
from whatifbench.scenes.render import render_png
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator, plan
from whatifbench.suites.cfmm.pairs import complete_pairs
from whatifbench.suites.cfmm.synth import CATEGORIES, GENERATOR, TEMPLATES, sample, templates_of

PER = 12


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cfmm-gen") / "suite"
    CfmmSyntheticGenerator.generate(out, per_category=PER, seed=0, workers=2)
    return out


def files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): sha256_file(p)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_items_are_cfmm_pairs(suite: Path) -> None:
    data = load_dataset(suite)
    assert data.suite == "cfmm" and len(data.items) == 2 * len(CATEGORIES) * PER
    pairs = complete_pairs(data.items)
    assert len(pairs) == len(CATEGORIES) * PER
    for basic, cf in pairs:
        category = basic.group
        assert category in CATEGORIES and cf.group == category
        assert len({basic.id, cf.id, basic.pair_id}) == 3  # opaque ids (shortcut-free)
        assert "old_name" not in basic.provenance  # the telling name is private
        assert basic.images == cf.images and (suite / basic.images[0]).is_file()
        assert basic.meta == cf.meta == {"category": category,
                                         "template": basic.provenance["template"]}
        assert basic.provenance["template"] in TEMPLATES[category]
        assert basic.question.endswith("?") and not basic.question.startswith("If ")
        assert cf.question.startswith("If ") and cf.question.endswith("?")
        assert cf.provenance["premise"] in cf.question
        for item in (basic, cf):
            assert item.kind == "choice" and len(set(item.choices)) == 2
            assert item.target in item.choices and item.provenance["answer"] == item.target
            why = item.provenance["explanation"]
            assert item.target in why and "{" not in why and why.endswith(".")
        assert (suite / cf.provenance["intervened_image"]).is_file()
        assert "intervened_image" not in basic.provenance
        if category != "count":  # counts offer the answer and a near number instead
            assert set(basic.choices) == set(cf.choices)


def test_answers_are_recomputed_from_the_scenes(suite: Path) -> None:
    """Re-draw each pair from its seed: the images are its scene and its intervened scene, and
    the stored answers are the programs' values on them."""
    items = {i.id: i for i in load_dataset(suite).items}
    for job in plan(PER, seed=0, namer=opaque_naming("shortcut-free", None, GENERATOR, 0)[0]):
        s = sample(job.template, job.changed, random.Random(job.pair_seed), job.design,
                   job.answer, job.colors)
        basic, cf = items[job.item_id("basic")], items[job.item_id("counterfactual")]
        assert render_png(s.draw.scene) == (suite / basic.images[0]).read_bytes()
        assert render_png(s.after) == (suite / cf.provenance["intervened_image"]).read_bytes()
        assert str(s.draw.basic_program.execute(s.draw.scene)) == basic.target
        assert str(s.draw.cf_program.execute(s.after)) == cf.target
        assert cf.provenance["interventions"] == [i.to_json() for i in s.premise.interventions]
        assert cf.provenance["program"] == s.draw.cf_program.to_json()
        if job.template.startswith("count") and job.design == "shortcut-free":
            assert basic.target != cf.target  # changed: the right options' ranks differ
        else:
            assert (basic.target != cf.target) == job.changed


def test_same_seed_is_byte_identical_for_any_worker_count(suite: Path, tmp_path: Path) -> None:
    CfmmSyntheticGenerator.generate(tmp_path / "one", per_category=PER, seed=0, workers=1)
    assert files(tmp_path / "one") == files(suite)


def test_another_seed_gives_another_dataset(suite: Path, tmp_path: Path) -> None:
    CfmmSyntheticGenerator.generate(tmp_path / "s1", per_category=PER, seed=1, workers=1)
    other, mine = files(tmp_path / "s1"), files(suite)
    assert other["items.jsonl"] != mine["items.jsonl"]
    pictures = [{v for k, v in f.items() if k.startswith("images/")} for f in (other, mine)]
    assert len(pictures[0] & pictures[1]) < 0.1 * len(pictures[1])  # other pictures
    assert not {k for k in set(other) & set(mine) if k.startswith("images/")}  # opaque names


def test_option_positions_and_changed_answers_are_dealt_exactly(suite: Path) -> None:
    """The shortcut-free design deals positions per template (and changed flag): a category's
    share of A is exact within one item per template and role."""
    card = json.loads((suite / "card.json").read_text())
    extra = card["extra"]
    assert abs(extra["correct_option_percent"]["A"] - 50.0) <= 100 * 13 / (2 * 5 * PER)
    # half of every template's pairs change their answer (count: every counterfactual option
    # differs from the basic ones, so every answer changes)
    assert extra["answer_changed_percent"] == pytest.approx(100 * (12 + 4 * 6) / 60, abs=0.01)
    for category in CATEGORIES:
        facts = extra["by_category"][category]
        slack = 100 * len(TEMPLATES[category]) / PER
        for share in facts["correct_option_a_percent"].values():
            assert abs(share - 50.0) <= slack, (category, facts)
        changed = 100.0 if category == "count" else 50.0
        assert abs(facts["answer_changed_percent"] - changed) <= slack, (category, facts)
        assert set(facts["templates"]) == set(templates_of(category, "shortcut-free"))
    assert card["generator"] == {"name": "cfmm-synthetic", "params": {
        "per_category": PER, "seed": 0, "answer_changed_percent": 50.0, "canvas": [448, 448],
        "categories": list(CATEGORIES), "design": "shortcut-free"}}
    assert card["seed"] == 0 and card["suite"] == "cfmm"


def test_the_paper_design_deals_positions_per_category_exactly(tmp_path: Path) -> None:
    card = CfmmSyntheticGenerator.generate(tmp_path / "p", per_category=PER, seed=0, workers=1,
                                           design="paper")
    assert card.extra["correct_option_percent"] == {"A": 50.0, "B": 50.0}
    for facts in card.extra["by_category"].values():
        assert facts["correct_option_a_percent"] == {"basic": 50.0, "counterfactual": 50.0}


def test_the_answer_changed_share_is_a_parameter(tmp_path: Path) -> None:
    card = CfmmSyntheticGenerator.generate(tmp_path / "half", per_category=8, seed=4,
                                           workers=1, answer_changed=50, design="paper")
    assert card.extra["answer_changed_percent"] == 50.0
    pairs = complete_pairs(load_dataset(tmp_path / "half").items)
    by_category = Counter(b.group for b, c in pairs if b.target != c.target)
    assert by_category == {c: 4 for c in CATEGORIES}
    jobs = plan(101, seed=3, design="paper")
    for category in CATEGORIES:
        mine = [j for j in jobs if j.category == category]
        assert sum(j.changed for j in mine) == 81
        assert {sum(j.letters[r] == 0 for j in mine) for r in (0, 1)} <= {50, 51}


def test_cli_generate_and_bad_parameters(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    out = tmp_path / "d"
    assert main(["generate", "cfmm-synthetic", "--out", str(out), "--per-category", "1",
                 "--seed", "2", "--workers", "1"]) == 0
    assert len(load_dataset(out).items) == 10
    assert main(["generate", "cfmm-synthetic", "--out", str(out), "--per-category", "1"]) == 2
    assert "already exists" in capsys.readouterr().err
    for args, message in ((["--per-category", "0"], "--per-category must be at least 1"),
                          (["--answer-changed", "120"], "--answer-changed must be at most 100"),
                          (["--workers", "0"], "--workers must be at least 1")):
        bad = tmp_path / "bad"
        assert main(["generate", "cfmm-synthetic", "--out", str(bad), *args]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
        assert not bad.exists()


def test_export_and_reimport_keep_the_pairs(suite: Path, tmp_path: Path) -> None:
    assert main(["export", str(suite), "--format", "cfmm-jsonl", "--out",
                 str(tmp_path / "pairs.jsonl")]) == 0
    assert main(["import", "cfmm", "--jsonl", str(tmp_path / "pairs.jsonl"), "--images",
                 str(suite / "images"), "--out", str(tmp_path / "back")]) == 0
    mine, back = load_dataset(suite), load_dataset(tmp_path / "back")
    assert sorted((i.pair_id, i.role, i.question, i.choices, i.target, i.group,
                   i.provenance.get("explanation")) for i in back.items) == sorted(
        (i.pair_id, i.role, i.question, i.choices, i.target, i.group,
         i.provenance["explanation"]) for i in mine.items)  # ours are written by id
    assert back.card.extra["answer_changed_percent"] == mine.card.extra["answer_changed_percent"]


def _push_guess(question: str, choices: tuple[str, ...]) -> str | None:
    """A text-only reasoner's guess on count questions: "more were added" → the larger number,
    "were removed" → the smaller one."""
    premise = question.split(",")[0]
    numbers = sorted(choices, key=int)
    if re.search(r"more \w+ were added", premise):
        return numbers[-1]
    if re.search(r"of the \w+ were removed|shapes were removed", premise):
        return numbers[0]
    return None


def test_text_alone_does_not_give_the_answers(tmp_path: Path) -> None:
    """``builtin:text-prior`` (leaked or most frequent option) stays within 50 ± 8 %; so does
    guessing counts from the direction of the premise."""
    out = tmp_path / "big"
    CfmmSyntheticGenerator.generate(out, per_category=100, seed=5, workers=2)
    [run] = api.run_all([out], ["builtin:text-prior"], options=RunOptions(progress=False))
    m = run.metrics
    assert 42 <= m["acc_b"] <= 58 and 42 <= m["acc_c"] <= 58, (m["acc_b"], m["acc_c"])
    guesses = [(_push_guess(i.question, i.choices), i.target)
               for i in load_dataset(out).items if i.group == "count"]
    scored = [g == t for g, t in guesses if g is not None]
    assert len(scored) > 30 and 0.38 <= sum(scored) / len(scored) <= 0.62
