"""``whatif items``: the flags that need particular runs (never parsed, answerable blind, image
insensitivity, negative discrimination) and the clear errors of bad input."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_budget import random_runs
from util import make_choice_dataset, png

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.records.spec import AblationRef
from whatifbench.errors import EXIT_USER
from whatifbench.integrations.replay import ReplayBackend, replay


def items_json(tmp: Path, dataset: Path, *runs: Path) -> dict:
    out = tmp / "items.json"
    assert main(["items", str(dataset), *map(str, runs), "--json", str(out),
                 "--overwrite"]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def replayed(dataset: Path, out: Path, replies: dict[str, str], name: str) -> Path:
    ds = load_dataset(dataset)
    run = replay(ds, ReplayBackend(f"replay:{name}", {}, replies, name), {"tool": "test"})
    api.write_outputs(out, [run])
    return out


def test_never_parsed(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=4)
    items = load_dataset(ds).items
    broken = items[0].id
    runs = []
    for k in range(2):
        replies = {i.id: ("I cannot tell." if i.id == broken else "A") for i in items}
        runs.append(replayed(ds, tmp_path / f"r{k}", replies, f"m{k}"))
    report = items_json(tmp_path, ds, *runs)
    first = report["items"][0]
    assert first["id"] == broken and first["codes"] == ["never-parsed"]
    assert first["parse_failures"] == 2 == first["replies"]
    assert "never parsed" in first["reasons"][0]
    assert sum(i["suspect"] for i in report["items"]) == 1


def test_answerable_blind_from_the_audit(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    with DatasetWriter(ds) as writer:  # one group's key is always the first option
        for k in range(80):
            rel = writer.add_image(f"i{k}.png", png((k, 9, 9)))
            for role in ("original", "counterfactual"):
                options = tuple(str(v) for v in range(k % 7, k % 7 + 4))
                target = options[0] if k % 2 == 0 else options[(k * 7 + len(role)) % 4]
                writer.add_item(Item(f"p{k}-{role[0]}", (rel,), f"How many dots ({role})?",
                                     "choice", target, options, f"p{k}", role,
                                     "easy" if k % 2 == 0 else "hard"))
        writer.finish(name="blind", suite="cvqa-synthetic", version="1",
                      generator={"name": "hand"}, seed=0)
    assert main(["audit", str(ds), "--by", "group"]) == 0
    runs = random_runs(ds, tmp_path / "runs", n=2)
    report = items_json(tmp_path, ds, runs)
    flagged = [i for i in report["items"] if "answerable-blind" in i["codes"]]
    assert flagged and all(i["group"] == "easy" for i in flagged)
    assert all(i["blind_solvable"] for i in flagged)
    assert "from the text alone" in flagged[0]["reasons"][-1]
    assert not any("has not been audited" in n for n in report["notes"])


def test_image_insensitive_from_ablated_runs(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=4)
    items = load_dataset(ds).items
    with_image = {i.id: i.target for i in items}
    without = {i.id: (i.target if k % 2 else i.choices[0] if i.choices[0] != i.target
                      else i.choices[1]) for k, i in enumerate(items)}
    full = replay(load_dataset(ds), ReplayBackend("replay:m", {}, with_image, "1"), {})
    blank = replay(load_dataset(ds), ReplayBackend("replay:m", {}, without, "2"), {})
    # what 'whatif run --image-ablation blank' records in the spec (runner.ablation)
    blank = replace(blank, spec=replace(blank.spec, image_ablation=AblationRef("blank")))
    api.write_outputs(tmp_path / "runs", [full, blank])
    report = items_json(tmp_path, ds, tmp_path / "runs")
    rows = {i["id"]: i for i in report["items"]}
    for k, item in enumerate(items):
        assert rows[item.id]["ablation_pairs"] == 1
        assert rows[item.id]["image_insensitive"] is bool(k % 2)
    assert sorted(r["kind"] for r in report["runs"]) == ["ablated", "model"]
    assert all(i["runs"] == 1 for i in report["items"])  # the ablated run does not vote


def test_negative_discrimination(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=30)
    items = load_dataset(ds).items
    odd = items[1]  # a counterfactual question: C-VQA's scoring unit, so it has IRT parameters
    runs = []
    for k in range(24):  # model k gets the first k+6 items right; the odd one the other way
        replies = {}
        for j, i in enumerate(items):
            good = k < 12 if i.id == odd.id else j < k + 6
            others = [c for c in i.choices if c != i.target]
            replies[i.id] = i.target if good else others[(j + k) % len(others)]
        runs.append(replayed(ds, tmp_path / f"r{k}", replies, f"m{k:02d}"))
    report = items_json(tmp_path, ds, *runs)
    row = next(i for i in report["items"] if i["id"] == odd.id)
    assert "negative-discrimination" in row["codes"], row
    assert row["discrimination"] < -0.2 and row["irt"]["a"] < 0
    assert report["irt"]["fitted"] is True and report["irt"]["respondents"] == 24
    assert "negative discrimination (point-biserial" in " ".join(row["reasons"])


def test_runs_of_another_dataset_are_refused(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=4)
    other = make_choice_dataset(tmp_path / "other", n_pairs=4, seed=3)
    assert main(["run", "--suite", str(other), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["items", str(ds), str(tmp_path / "run"), "--json",
                 str(tmp_path / "i.json")]) == EXIT_USER
    err = capsys.readouterr().err
    assert "was made on another dataset" in err and "items sha256" in err
    assert not (tmp_path / "i.json").exists()
    assert main(["items", str(ds), str(other)]) == EXIT_USER
    assert "is a dataset folder, not a run folder" in capsys.readouterr().err


def test_too_few_runs_fall_back_and_say_so(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=4)
    runs = random_runs(ds, tmp_path / "runs", n=3)
    capsys.readouterr()
    report = items_json(tmp_path, ds, runs)
    printed = capsys.readouterr().out
    assert "IRT needs at least 20 runs" in printed and "3 were given" in printed
    assert report["irt"] == {"fitted": False, "respondents": 3, "units": 0,
                             "reason": report["irt"]["reason"]}
    assert all(i["irt"] is None and i["discrimination"] is not None or i["share_right"] in
               (0.0, 1.0) for i in report["items"])
    assert main(["items", str(ds), str(runs), "--json", str(tmp_path / "items.json")]) \
        == EXIT_USER  # an existing output is not replaced without --overwrite
    assert "already exists" in capsys.readouterr().err
