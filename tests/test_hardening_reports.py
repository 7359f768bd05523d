"""Round 3 of the hostile pass (issue 32), the run and report side: ranking records no decoding,
a shuffled ablation never leaves an image question without an image, edited results are refused
as edited samples are, the best-model-vs-humans table prints its interval and p-value, chance
and -0.0 look the same everywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_util import needs_chromium
from util import make_choice_dataset, png

from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.report.table import Cell, Table, fixed, fmt, signed
from whatifbench.report.table_export import to_csv
from whatifbench.runner.ablation import ImageAblation, ablate
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder


def mixed_pairs(out: Path, n: int = 6) -> Path:
    """Pairs about a picture and, every other one, pairs asked without any image."""
    with DatasetWriter(out) as writer:
        for k in range(n):
            images = () if k % 2 else (writer.add_image(f"{k}.png", png((20 * k, 0, 0), 24)),)
            for role in ("original", "counterfactual"):
                writer.add_item(Item(f"p{k}-{role[0]}", images, f"How many ({role}, {k})?",
                                     "choice", "1", ("1", "2"), f"p{k}", role, "g"))
        writer.finish(name="mixed", suite="cvqa-synthetic", version="t",
                      generator={"name": "hand"}, seed=0)
    return out


def test_shuffled_never_gives_an_image_question_no_image(tmp_path: Path) -> None:
    ds = load_dataset(mixed_pairs(tmp_path / "ds"))
    protocol = Protocol().resolved("generate")
    builder = RequestBuilder(get_suite(ds.suite), protocol, ds)
    requests = [builder.build(i) for i in ds.items]
    for seed in range(8):
        shuffled = ablate(requests, ImageAblation("shuffled", seed))
        for before, after in zip(requests, shuffled, strict=True):
            assert bool(before.images) == bool(after.images)
            if before.images:
                assert after.images != before.images


def test_ranking_records_no_decoding_and_refuses_the_release_s(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = mixed_pairs(tmp_path / "ds")
    base = ["run", "--suite", str(ds), "--model", "builtin:constant", "--no-progress",
            "--answer-mode", "rank"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    spec = json.loads((tmp_path / "a" / "results.json").read_text())["runs"][0]["spec"]
    assert spec["protocol"]["answer_mode"] == "rank" and spec["protocol"]["decoding"] is None
    capsys.readouterr()
    code = main([*base, "--prompt", "paper", "--decoding", "release",
                 "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert code == 2 and "nothing is generated" in err and "Traceback" not in err
    assert not (tmp_path / "b").exists()


@needs_chromium
def test_numbers_round_alike_in_the_terminal_the_csv_and_the_page(page: Any) -> None:
    """6.25 was 6.2 in the terminal and 6.3 on the page; -0.0 reached CSVs and changes."""
    values = [6.25, -6.25, 0.05, 1.005, 2.675, -0.04, 0.0, -0.0, 12.345, 99.95, 33.333333]
    shown = page.evaluate("(vs) => vs.map((v) => [Number(v).toFixed(1), Number(v).toFixed(2)])",
                          values)
    for v, (one, two) in zip(values, shown, strict=True):
        for digits, js in ((1, one), (2, two)):
            assert fixed(v, digits) == (js.lstrip("-") if float(js) == 0 else js), (v, digits)
    assert fmt(6.25) == "6.3" and signed(-0.04) == "+0.0" and signed(-6.25) == "-6.3"
    csv = to_csv(Table("t", ("model", "drop"), (("m", Cell(-0.0, delta=-0.0)),)))
    assert "-0.0" not in csv


def test_best_model_vs_humans_prints_its_interval_and_p(tmp_path: Path) -> None:
    """The table promised an interval the terminal did not print, and printed p as 0.5."""
    from whatifbench import api
    from whatifbench.human.api import import_sheet
    from whatifbench.report.human import versus_table
    from whatifbench.runner.evaluate import RunOptions

    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=8))
    models = api.run_all([ds], ["builtin:ignore-premise"], options=RunOptions(progress=False))
    sheet = tmp_path / "sheet.csv"
    lines = ["item_id,annotator,answer"]
    for k, item in enumerate(ds.items):
        for who in ("ann1", "ann2"):
            wrong = (k + len(who)) % 3 == 0
            lines.append(f"{item.id},{who},{'ABCD'[(item.target_index + wrong) % 4]}")
    sheet.write_text("\n".join(lines) + "\n")
    people = import_sheet(ds, sheet, tmp_path / "people").runs
    table = versus_table(models, people[-1:], [*models, *people])
    assert table is not None and "95% interval" in table.columns
    text = table.to_text(200)
    row = dict(zip(table.columns, table.rows[0], strict=True))
    assert " to " in str(row["95% interval"]) and str(row["95% interval"]) in text
    p = str(row["McNemar p"])
    assert p == "<0.001" or (len(p.split(".")[-1]) == 3 and p in text)


def test_unknown_spec_fields_are_not_copied_and_huge_results_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 500 MB results.json peaked at 2.6 GB and its unknown spec field went whole into a
    524 MB report.html (issue 32, item 7): unknown fields are dropped, known texts are cut on
    the page, and a results file far beyond what whatif writes is refused up front."""
    from whatifbench.core.records import results_file as results_module

    ds = make_choice_dataset(tmp_path / "ds")
    run = tmp_path / "run"
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--no-progress",
                 "--out", str(run)]) == 0
    data = json.loads((run / "results.json").read_text())
    del data["runs_sha256"]  # another tool's file, or an older version's
    data["runs"][0]["spec"]["notes_from_elsewhere"] = "x" * 300_000
    data["runs"][0]["spec"]["source"] = {"config": "y" * 300_000}
    (run / "results.json").write_text(json.dumps(data))
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    page = (tmp_path / "rep" / "report.html").read_text()
    merged = (tmp_path / "rep" / "results.json").read_text()
    assert "notes_from_elsewhere" not in page and "notes_from_elsewhere" not in merged
    assert "y" * 5000 not in page and "characters in all" in page
    assert len(page) < 1_000_000
    monkeypatch.setattr(results_module, "MAX_RESULTS_MB", 0)
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "rep2")]) == 2
    err = capsys.readouterr().err
    assert "MB; whatifbench's results files hold metrics" in err and "Traceback" not in err
    assert not (tmp_path / "rep2").exists()


