"""Dataset folders: writing, hashing, and validation with file:line messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.item import Item
from whatifbench.errors import WhatifError


def test_round_trip_and_card_hashes(tmp_path: Path) -> None:
    root = make_choice_dataset(tmp_path / "ds", n_pairs=3)
    ds = load_dataset(root)
    assert len(ds.items) == 6
    card = json.loads((root / "card.json").read_text())
    assert card["counts"]["pairs"] == 3
    assert card["hashes"]["items_sha256"] == sha256_file(root / "items.jsonl")
    image = "images/img_000.png"
    assert card["hashes"]["images"][image] == sha256_file(root / image)
    assert ds.items[0].to_json()["choices"] == list(ds.items[0].choices)


def test_writer_is_deterministic(tmp_path: Path) -> None:
    a = make_choice_dataset(tmp_path / "a", seed=3)
    b = make_choice_dataset(tmp_path / "b", seed=3)
    c = make_choice_dataset(tmp_path / "c", seed=4)
    assert (a / "items.jsonl").read_bytes() == (b / "items.jsonl").read_bytes()
    assert (a / "card.json").read_bytes() == (b / "card.json").read_bytes()
    assert (a / "items.jsonl").read_bytes() != (c / "items.jsonl").read_bytes()


def test_failed_writer_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    with pytest.raises(RuntimeError), DatasetWriter(out) as writer:
        writer.add_image("x.png", b"not yet")
        raise RuntimeError("generator crashed")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_writer_refuses_non_empty_folder_without_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(WhatifError, match="--overwrite"), DatasetWriter(out):
        pass
    assert (out / "mine.txt").read_text() == "keep me"


def _edit_line(root: Path, lineno: int, change: dict | str) -> None:
    lines = (root / "items.jsonl").read_text().splitlines()
    if isinstance(change, str):
        lines[lineno - 1] = change
    else:
        obj = json.loads(lines[lineno - 1])
        obj.update(change)
        lines[lineno - 1] = json.dumps(obj)
    (root / "items.jsonl").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("lineno, change, needle", [
    (2, "{not json", "items.jsonl:2: not valid JSON"),
    (3, {"kind": "essay"}, "items.jsonl:3: field 'kind' is 'essay'"),
    (1, {"target": "99"}, "items.jsonl:1: 'target' '99' is not one of the choices"),
    (4, {"id": "p0-o"}, "items.jsonl:4: duplicate id 'p0-o' (first on line 1)"),
    (2, {"images": ["/etc/passwd"]}, "must be relative"),
    (5, {"role": "basic", "pair_id": None}, "must be given together"),
    (1, {"colour": "red"}, "unknown field(s) colour"),
])
def test_bad_lines_are_named(tmp_path: Path, lineno: int, change: dict | str, needle: str) -> None:
    root = make_choice_dataset(tmp_path / "ds")
    _edit_line(root, lineno, change)
    with pytest.raises(WhatifError) as err:
        load_dataset(root)
    assert needle in str(err.value)


def test_missing_and_corrupt_images_are_named(tmp_path: Path) -> None:
    root = make_choice_dataset(tmp_path / "ds")
    (root / "images/img_001.png").unlink()
    (root / "images/img_002.png").write_bytes(b"\x89PNG garbage")
    with pytest.raises(WhatifError) as err:
        load_dataset(root)
    text = str(err.value)
    assert "image images/img_001.png is missing" in text
    assert "image images/img_002.png cannot be read as an image" in text
    assert "2 problems" in text


def test_not_a_dataset(tmp_path: Path) -> None:
    with pytest.raises(WhatifError, match="no card.json"):
        load_dataset(tmp_path)
    with pytest.raises(WhatifError, match="There is no dataset folder"):
        load_dataset(tmp_path / "nope")


def test_cli_reports_bad_dataset_without_traceback(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = make_choice_dataset(tmp_path / "ds")
    _edit_line(root, 2, {"kind": "essay"})
    before = (root / "items.jsonl").read_bytes()
    code = main(["run", "--suite", str(root), "--model", "builtin:random",
                 "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "items.jsonl:2" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    assert (root / "items.jsonl").read_bytes() == before


def test_item_target_index() -> None:
    item = Item("a", (), "q", "choice", "y", ("x", "y"))
    assert item.target_index == 1


def test_sort_images_splits_missing_and_unreadable_once_each(tmp_path: Path) -> None:
    from whatifbench.core.dataset import sort_images

    good = make_choice_dataset(tmp_path / "ds") / "images" / "img_000.png"
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    missing, unreadable = sort_images([("b", bad), ("gone", tmp_path / "gone.png"), ("ok", good),
                                       ("none", None), ("gone", tmp_path / "gone.png")])
    assert missing == ["gone", "none"]
    assert list(unreadable) == ["b"] and "cannot be read as an image" in unreadable["b"]
