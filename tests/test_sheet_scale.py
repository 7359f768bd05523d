"""Crowd sheets that are large or odd (issue 32): seconds beyond what the app records, sheets of
many workers, a large ignored column, many unknown-id rows, a repeated ``answer`` column, a very
long annotator name. Timings and peak memory of large sheets are measured by
``bench/bench_human_sheet.py``."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import pytest
from util import make_choice_dataset, whatif

from whatifbench.core.dataset import MAX_LISTED, Dataset, load_dataset
from whatifbench.errors import WhatifError
from whatifbench.human import api
from whatifbench.human.records import check_name
from whatifbench.human.sheet import read_sheet
from whatifbench.report.figures import FIGURE_PEOPLE, figures_for


@pytest.fixture()
def dataset(tmp_path: Path) -> Dataset:
    return load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=6))


def test_seconds_beyond_an_hour_or_beyond_a_float_are_named(dataset: Dataset, tmp_path: Path,
                                                            whatif_home: Path) -> None:
    """Item 5: ``seconds`` of 1e308 (CSV) or a 400-digit integer (JSONL) is a file:line error
    (the app records at most 3600, and so does a sheet); --skip-invalid skips the row."""
    csv_sheet = tmp_path / "sheet.csv"
    csv_sheet.write_text("item_id,annotator,answer,seconds\np0-o,a1,A,12\np0-c,a1,B,1e308\n"
                         "p1-o,a1,C,3601\np1-c,a1,D,3600\n", encoding="utf-8")
    with pytest.raises(WhatifError) as err:
        read_sheet(csv_sheet, dataset)
    text = str(err.value)
    assert f"{csv_sheet}:3: seconds '1e308' is more than 3600" in text
    assert f"{csv_sheet}:4: seconds '3601' is more than 3600" in text
    assert ":5:" not in text and "has 2 problems" in text
    jsonl_sheet = tmp_path / "sheet.jsonl"
    rows = [{"item_id": "p0-o", "annotator": "a1", "answer": "A", "seconds": 4},
            {"item_id": "p0-c", "annotator": "a1", "answer": "B"}]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    jsonl_sheet.write_text(text + '{"item_id": "p1-o", "annotator": "a1", "answer": "C", '
                           '"seconds": ' + "9" * 400 + "}\n", encoding="utf-8")
    with pytest.raises(WhatifError, match=rf"{jsonl_sheet}:3: seconds '9{{60}}'… \(400 "
                       "characters\\) is more than 3600"):
        read_sheet(jsonl_sheet, dataset)
    done = whatif(["human", "import", str(dataset.root), str(jsonl_sheet), "--out",
                   str(tmp_path / "run"), "--skip-invalid"], home=whatif_home)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("skipped: ") == 1 and "internal error" not in done.stderr
    (run,) = json.loads((tmp_path / "run" / "results.json").read_text())["runs"]
    assert run["n_items"] == 2


def _sheet(dataset: Dataset, path: Path, workers: int, per_worker: int = 4,
           unknown: int = 0, ignored: int = 0) -> None:
    """A CSV sheet of ``workers`` annotators answering ``per_worker`` random items each, with
    ``unknown`` rows of items not in the dataset and an ignored column of ``ignored`` bytes."""
    rng = random.Random(0)
    ids = [i.id for i in dataset.items]
    with path.open("w", encoding="utf-8") as out:
        out.write("item_id,annotator,answer,seconds,comment\n")
        for w in range(workers):
            for item in rng.sample(ids, per_worker):
                out.write(f"{item},w{w:04d},{'ABCD'[rng.randrange(4)]},{rng.randint(2, 30)},"
                          f"{'x' * ignored}\n")
        for k in range(unknown):
            out.write(f"gone-{k},w0000,A,3,\n")


def test_many_workers_draw_one_majority_figure(dataset: Dataset, tmp_path: Path,
                                               whatif_home: Path) -> None:
    """Item 6: with more than FIGURE_PEOPLE annotators, figures show their majority only (a
    panel per worker made a 1,000-worker sheet take more than 15 minutes); the tables keep every
    annotator."""
    _sheet(dataset, tmp_path / "sheet.csv", FIGURE_PEOPLE + 4)
    written = api.import_sheet(dataset, tmp_path / "sheet.csv", tmp_path / "run")
    assert len(written.runs) == FIGURE_PEOPLE + 5  # every worker, then the majority
    panels = [p.title for f in figures_for(written.runs) for p in f.panels]
    assert not any("w00" in t for t in panels), panels
    assert any("majority" in t for t in panels)
    few = api.human_runs(dataset, read_sheet(tmp_path / "sheet.csv", dataset).answers[:12],
                         {"source": "sheet"})
    assert any("w0000" in p.title for f in figures_for(few) for p in f.panels)


def test_unknown_rows_are_counted_not_kept(dataset: Dataset, tmp_path: Path) -> None:
    """Item 6: 5,000 rows of unknown items cost a count, not 5,000 messages: the first
    MAX_LISTED are named, the rest counted (with --skip-invalid and in the error)."""
    _sheet(dataset, tmp_path / "sheet.csv", 3, unknown=5000)
    found = read_sheet(tmp_path / "sheet.csv", dataset, skip_invalid=True)
    assert len(found.answers) == 12 and found.n_skipped == 5000
    assert len(found.skipped) == MAX_LISTED and "gone-0" in found.skipped[0]
    with pytest.raises(WhatifError) as err:
        read_sheet(tmp_path / "sheet.csv", dataset)
    assert "has 5000 problems" in str(err.value) and f"and {5000 - MAX_LISTED} more" in \
        str(err.value)
    assert str(err.value).count("\n") < MAX_LISTED + 4


def test_a_large_ignored_column_is_streamed(dataset: Dataset, tmp_path: Path) -> None:
    """Item 6: memory follows the rows kept, not the sheet: a 12 MB sheet whose bulk is an
    ignored column is read with a few hundred kB of Python memory at most (it was read whole,
    then copied)."""
    _sheet(dataset, tmp_path / "sheet.csv", 100, ignored=30_000)
    size = (tmp_path / "sheet.csv").stat().st_size
    assert size > 12_000_000
    tracemalloc.start()
    try:
        found = read_sheet(tmp_path / "sheet.csv", dataset)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found.answers) == 400
    assert peak < size / 10, (peak, size)


def test_a_repeated_answer_column_is_refused(dataset: Dataset, tmp_path: Path) -> None:
    """Low item: two ``answer`` columns (the last silently won) are one clear error."""
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("item_id,annotator,answer,comment,answer\np0-o,a1,A,,B\n", encoding="utf-8")
    with pytest.raises(WhatifError, match=r"sheet.csv:1 has the same column more than once "
                       r"\('answer' in columns 3, 5\)"):
        read_sheet(sheet, dataset)


def test_a_very_long_annotator_name_is_not_echoed_whole(dataset: Dataset,
                                                        tmp_path: Path) -> None:
    """Low item: a 10,000-character name is cut in messages, its length said."""
    name = "a" + "b" * 9_999
    sheet = tmp_path / "sheet.csv"
    sheet.write_text(f"item_id,annotator,answer\np0-o,{name},A\np0-c,a1,B\n", encoding="utf-8")
    with pytest.raises(WhatifError) as err:
        read_sheet(sheet, dataset)
    assert "(10,000 characters)" in str(err.value) and len(str(err.value)) < 600
    with pytest.raises(WhatifError) as err:
        check_name(name)
    assert "(10,000 characters)" in str(err.value) and len(str(err.value)) < 600