def test_a_sealed_samples_file_reads_as_the_line_by_line_reader_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``samples.jsonl`` with the digest its results.json records is read in one parse (issue
    32, item 11); the samples equal the line-by-line reader's, and a file that lost its seal
    (an edited line) still gets the line-by-line reader's message naming the line."""
    from whatifbench.core.records import results_file
    from whatifbench.errors import WhatifError
    from whatifbench.runner.results import load_runs

    ds = make_choice_dataset(tmp_path / "ds", n_pairs=6)
    run = tmp_path / "run"
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--model",
                 "builtin:constant", "--no-progress", "--out", str(run)]) == 0
    results = run / "results.json"
    data = json.loads(results.read_text())
    text = (run / "samples.jsonl").read_text()
    assert results_file._all_at_once(text.split("\n")) is not None
    sealed = results_file._read_samples(run / "samples.jsonl", results, data["run_id"],
                                        data["samples_sha256"])
    assert len(sealed) == 2
    with monkeypatch.context() as m:
        m.setattr(results_file, "_all_at_once", lambda lines: None)
        line_by_line = results_file._read_samples(run / "samples.jsonl", results,
                                                  data["run_id"], data["samples_sha256"])
    assert sealed == line_by_line
    assert sealed == {(r.dataset, r.model): r.samples for r in load_runs(run)}
    lines = text.split("\n")
    lines[3] = lines[3][:-1]  # a broken record
    (run / "samples.jsonl").write_text("\n".join(lines))
    with pytest.raises(WhatifError, match=r"samples.jsonl:4: not valid JSON"):
        load_runs(run)


def test_report_figures_are_remembered_and_a_broken_entry_is_computed_again(
        tmp_path: Path, whatif_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``whatif run`` leaves the paired comparisons and reference rows in the report memo; a
    later report reads them back without computing (issue 32, item 11), gives the same
    figures, and computes again what it cannot read."""
    from whatifbench.report import comparisons, memo

    ds = make_choice_dataset(tmp_path / "ds", n_pairs=6)
    run = tmp_path / "run"
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--model",
                 "builtin:constant", "--no-progress", "--out", str(run)]) == 0
    kinds = {entry.name.split("-")[0] for entry in memo.folder().glob("*.json")}
    assert {"references", "compared"} <= kinds
    computed: list[int] = []
    compute = comparisons._compute_compared
    monkeypatch.setattr(comparisons, "_compute_compared",
                        lambda *args: computed.append(1) or compute(*args))

    def compared(out: Path) -> Any:
        assert main(["report", str(run), "--out", str(out)]) == 0
        return json.loads((out / "results.json").read_text())["comparisons"]

    original = json.loads((run / "results.json").read_text())["comparisons"]
    assert compared(tmp_path / "rep") == original and computed == []
    for entry in memo.folder().glob("compared-*.json"):
        entry.write_text("{not json", encoding="utf-8")
    assert compared(tmp_path / "rep2") == original and computed == [1]
