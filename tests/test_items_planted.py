"""``whatif items`` finds planted wrong keys: a generated C-VQA-Synthetic suite (600 items) with
30 keys changed, the built-in models' runs and three simulated annotators who answer 85 % of
items right (against the true answers) → at least 27 of the 30 flagged, at most 15 others."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import lookup

PLANTED = 30
ANNOTATORS = ("a01", "a02", "a03")
RIGHT = 0.85


def planted_suite(tmp: Path, seed: int = 0) -> tuple[Path, dict[str, Item], set[str]]:
    """The generated suite with ``PLANTED`` keys changed to another option; the true items by
    id and the ids changed."""
    clean = tmp / "clean"
    lookup("generator", "cvqa-synthetic").obj.generate(clean, seed=seed, per_template=50)
    ds = load_dataset(clean)
    assert len(ds.items) == 600
    rng = random.Random(seed)
    changed = set(rng.sample([i.id for i in ds.items], PLANTED))
    out = tmp / "planted"
    with DatasetWriter(out) as writer:
        for rel in dict.fromkeys(p for i in ds.items for p in i.images):
            dest = writer.stage / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(ds.image_path(rel).read_bytes())
        for item in ds.items:
            if item.id in changed:
                wrong = rng.choice([c for c in item.choices if c != item.target])
                item = replace(item, target=wrong)
            writer.add_item(item)
        writer.finish(name="planted", suite=ds.suite, version="1", generator=ds.card.generator,
                      seed=seed)
    return out, {i.id: i for i in ds.items}, changed


def annotator_sheet(path: Path, truth: dict[str, Item], seed: int = 1) -> None:
    """Three annotators answer every item: right (the true answer) with probability 0.85, else
    another option at random."""
    rng = random.Random(seed)
    lines = ["item_id,annotator,answer"]
    for name in ANNOTATORS:
        for item in truth.values():
            answer = item.target if rng.random() < RIGHT else rng.choice(
                [c for c in item.choices if c != item.target])
            lines.append(f"{item.id},{name},{answer}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_planted_wrong_keys_are_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    dataset, truth, changed = planted_suite(tmp_path)
    assert main(["run", "--suite", str(dataset), "--out", str(tmp_path / "models"),
                 "--no-progress"]) == 0
    annotator_sheet(tmp_path / "sheet.csv", truth)
    assert main(["human", "import", str(dataset), str(tmp_path / "sheet.csv"), "--out",
                 str(tmp_path / "people")]) == 0
    capsys.readouterr()
    assert main(["items", str(dataset), str(tmp_path / "models"), str(tmp_path / "people"),
                 "--json", str(tmp_path / "items.json"), "--csv",
                 str(tmp_path / "items.csv")]) == 0
    printed = capsys.readouterr().out
    report = json.loads((tmp_path / "items.json").read_text(encoding="utf-8"))
    flagged = {i["id"] for i in report["items"] if i["suspect"]}
    found = flagged & changed
    assert len(found) >= 27, (len(found), sorted(changed - flagged))
    assert len(flagged - changed) <= 15, sorted(flagged - changed)
    # the suspects come first, each with its reasons; the table names them
    ranked = [i["id"] for i in report["items"]]
    assert set(ranked[:len(flagged)]) == flagged
    first = report["items"][0]
    assert first["suspect"] and first["reasons"] and "key" in first["codes"]
    assert first["id"] in printed and "suspect" in printed
    planted = next(i for i in report["items"] if i["id"] in found)
    assert planted["likely_answer"] == truth[planted["id"]].target
    assert any("humans' majority disagrees with the key" in r or
               "every strong run disagrees with the key" in r for r in planted["reasons"])
    # humans (three) and models (four) are told apart; the majority run does not vote
    kinds = sorted(r["kind"] for r in report["runs"])
    assert kinds == ["human"] * 3 + ["majority"] + ["model"] * 4
    assert report["irt"]["fitted"] is False and "at least 20 runs" in report["irt"]["reason"]
    csv_text = (tmp_path / "items.csv").read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith("id,suspect,reasons")
    assert len(csv_text.splitlines()) == 601
