"""``whatif audit``'s metadata probes (file names, ids, groups, member order, letters within
pairs), their Holm-corrected flags, and ``--generator NAME --seeds``: each probe catches a leak
planted in the metadata and stays quiet where the same items carry none; one noisy slice among
twelve is not a flag, a replicated one is."""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from util import png

from whatifbench.analysis.audit.audit import audit_dataset, audit_items, flag_labels
from whatifbench.analysis.audit.flags import MIN_N, apply_flags, scored_entry
from whatifbench.analysis.audit.metadata import meta_view
from whatifbench.analysis.audit.seeds import parse_seeds, pool
from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.errors import EXIT_FLAGGED, WhatifError
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator

WORDS = ("apple", "brick", "cloud", "daisy", "eagle", "flute", "grape", "heron")


def write(out: Path, items: list[Item], images: dict[str, bytes] | None = None) -> Path:
    """A dataset of ``items``; every image they name exists (a small PNG)."""
    names = images or {}
    with DatasetWriter(out) as writer:
        for rel in dict.fromkeys(p for item in items for p in item.images):
            writer.add_image(rel.removeprefix("images/"), names.get(rel, png((90, 120, 200), 8)))
        writer.add_items(items)
        writer.finish(name=out.name, suite="cvqa-synthetic", version="test",
                      generator={"name": "hand", "params": {}}, seed=0)
    return out


def probe(result: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in result["probes"] if p["name"] == name)


def probe_slice(result: dict[str, Any], name: str, key: str, value: str) -> dict[str, Any]:
    return next(s for s in probe(result, name)["slices"] if (s["key"], s["value"]) == (key, value))


