"""Importing the C-VQA-Real release (sample with real photos), exporting it back, bad inputs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images, sample_rows

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.real.exporter import export_release
from whatifbench.suites.cvqa.real.importer import import_release

HEADER = "img_path,query,answer,new query,new answer,type\n"


@pytest.fixture()
def coco(tmp_path: Path, shared_dir: Path) -> Path:
    """Real photographs named as the sample's img_paths."""
    sample_images(shared_dir, tmp_path / "coco")
    return tmp_path / "coco"


def test_import_sample_verbatim(tmp_path: Path, shared_dir: Path, coco: Path) -> None:
    before = {p.name: sha256_file(p) for p in coco.iterdir()}
    csv_before = sha256_file(sample_csv(shared_dir))
    code = main(["import", "cvqa-real", "--csv", str(sample_csv(shared_dir)), "--images",
                 str(coco), "--out", str(tmp_path / "ds")])
    assert code == 0
    ds = load_dataset(tmp_path / "ds")
    assert ds.suite == "cvqa-real" and ds.card.generator["name"] == "import:cvqa-real"
    assert ds.card.counts["items"] == 72 and ds.card.counts["pairs"] == 36
    assert ds.card.counts["pairs_by_group"] == {"direct": 12, "indirect": 12, "boolean": 12}
    assert ds.card.counts["skipped_pairs"] == 0
    rows = sample_rows(shared_dir)
    pairs = ds.pairs()
    for k, row in enumerate(rows, start=1):
        ori, cf = sorted(pairs[f"real-{k:05d}"], key=lambda i: i.role != "original")
        assert (ori.question, ori.target, cf.question, cf.target) == (
            row["query"], row["answer"], row["new query"], row["new answer"])
        assert ori.group == cf.group == row["type"]
        assert ori.kind == ("yes-no" if row["type"] == "boolean" else "number")
        assert ori.images == cf.images == (f"images/{row['img_path']}",)
        assert ori.meta["image"] == row["img_path"]
        assert sha256_file(ds.image_path(ori.images[0])) == before[row["img_path"]]
    # Text is kept verbatim, typos and quotes included.
    texts = {i.question for i in ds.items}
    assert 'How many times would the word "stop" be repeated if the upper sign had been removed?' \
        in texts and "How many giraffe's have their tongues out?" in texts
    # Inputs untouched; a second import is byte-identical.
    assert {p.name: sha256_file(p) for p in coco.iterdir()} == before
    assert sha256_file(sample_csv(shared_dir)) == csv_before
    import_release(sample_csv(shared_dir), coco, tmp_path / "again")
    for name in ("items.jsonl", "card.json"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "ds" / name).read_bytes()


def test_export_round_trip_is_byte_identical(tmp_path: Path, shared_dir: Path,
                                             coco: Path) -> None:
    import_release(sample_csv(shared_dir), coco, tmp_path / "ds")
    code = main(["export", str(tmp_path / "ds"), "--format", "cvqa-csv", "--out",
                 str(tmp_path / "release")])
    assert code == 0
    assert (tmp_path / "release" / "questions.csv").read_bytes() == \
        sample_csv(shared_dir).read_bytes()
    assert sorted(p.name for p in (tmp_path / "release" / "images").iterdir()) == \
        sorted(p.name for p in coco.iterdir())
    with pytest.raises(WhatifError, match="already exists"):
        export_release(tmp_path / "ds", tmp_path / "release")


def test_missing_images_stop_or_are_skipped(tmp_path: Path, shared_dir: Path, coco: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    gone = [r["img_path"] for r in sample_rows(shared_dir)][5:12]
    for name in gone:
        (coco / name).unlink()
    args = ["import", "cvqa-real", "--csv", str(sample_csv(shared_dir)), "--images", str(coco),
            "--out", str(tmp_path / "ds")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "7 of the 36 images" in err and gone[0] in err and gone[4] in err
    assert gone[5] not in err and "and 2 more" in err and "--allow-missing" in err
    assert "Traceback" not in err
    assert not (tmp_path / "ds").exists()
    assert main([*args, "--allow-missing"]) == 0
    ds = load_dataset(tmp_path / "ds")
    assert ds.card.counts["pairs"] == 29 and ds.card.counts["skipped_pairs"] == 7
    assert ds.card.counts["skipped_missing_images"] == 7
    assert not any(i.meta["image"] in gone for i in ds.items)


def test_corrupt_image_is_reported(tmp_path: Path, shared_dir: Path, coco: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = sample_rows(shared_dir)[3]["img_path"]
    (coco / bad).write_bytes(b"\xff\xd8\xff\xe0 not really a JPEG")
    args = ["import", "cvqa-real", "--csv", str(sample_csv(shared_dir)), "--images", str(coco),
            "--out", str(tmp_path / "ds")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "1 image(s)" in err and "cannot be read" in err and bad in err
    assert not (tmp_path / "ds").exists()
    assert main([*args, "--allow-missing"]) == 0
    counts = load_dataset(tmp_path / "ds").card.counts
    assert counts["skipped_unreadable_images"] == 1 and counts["pairs"] == 35


def test_malformed_rows_name_their_lines(tmp_path: Path, coco: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    img = min(p.name for p in coco.iterdir())
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER
                   + f'{img},"How many\nclocks?",1,How many clocks would there be if one fell?,0,'
                   "direct\n"                                       # lines 2-3: fine
                   + f"{img},How many cars?,2,How many cars if 1 left?\n"          # line 4
                   + f"{img},How many cars?,2,How many cars if 1 left?,1,sideways\n"  # line 5
                   + f"{img},How many cars?,two,How many cars if 1 left?,1,indirect\n"  # 6
                   + f"{img},Is it red?,maybe,Would it be red if painted?,yes,boolean\n"  # 7
                   + f"../{img},How many cars?,2,How many cars if 1 left?,1,direct\n",  # 8
                   encoding="utf-8")
    code = main(["import", "cvqa-real", "--csv", str(bad), "--images", str(coco), "--out",
                 str(tmp_path / "ds")])
    err = capsys.readouterr().err
    assert code == 2 and "has 5 problems" in err
    assert "line 4: has 4 columns, expected 6" in err
    assert "line 5: type 'sideways' is not one of direct, indirect, boolean" in err
    assert "line 6: column 'answer': answer 'two' is not a non-negative whole number" in err
    assert "line 7: column 'answer': answer 'maybe' is not 'yes' or 'no'" in err
    assert "line 8: img_path '../" in err
    assert not (tmp_path / "ds").exists()
    (tmp_path / "header.csv").write_text("image,q,a\nx,y,z\n", encoding="utf-8")
    code = main(["import", "cvqa-real", "--csv", str(tmp_path / "header.csv"), "--images",
                 str(coco), "--out", str(tmp_path / "ds")])
    assert code == 2 and "header.csv:1: the header is 'image,q,a'" in capsys.readouterr().err


def test_release_csv_reader_handles_quoting(tmp_path: Path, coco: Path) -> None:
    img = min(p.name for p in coco.iterdir())
    path = tmp_path / "q.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER.strip().split(","))
        writer.writerow([img, 'Is "it", red?', "yes", "Would it be red, if painted blue?", "no",
                         "boolean"])
    card = import_release(path, coco, tmp_path / "ds")
    ds = load_dataset(tmp_path / "ds")
    assert card.counts["pairs"] == 1
    assert [i.question for i in ds.items] == ['Is "it", red?', "Would it be red, if painted blue?"]
