"""``whatif audit``: a suite built to leak is flagged and a balanced one is not; folds never split a
pair; pair rules; the cache; bad input gets one message and exit 2."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from cvqa_real_helpers import sample_csv, sample_images
from util import png

from whatifbench.analysis.audit import audit as audit_module
from whatifbench.analysis.audit import baselines
from whatifbench.analysis.audit.audit import audit_dataset
from whatifbench.analysis.audit.baselines import assign_folds
from whatifbench.analysis.audit.features import build_features
from whatifbench.analysis.audit.pairs import rules_holding
from whatifbench.analysis.audit.store import audit_path
from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.errors import EXIT_FLAGGED

WORDS = ("apple", "brick", "cloud", "daisy", "eagle", "flute", "grape", "heron", "igloo",
         "jelly", "koala", "lemon", "mango", "nylon", "otter", "piano")


def write(out: Path, items: list[Item]) -> Path:
    """A dataset of ``items`` sharing one small image."""
    with DatasetWriter(out) as writer:
        rel = writer.add_image("img.png", png((90, 120, 200)))
        writer.add_items([replace(i, images=(rel,)) for i in items])
        writer.finish(name=out.name, suite="cvqa-synthetic", version="test",
                      generator={"name": "hand", "params": {}}, seed=0)
    return out


def counting_pairs(n_pairs: int, leak: float, seed: int = 0) -> list[Item]:
    """Four-option counting pairs. With probability ``leak`` the answer is the second smallest
    option (C-VQA-Synthetic's release shortcut), else a uniformly random one."""
    rng = random.Random(seed)
    items = []
    for k in range(n_pairs):
        for role in ("original", "counterfactual"):
            values = rng.sample(range(1, 40), 4)
            target = (sorted(values)[1] if rng.random() < leak else rng.choice(values))
            premise = "" if role == "original" else " if two more were added"
            items.append(Item(
                id=f"p{k}-{role}", images=(), kind="choice", choices=tuple(map(str, values)),
                question=f"How many {rng.choice(WORDS)}s would there be{premise}?",
                target=str(target), pair_id=f"p{k}", role=role,
                group=f"t{1 + k % 2}", meta={"template": 1 + k % 2, "shade": k % 3}))
    return items


@pytest.fixture(scope="module")
def leaky(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("audit") / "leaky", counting_pairs(200, leak=0.8))


@pytest.fixture(scope="module")
def balanced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("audit") / "balanced", counting_pairs(200, leak=0.0))


