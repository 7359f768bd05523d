"""Suspects into review: ``whatif review export --sheet keys --suspects items.json`` puts the
flagged items first; importing a fix writes a new dataset version with a card note; ``whatif
items --cleaned`` shows each run's score on the cleaned version beside the original."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_items_inputs import replayed
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.core.csvtext import csv_text
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.errors import EXIT_USER


def wrong_key(tmp: Path) -> tuple[Path, str, str]:
    """A 6-pair dataset with one counterfactual key changed; the item and its true key."""
    clean = load_dataset(make_choice_dataset(tmp / "clean", n_pairs=6))
    bad = clean.items[3]
    out = tmp / "ds"
    with DatasetWriter(out) as writer:
        for rel in dict.fromkeys(p for i in clean.items for p in i.images):
            writer.add_image(Path(rel).name, clean.image_path(rel).read_bytes())
        for item in clean.items:
            if item.id == bad.id:
                item = replace(item, target=next(c for c in item.choices if c != item.target))
            writer.add_item(item)
        writer.finish(name="handmade", suite=clean.suite, version="1",
                      generator={"name": "hand"}, seed=0)
    return out, bad.id, bad.target


@pytest.fixture
def reviewed(tmp_path: Path) -> dict[str, object]:
    ds, bad, truth = wrong_key(tmp_path)
    clean = {i.id: i.target for i in load_dataset(tmp_path / "clean").items}
    runs = [replayed(ds, tmp_path / f"r{k}", clean, f"m{k}") for k in range(5)]
    assert main(["items", str(ds), *map(str, runs), "--json", str(tmp_path / "items.json")]) == 0
    return {"ds": ds, "bad": bad, "truth": truth, "runs": runs, "tmp": tmp_path}


def read(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_suspects_first_fix_imported_as_new_version(reviewed: dict[str, object],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    ds, bad, truth, tmp = (reviewed[k] for k in ("ds", "bad", "truth", "tmp"))
    assert isinstance(tmp, Path) and isinstance(ds, Path)
    report = json.loads((tmp / "items.json").read_text(encoding="utf-8"))
    assert report["items"][0]["id"] == bad and report["items"][0]["suspect"]
    sheet = tmp / "sheet.csv"
    assert main(["review", "export", str(ds), "--sheet", "keys", "--suspects",
                 str(tmp / "items.json"), "--out", str(sheet)]) == 0
    rows = read(sheet)
    assert len(rows) == 12 and rows[0]["key"] == bad
    assert "likely wrong" in rows[0]["suspect"] and rows[1]["suspect"] == ""
    assert list(rows[0]) == ["key", "decision", "suspect", "question", "choices", "answer_key",
                             "comment"]
    rows[0].update(decision="edit", answer_key=str(truth), comment="recounted")
    dropped = next(r for r in rows if r["key"] == "p5-o")
    dropped["decision"] = "reject"
    sheet.write_text(csv_text([list(rows[0]), *[list(r.values()) for r in rows]]),
                     encoding="utf-8")
    capsys.readouterr()
    assert main(["review", "import", str(ds), str(sheet), "--out", str(tmp / "cleaned")]) == 0
    version = f"1+r1.{hashlib.sha256(sheet.read_bytes()).hexdigest()[:8]}"
    assert f"New version: {version}" in capsys.readouterr().out
    cleaned = load_dataset(tmp / "cleaned", verify=True)
    assert cleaned.card.version == version
    note = cleaned.card.extra["reviewed"]
    assert note["from_items_sha256"] == load_dataset(ds).items_sha256
    assert note["changed_keys"] == {bad: [next(i.target for i in load_dataset(ds).items
                                               if i.id == bad), truth]}
    assert note["dropped"] == ["p5-c", "p5-o"]  # a rejected item takes its pair with it
    fixed = next(i for i in cleaned.items if i.id == bad)
    assert fixed.target == truth and fixed.provenance["review"]["comment"] == "recounted"
    assert len(cleaned.items) == 10
    capsys.readouterr()
    runs = reviewed["runs"]
    assert isinstance(runs, list)
    assert main(["items", str(ds), *map(str, runs), "--cleaned", str(tmp / "cleaned")]) == 0
    printed = capsys.readouterr().out
    table = printed[printed.index("Original vs cleaned"):]
    # every run answered the true keys: 5 of 6 counterfactuals right before, all after
    assert "83.3" in table and "100.0" in table and "+16.7" in table, table
    assert "1 key(s) changed, 2 item(s) left out" in table


def test_bad_suspects_and_sheets(reviewed: dict[str, object], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    ds, tmp = reviewed["ds"], reviewed["tmp"]
    assert isinstance(ds, Path) and isinstance(tmp, Path)
    other = make_choice_dataset(tmp_path / "other", n_pairs=3, seed=9)
    capsys.readouterr()
    assert main(["review", "export", str(other), "--sheet", "keys", "--suspects",
                 str(tmp / "items.json"), "--out", str(tmp_path / "s.csv")]) == EXIT_USER
    assert "lists the items of another dataset" in capsys.readouterr().err
    assert main(["review", "export", str(ds), "--out", str(tmp_path / "s.csv")]) == EXIT_USER
    assert "(--sheet keys) reviews the answer keys of any dataset" in capsys.readouterr().err
    assert main(["review", "export", str(ds), "--sheet", "keys", "--suspects",
                 str(tmp / "items.json"), "--out", str(tmp_path / "s.html")]) == 0
    page = (tmp_path / "s.html").read_text(encoding="utf-8")
    assert page.index("likely wrong") < page.index("data-key='p0-o'")
    sheet = tmp_path / "k.csv"
    assert main(["review", "export", str(ds), "--sheet", "keys", "--out", str(sheet)]) == 0
    rows = read(sheet)
    rows[0].update(decision="edit", answer_key="not an option")
    rows[1].update(answer_key="Z")  # changed, but accepted
    sheet.write_text(csv_text([list(rows[0]), *[list(r.values()) for r in rows]]),
                     encoding="utf-8")
    capsys.readouterr()
    assert main(["review", "import", str(ds), str(sheet), "--out",
                 str(tmp_path / "c")]) == EXIT_USER
    err = capsys.readouterr().err
    assert "is not one of the options" in err and "write 'edit' to apply" in err
    capsys.readouterr()
    assert main(["items", str(ds), str(reviewed["runs"][0]), "--cleaned", str(other)]) \
        == EXIT_USER
    assert "is not a reviewed version of" in capsys.readouterr().err