# -- file names ---------------------------------------------------------------------------------
def c2e_items(n_pairs: int, seed: int, telling: bool) -> list[Item]:
    """MuCR-like C2E items in groups of four pairs: the cause image and the group's four effect
    images as candidates A-D. ``telling``: files named ``K-cause.png`` / ``K-effect.png`` (the
    paper design's names), else opaque hashes."""
    rng = random.Random(seed)

    def name(k: int, kind: str) -> str:
        if telling:
            return f"images/{k + 1}-{kind}.png"
        return f"images/{hashlib.sha256(f'{seed}/{k}/{kind}'.encode()).hexdigest()[:12]}.png"

    items = []
    for k in range(n_pairs):
        group = [4 * (k // 4) + m for m in range(4)]
        rng.shuffle(group)
        letter = "ABCD"[group.index(k)]
        items.append(Item(
            id=f"{k + 1}-c2e" if telling else name(k, "item")[7:19], kind="choice",
            images=(name(k, "cause"), *(name(m, "effect") for m in group)),
            question="Which of the four images labelled A, B, C and D shows the effect?",
            choices=("A", "B", "C", "D"), target=letter, pair_id=f"p{k}", role="c2e",
            group="c2e", meta={"image_labels": ["Cause", "A", "B", "C", "D"]}))
    return items


def test_the_file_name_probe_catches_the_paper_design_of_mucr(tmp_path: Path) -> None:
    """Today's paper design: the candidate sharing the cause image's number is right, always."""
    MucrSyntheticGenerator.generate(tmp_path / "paper", groups=15, seed=2, design="paper")
    result = audit_dataset(tmp_path / "paper")
    names = probe(result, "file names")
    assert names["n"] == 120 and names["accuracy"] == 100.0 and names["chance"] == 25.0
    assert names["control"] < 40 and names["flagged"]
    assert {"file names: group=c2e", "file names: group=e2c"} <= set(flag_labels(result))
    assert main(["audit", str(tmp_path / "paper"), "--strict"]) == EXIT_FLAGGED


def test_opaque_file_names_leave_the_file_name_probe_at_chance(tmp_path: Path) -> None:
    telling = audit_items(c2e_items(120, seed=1, telling=True))
    opaque = audit_items(c2e_items(120, seed=1, telling=False))
    assert probe(telling, "file names")["accuracy"] == 100.0
    assert probe(telling, "file names")["flagged"]
    assert abs(probe(opaque, "file names")["accuracy"] - 25.0) < 10
    assert not flag_labels(opaque)


def test_the_option_images_come_from_the_labels_else_the_last_images() -> None:
    labelled, = c2e_items(1, seed=0, telling=True)
    view = meta_view([labelled])
    assert view.question_images[0] == ("images/1-cause.png",)
    assert view.option_images[0][view.target[0]] == "images/1-effect.png"
    plain = Item("x", ("q.png", "a.png", "b.png"), "Which?", "choice", "2", ("1", "2"))
    assert meta_view([plain]).option_images[0] == ("a.png", "b.png")
    words = Item("y", ("q.png", "a.png", "b.png"), "Which?", "choice", "zebra",
                 ("horse", "zebra"))
    assert meta_view([words]).option_images[0] == (None, None)


# -- letters within pairs -----------------------------------------------------------------------
def letter_pairs(n_pairs: int, seed: int) -> list[Item]:
    """CFMM-like basic/counterfactual two-option pairs over random values: in template ``same``
    the counterfactual's right letter is always the basic one, in ``free`` it is dealt
    independently."""
    rng = random.Random(seed)
    items = []
    for template in ("same", "free"):
        for k in range(n_pairs):
            basic_letter = rng.randrange(2)
            letters = {"basic": basic_letter,
                       "counterfactual": basic_letter if template == "same" else rng.randrange(2)}
            for role in ("basic", "counterfactual"):
                values = [str(v) for v in rng.sample(range(1, 30), 2)]
                items.append(Item(
                    id=hashlib.sha256(f"{template}{k}{role}".encode()).hexdigest()[:10],
                    images=(f"images/{template}{k}.png",), kind="choice", choices=tuple(values),
                    question=f"How many {rng.choice(WORDS)}s are there"
                             + (" if two were removed?" if role != "basic" else "?"),
                    target=values[letters[role]], pair_id=f"{template}-{k}", role=role,
                    group=template, meta={"template": template}))
    return items


def test_the_letter_probes_catch_a_planted_same_letter_pairing() -> None:
    result = audit_items(letter_pairs(100, seed=3))
    same = probe_slice(result, "letter relation", "template", "same")
    free = probe_slice(result, "letter relation", "template", "free")
    assert same["n"] == 100 and same["accuracy"] == 100.0 and same["flagged"]
    assert same["control"] < 65
    assert not free["flagged"] and free["accuracy"] < 62
    constant = probe_slice(result, "constant letter", "template", "same")
    assert constant["n"] == 100 and constant["chance"] == 25.0
    assert constant["accuracy"] > 40 and constant["flagged"]
    assert not probe_slice(result, "constant letter", "template", "free")["flagged"]
    letters = {g["group"]: g for g in result["pairs"]["letters"]["by_group"]}
    assert letters["same"]["percent"] == 100.0 and letters["same"]["expected"] == 50.0
    assert 35 <= letters["free"]["percent"] <= 65
    assert not result["blind"]["flagged"] and not any(s["flagged"] for s in result["slices"])


def test_yes_no_pairs_are_left_to_the_pair_rules() -> None:
    """Yes/no pairs whose counterfactual negates the original: no letters are dealt, and the
    relation is the pair rule ``negation`` (reported), not a letter leak."""
    rng = random.Random(5)
    items = []
    for k in range(100):
        first = rng.choice(("yes", "no"))
        for role, answer in (("original", first),
                             ("counterfactual", "no" if first == "yes" else "yes")):
            items.append(Item(f"q{k}{role[0]}", (f"images/{k}.png",), "Is it there?", "yes-no",
                              answer, pair_id=f"p{k}", role=role, group="boolean"))
    result = audit_items(items)
    assert probe(result, "letter relation")["n"] == 0
    assert probe(result, "constant letter")["n"] == 0
    assert result["pairs"]["rules"]["negation"]["percent"] == 100.0
    assert result["pairs"]["letters"]["pairs"] == 0


# -- member order -------------------------------------------------------------------------------
def contrast_sets(n_sets: int, first_yes: float, seed: int) -> list[Item]:
    """Two-image contrast sets of one yes/no question (one member Yes, one No); the member
    written first is the Yes one with probability ``first_yes``."""
    rng = random.Random(seed)
    items = []
    for k in range(n_sets):
        answers = ["Yes", "No"] if rng.random() < first_yes else ["No", "Yes"]
        a, b = rng.sample(WORDS, 2)
        for m, answer in enumerate(answers):
            token = hashlib.sha256(f"{seed}/{k}/{m}".encode()).hexdigest()[:12]
            items.append(Item(
                id=token, images=(f"images/{token}.png",), kind="choice",
                question=f"If the {a} were removed, would the {b} fall?", choices=("Yes", "No"),
                target=answer, pair_id=f"set-{k}", role="contrast", group="counterfactual",
                meta={"task_type": "counterfactual"}))
    return items


def test_the_member_order_probe_catches_a_planted_order() -> None:
    planted = probe(audit_items(contrast_sets(150, first_yes=0.85, seed=4)), "member order")
    assert planted["n"] == 300 and planted["chance"] == 50.0
    assert planted["accuracy"] > 75 and planted["control"] < 60 and planted["flagged"]
    shuffled = audit_items(contrast_sets(150, first_yes=0.5, seed=4))
    assert not probe(shuffled, "member order")["flagged"]
    assert not flag_labels(shuffled)


# -- Holm and replication -----------------------------------------------------------------------
def twelve_slices(leak: list[int], seed: int) -> dict[str, Any]:
    """An audit-like result with twelve slices of 100 yes/no items at chance, but slice 0
    right ``leak[seed]`` times."""
    rng = np.random.default_rng(seed)
    slices = []
    for k in range(12):
        right = rng.random(100) < 0.5
        if k == 0:
            right = np.arange(100) < leak[seed]
        entry = scored_entry(right, [0.5] * 100)
        slices.append({"key": "shade", "value": str(k), "n": entry["n"],
                       "blind": entry["accuracy"], **{x: entry[x] for x in entry
                                                      if x not in ("n", "accuracy")}})
    return {"slices": slices, "probes": []}


def test_one_noisy_slice_in_twelve_is_not_a_flag_but_a_replicated_one_is() -> None:
    one = apply_flags(twelve_slices([63], 0))
    noisy = one["slices"][0]
    assert noisy["blind"] == 63.0 and noisy["interval"][0] > 50  # the old rule flagged it
    assert noisy["p"] < 0.025 and noisy["p_holm"] > 0.025 and not noisy["flagged"]
    assert not any(s["flagged"] for s in one["slices"])
    runs = [{**twelve_slices([63] * 3, s), "blind": _blind(s), "pairs": _no_pairs(),
             "dataset": {"items_sha256": "0" * 64, "items": 1200, "audited": 1200}}
            for s in range(3)]
    for run in runs:
        apply_flags(run)
    pooled = pool(runs, [7, 8, 9])
    replicated = next(s for s in pooled["slices"] if s["value"] == "0")
    assert replicated["n"] == 300 and replicated["seeds_above"] == 3 and replicated["flagged"]
    assert not any(s["flagged"] for s in pooled["slices"] if s["value"] != "0")
    assert [r["seed"] for r in pooled["runs"]] == [7, 8, 9]


def test_a_pooled_leak_must_replicate_in_most_seeds() -> None:
    runs = []
    for seed, hits in enumerate((100, 45, 45)):
        run = {**twelve_slices([hits] * 3, seed), "blind": _blind(seed), "pairs": _no_pairs(),
               "dataset": {"items_sha256": "0" * 64, "items": 1200, "audited": 1200}}
        runs.append(apply_flags(run))
    lone = next(s for s in pool(runs, [1, 2, 3])["slices"] if s["value"] == "0")
    assert lone["blind"] > 60 and lone["p_holm"] < 1e-3  # pooled, it would pass
    assert lone["seeds_above"] == 1 and not lone["flagged"]


def _blind(seed: int) -> dict[str, Any]:
    entry = scored_entry(np.random.default_rng(seed).random(1200) < 0.5, [0.5] * 1200)
    return {**entry, "flagged": False, "method": "test", "folds": 5,
            "baselines": {"position": {"accuracy": entry["accuracy"], "interval": [0, 100]}},
            "chosen": {"": {"position": 5}}}


def _no_pairs() -> dict[str, Any]:
    return {"pairs": 0, "rules": {r: {"pairs": 0, "percent": 0.0} for r in
                                  ("equal", "negation", "plus/minus")} | {
        "best": {"rule": None, "pairs": 0, "percent": 0.0}}, "by_group": [],
        "letters": {"pairs": 0, "same": 0, "percent": None, "expected": None, "by_group": []}}


# -- --generator NAME --seeds -------------------------------------------------------------------
@register("generator", "test:c2e-names")
class C2eNames:
    """Test generator: MuCR-like C2E items whose file names tell the answer (``--telling``)."""

    version = "1"

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--pairs", type=int, default=8)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--telling", action="store_true")

    @staticmethod
    def generate(out: str | Path, *, pairs: int = 8, seed: int = 0, telling: bool = False,
                 overwrite: bool = False) -> None:
        items = c2e_items(pairs, seed, telling)
        write(Path(out), items)

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        C2eNames.generate(args.out, pairs=args.pairs, seed=args.seed, telling=args.telling)
        return 0


def audit_seeds(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["audit", "--generator", "test:c2e-names", "--seeds", "3,4,5", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_seeds_end_to_end_flags_a_leak_that_replicates(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """40 items a seed are too few to flag one seed; the three pooled are flagged."""
    code, result = audit_seeds(capsys, "-p", "pairs=40", "-p", "telling", "--strict")
    assert code == EXIT_FLAGGED
    assert result["generator"] == {"name": "test:c2e-names", "params": ["pairs=40", "telling"],
                                   "seeds": [3, 4, 5]}
    assert [r["seed"] for r in result["runs"]] == [3, 4, 5]
    assert all(r["audited"] == 40 and r["flagged"] == [] for r in result["runs"])
    names = probe(result, "file names")
    assert names["n"] == 120 >= MIN_N and names["accuracy"] == 100.0
    assert names["seeds"] == 3 and names["seeds_above"] == 3 and names["flagged"]
    assert len({r["items_sha256"] for r in result["runs"]}) == 3  # three different datasets


def test_seeds_end_to_end_without_a_leak(capsys: pytest.CaptureFixture[str]) -> None:
    code, result = audit_seeds(capsys, "-p", "pairs=40", "-p", "telling=false", "--strict")
    assert code == 0
    assert not flag_labels(result)
    assert probe(result, "file names")["n"] == 120
    assert main(["audit", "--generator", "test:c2e-names", "--seeds", "3,4", "-p",
                 "pairs=12"]) == 0
    out = capsys.readouterr().out
    assert "over seeds 3, 4" in out and "Seeds (each audited on its own" in out
    assert "Metadata probes" in out and "seeds above chance" in out


def test_seeds_with_a_real_generator(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "--generator", "mucr-synthetic", "--seeds", "1,2", "-p", "groups=2",
                 "-p", "design=paper", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["seed"] for r in result["runs"]] == [1, 2]
    assert probe(result, "file names")["accuracy"] == 100.0  # 32 items: too few to flag
    assert result["generator"]["params"] == ["groups=2", "design=paper"]


@pytest.mark.parametrize(("args", "expected"), [
    (["--seeds", "1,2"], "--seeds and -p go with --generator NAME"),
    (["--generator", "test:c2e-names"], "needs --seeds"),
    (["--generator", "test:c2e-names", "--seeds", "1,x"], "'x' is not a seed"),
    (["--generator", "test:c2e-names", "--seeds", "1,1"], "each once"),
    (["--generator", "test:c2e-names", "--seeds", "1", "-p", "colour=red"],
     "has no option --colour; it takes: pairs, telling"),
    (["--generator", "test:c2e-names", "--seeds", "1", "-p", "seed=3"], "sets the generator's"),
    (["--generator", "test:c2e-names", "--seeds", "1", "-p", "pairs=many"],
     "options (-p) were not accepted"),
    (["--generator", "test:c2e-names", "--seeds", "1", "-p", "telling=maybe"], "is a switch"),
    (["--generator", "no-such-generator", "--seeds", "1"], "Unknown generator 'no-such-generator'"),
    ([], "Name a dataset folder to audit"),
])
def test_bad_generator_audits_are_one_message_and_exit_2(
        args: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", *args]) == 2
    captured = capsys.readouterr()
    assert expected in captured.err and "Traceback" not in captured.err
    assert captured.out == ""


def test_a_dataset_and_a_generator_together_are_refused(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    folder = write(tmp_path / "ds", c2e_items(12, seed=0, telling=False))
    assert main(["audit", str(folder), "--generator", "test:c2e-names", "--seeds", "1"]) == 2
    assert "not both" in capsys.readouterr().err
    assert load_dataset(folder).items  # untouched


def test_parse_seeds() -> None:
    assert parse_seeds("7,8,9") == [7, 8, 9]
    assert parse_seeds("31-35") == [31, 32, 33, 34, 35]
    with pytest.raises(WhatifError, match="at least one seed"):
        parse_seeds("3,3")