def audit_json(dataset: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int,
                                                                                       dict]:
    code = main(["audit", str(dataset), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_a_leaky_suite_is_flagged(leaky: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, result = audit_json(leaky, capsys, "--strict")
    assert code == EXIT_FLAGGED  # its own exit status (1 is an internal error)
    assert list(result) == ["dataset", "blind", "slices", "pairs", "probes"]
    blind = result["blind"]
    assert blind["n"] == 400 and blind["chance"] == 25.0
    assert blind["accuracy"] > 60 and blind["interval"][0] > 50 and blind["flagged"]
    assert blind["baselines"]["numeric rank"]["accuracy"] > 60
    slices = {(s["key"], s["value"]): s for s in result["slices"]}
    assert set(slices) == {("template", "1"), ("template", "2"), ("role", "original"),
                           ("role", "counterfactual")}     # group = template: shown once
    for entry in slices.values():
        assert set(entry) >= {"key", "value", "n", "blind", "chance", "interval", "flagged",
                              "p", "p_holm", "hits"}
        assert entry["n"] == 200 and entry["flagged"]
    assert result["dataset"]["items_sha256"] == load_dataset(leaky).items_sha256


def test_a_balanced_suite_is_not_flagged(balanced: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, result = audit_json(balanced, capsys, "--strict")
    assert code == 0
    assert not result["blind"]["flagged"] and result["blind"]["accuracy"] < 32
    assert not any(s["flagged"] for s in result["slices"])


def test_text_output_names_flagged_slices(leaky: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(leaky)]) == 0
    out = capsys.readouterr().out
    assert "FLAGGED" in out and "Blind accuracy" in out and "numeric rank" in out
    assert "chance 25.0 %" in out


def test_folds_never_split_a_pair() -> None:
    keys = [f"p{k // 2}" for k in range(200)] + ["solo"]
    groups = [f"g{k // 2 % 3}" for k in range(200)] + ["g0"]
    folds = assign_folds(keys, groups)
    assert all(folds[2 * k] == folds[2 * k + 1] for k in range(100))
    for g in ("g0", "g1", "g2"):                                   # each group spread evenly
        sizes = np.bincount(folds[[i for i, x in enumerate(groups) if x == g]], minlength=5)
        assert sizes.max() - sizes.min() <= 2
    reverse = assign_folds(list(reversed(keys)), list(reversed(groups)))
    assert (reverse[::-1] == folds).all()                           # file order irrelevant


def dealt_pairs(n_pairs: int, seed: int) -> list[Item]:
    """Four-option counting pairs in two groups whose answer positions are dealt exactly evenly
    per group and role (as the shortcut-free generators deal them), with no leak at all."""
    rng = random.Random(seed)
    dealt = {}
    for key in ((g, r) for g in ("t1", "t2") for r in ("original", "counterfactual")):
        dealt[key] = [k % 4 for k in range(n_pairs // 2)]
        rng.shuffle(dealt[key])
    items = []
    for k in range(n_pairs):
        group = f"t{1 + k % 2}"
        for role in ("original", "counterfactual"):
            values = rng.sample(range(1, 40), 4)
            premise = "" if role == "original" else " if two more were added"
            items.append(Item(
                id=f"p{k}-{role}", images=(), kind="choice", choices=tuple(map(str, values)),
                question=f"How many {rng.choice(WORDS)}s would there be{premise}?",
                target=str(values[dealt[group, role][k // 2]]), pair_id=f"p{k}", role=role,
                group=group))
    return items


def test_folds_hold_each_groups_answers_in_the_shares_of_the_whole() -> None:
    """Folded by group alone, an exactly balanced suite leaves each test fold with the answers
    its training folds saw least of, and a prior learned there scores below chance."""
    items = dealt_pairs(200, seed=0)
    keys, groups = [i.pair_id or i.id for i in items], [i.group or "" for i in items]
    answers = [(i.target_index, i.target) for i in items]
    folds = baselines.answer_folds(keys, groups, answers)
    for group in ("t1", "t2"):
        for roles in (("original",), ("counterfactual",), ("original", "counterfactual")):
            for position in range(4):
                where = [k for k, i in enumerate(items) if i.group == group and i.role in roles
                         and i.target_index == position]
                sizes = np.bincount(folds[where], minlength=5)  # by group alone: up to 10
                assert sizes.max() - sizes.min() <= 3, (group, roles, position, sizes)
    position = [audit_module.audit_items(dealt_pairs(200, seed), None, None)["blind"]
                ["baselines"]["position"]["accuracy"] for seed in range(3)]
    assert sum(position) / 3 >= 21, position  # 19.6 when folded by group alone; chance 25


def test_no_baseline_trains_on_a_pair_it_is_tested_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fit (outer folds and the inner ones that choose the baseline) keeps each pair whole
    on one side, and the test fold never chooses: inner fits hold out two folds."""
    items = counting_pairs(60, leak=0.5) + [
        Item(f"solo{k}", (), "How many?", "number", str(k % 3)) for k in range(9)]
    keys = [i.pair_id or i.id for i in items]
    calls: list[tuple[np.ndarray, np.ndarray]] = []
    run = baselines._Guesser.run

    def spy(self: object, name: str, train: np.ndarray, test: np.ndarray) -> np.ndarray:
        calls.append((train.copy(), test.copy()))
        return run(self, name, train, test)  # type: ignore[arg-type]

    monkeypatch.setattr(baselines._Guesser, "run", spy)
    result = baselines.blind_baselines(build_features(items), keys, [i.group or "" for i in items])
    assert len(calls) == len(baselines.BASELINES) * (5 + 10)
    for train, test in calls:
        assert not (train & test).any() and (train | test).all()
        for key in set(keys):
            members = [i for i, k in enumerate(keys) if k == key]
            assert len({bool(train[i]) for i in members}) == 1
        held = set(result.folds[test].tolist())
        assert len(held) in (1, 2) and set(result.folds[train].tolist()).isdisjoint(held)


def test_the_wording_baseline_finds_answers_decided_by_wording(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    """CELLO-like yes/no items whose wording ("still stand" / "fall") decides the answer."""
    rng = random.Random(1)
    items = []
    for k in range(300):
        a, b = rng.sample(WORDS, 2)
        still = rng.random() < 0.5
        verb = "still stand" if still else "fall"
        answer = ("No" if still else "Yes") if rng.random() < 0.85 else ("Yes" if still else "No")
        items.append(Item(id=f"q{k}", images=(), kind="choice", choices=("Yes", "No"),
                          question=f"If the {a} gave way, would the {b} {verb}?",
                          target=answer, group="sufficient_cause",
                          meta={"task_type": "sufficient_cause"}))
    code, result = audit_json(write(tmp_path / "yn", items), capsys)
    assert code == 0
    assert result["blind"]["baselines"]["wording"]["accuracy"] > 75
    assert result["blind"]["accuracy"] > 75 and result["blind"]["flagged"]
    assert result["pairs"]["pairs"] == 0


def test_pair_rules() -> None:
    def pair(a: str, b: str, question: str) -> list[str]:
        first = Item("a", (), "How many?", "number", a, pair_id="p", role="original")
        second = Item("b", (), question, "number", b, pair_id="p", role="counterfactual")
        return rules_holding(first, second)

    assert pair("2", "5", "How many planes would there be if three more were added?") == \
        ["plus/minus"]
    assert pair("4", "1", "How many would be left if 3 left?") == ["plus/minus"]
    assert pair("6", "3", "How many if the number was halved?") == []
    assert pair("2", "2", "How many if 2 more were painted red?") == ["equal"]
    assert pair("yes", "No", "Would it?") == ["negation"]
    above = Item("a", (), "Above or below?", "choice", "above", ("below", "above"), pair_id="p",
                 role="basic")
    below = Item("b", (), "If rotated, above or below?", "choice", "below", ("above", "below"),
                 pair_id="p", role="counterfactual")
    assert rules_holding(above, below) == ["negation"]
    assert rules_holding(above, replace(below, target="above")) == ["equal"]
    assert rules_holding(above, replace(below, choices=("below", "left"))) == []
    # numbers listed as options are not numbers named by the question
    listed = Item("b", (), "How many if removed? Select the correct answer:A:1  B:3  C:2  D:4",
                  "choice", "1", ("1", "3", "2", "4"), pair_id="p", role="counterfactual")
    original = Item("a", (), "How many?", "choice", "4", ("4", "5", "6", "7"), pair_id="p",
                    role="original")
    assert rules_holding(original, listed) == []


def test_cvqa_real_sample_pairs_and_open_items(shared_dir: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The release sample: numbers are open items, booleans yes/no; every boolean pair negates
    and 8 of the 12 direct pairs are the original ± the number the question names."""
    coco = tmp_path / "coco"
    sample_images(shared_dir, coco)
    assert main(["import", "cvqa-real", "--csv", str(sample_csv(shared_dir)), "--images",
                 str(coco), "--out", str(tmp_path / "ds")]) == 0
    capsys.readouterr()
    code, result = audit_json(tmp_path / "ds", capsys)
    assert code == 0
    assert result["blind"]["n"] == 72 and result["dataset"]["left_out_free_text"] == 0
    groups = {g["group"]: g for g in result["pairs"]["by_group"]}
    assert groups["boolean"]["rules"]["negation"] == {"pairs": 12, "percent": 100.0}
    assert groups["direct"]["rules"]["plus/minus"] == {"pairs": 8, "percent": 66.67}
    assert groups["indirect"]["rules"]["equal"]["pairs"] == 1
    assert groups["boolean"]["rules"]["best"] == {"rule": "negation", "pairs": 12,
                                                  "percent": 100.0}
    assert result["pairs"]["rules"]["best"]["rule"] == "negation"
    type_slices = {s["value"]: s for s in result["slices"] if s["key"] == "type"}
    assert type_slices["boolean"]["chance"] == 50.0 and not type_slices["boolean"]["flagged"]


def test_cache_by_items_hash_and_by_any_meta_key(leaky: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    first = audit_dataset(leaky)
    assert audit_path(first["dataset"]["items_sha256"]).is_file()

    def no_second_audit(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cached result should have been used")

    monkeypatch.setattr(audit_module, "blind_baselines", no_second_audit)
    again = audit_dataset(leaky, by=["shade"])
    assert {k: again[k] for k in ("blind", "pairs")} == {k: first[k] for k in ("blind", "pairs")}
    shades = [s for s in again["slices"] if s["key"] == "shade"]
    assert [s["value"] for s in shades] == ["0", "1", "2"]
    assert sum(s["n"] for s in shades) == 400
    with pytest.raises(AssertionError, match="cached"):
        audit_dataset(leaky, refresh=True)


def test_results_are_deterministic(balanced: Path, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    first = audit_dataset(balanced)
    monkeypatch.setenv("WHATIF_HOME", str(tmp_path / "other-home"))
    assert audit_dataset(balanced, refresh=True) == first


@pytest.mark.parametrize(("args", "expected"), [
    (["audit", "{tmp}/nowhere"], "There is no dataset folder at"),
    (["audit", "{tmp}"], "has no card.json; it is not a whatifbench dataset"),
    (["audit", "{leaky}", "--by", "colour"],
     "has the key 'colour' to slice by. Pass --by one of: group, kind, role, shade, template."),
])
def test_bad_input_is_one_message_and_exit_2(args: list[str], expected: str, leaky: Path,
                                             tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a.format(tmp=tmp_path, leaky=leaky) for a in args]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert expected in captured.err and "Traceback" not in captured.err
    assert captured.out == ""


def test_too_few_pairs_and_free_text_only(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    texts = [Item(f"t{k}", (), "Explain.", "text", f"Because {k}.") for k in range(10)]
    assert main(["audit", str(write(tmp_path / "text", texts))]) == 2
    assert "needs at least 3" in capsys.readouterr().err


def test_missing_scikit_learn_is_one_actionable_message(balanced: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    assert main(["audit", str(balanced), "--refresh"]) == 2
    assert "pip install scikit-learn" in capsys.readouterr().err


@pytest.mark.slow
def test_generated_cvqa_synthetic_is_flagged_per_template(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """A small paper-design generation (100 images per template): every template is
    flagged."""
    assert main(["generate", "cvqa-synthetic", "--out", str(tmp_path / "ds"),
                 "--per-template", "100", "--workers", "1", "--design", "paper"]) == 0
    capsys.readouterr()
    code, result = audit_json(tmp_path / "ds", capsys, "--strict")
    assert code == EXIT_FLAGGED  # its own exit status (1 is an internal error)
    assert result["blind"]["accuracy"] > 40 and result["blind"]["chance"] == 25.0
    templates = [s for s in result["slices"] if s["key"] == "template"]
    assert len(templates) == 6 and all(s["flagged"] for s in templates)
    assert np.isclose(sum(s["n"] for s in templates), 1200)
