"""A run where calls failed never looks like a plain result (issue 11 item 4): every table of
every suite marks the errors, the reports and results.json say how many, and ``whatif run``
exits with status 3 (documented in ``whatif run --help``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from cello_fixtures import write_input
from cfmm_util import good_records, write_images, write_jsonl
from mucr_util import write_release
from util import make_choice_dataset, page_data

from whatifbench import api
from whatifbench.analysis.bias import analyze_bias, bias_tables
from whatifbench.cli.main import build_parser, main
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import register
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.models.base import Backend
from whatifbench.report.errors import COLUMN
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.store import RunStore
from whatifbench.suites.cello.build import build_cello
from whatifbench.suites.cfmm.importer import import_cfmm
from whatifbench.suites.mucr.importer import import_mucr


@register("backend", "test:every-third-fails")
class EveryThirdFails(Backend):
    """Answers option A (or scores it best); every third request fails like a lost
    connection."""

    capabilities = Capabilities(generate=True, rank=True, multi_image=True)

    def _failed(self, request: Request) -> bool:
        return sum(map(ord, request.item_id)) % 3 == 0

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            yield i, (Response(error="connection error (ConnectError)") if self._failed(request)
                      else Response(text="A"))

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            scores = tuple(0.0 if k == 0 else -1.0 for k in range(len(request.candidates)))
            yield i, (Response(error="connection error (ConnectError)") if self._failed(request)
                      else Response(scores=scores, mean_scores=scores))


@register("backend", "test:cannot-describe")
class CannotDescribe(Backend):
    """Answers A, but its scene descriptions (the CCoT first stage) fail for pair p0."""

    capabilities = Capabilities(generate=True, multi_image=True)
    seen: ClassVar[list[str]] = []

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            type(self).seen.append(request.item_id)
            failed = request.item_id.startswith("p0-") and request.item_id.endswith("#describe")
            yield i, Response(error="HTTP 503") if failed else Response(text="A")


def test_an_item_whose_ccot_description_failed_ends_in_that_error(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    CannotDescribe.seen.clear()
    [run] = api.run_all([ds], ["test:cannot-describe"], protocol=Protocol(strategy="ccot"),
                        options=RunOptions(progress=False))
    failed = {s.item_id: s.error for s in run.samples if s.error}
    assert failed == {"p0-o": "the scene description failed: HTTP 503",
                      "p0-c": "the scene description failed: HTTP 503"}
    assert run.n_errors == 2 and run.execution.errors == 2
    assert "p0-o" not in CannotDescribe.seen  # its question was not asked without a description
    assert len(CannotDescribe.seen) == 12 + 10


def _dataset(kind: str, tmp_path: Path) -> Path:
    if kind == "cvqa-synthetic":
        return make_choice_dataset(tmp_path / "ds")
    if kind == "cfmm":
        records = good_records()
        images = write_images(tmp_path / "imgs", records)
        import_cfmm(tmp_path / "ds", images=images,
                    jsonl=write_jsonl(tmp_path / "p.jsonl", records))
        return tmp_path / "ds"
    if kind == "mucr":
        release = write_release(tmp_path / "release")
        import_mucr(release.jsonl, release.images, tmp_path / "ds")
        return tmp_path / "ds"
    sg, data, images = write_input(tmp_path / "in")
    build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=3, seed=0,
                design="paper")
    return tmp_path / "ds"


@pytest.mark.parametrize("kind", ["cvqa-synthetic", "cfmm", "mucr", "cello"])
def test_every_table_of_every_suite_marks_backend_errors(kind: str, tmp_path: Path) -> None:
    ds = _dataset(kind, tmp_path)
    store = RunStore(tmp_path / "store.sqlite")
    options = RunOptions(progress=False, judge="test:judge" if kind == "mucr" else None)
    try:
        runs = api.run_all([ds], ["builtin:constant", "test:every-third-fails"],
                           protocol=Protocol(), options=options, store=store)
    finally:
        store.close()
    constant, failing = runs
    assert constant.n_errors == 0 < failing.n_errors < failing.n_items
    tables = api.tables_for(runs)
    assert tables
    note = f"test:every-third-fails: {failing.n_errors} of {failing.n_items} items"
    for table in tables:
        assert any(note in n for n in table.notes), table.title
        assert "builtin:constant:" not in " ".join(table.notes)
        if table.columns[0] == "model":
            column = table.columns.index(COLUMN)
            rows = table.rows[:len(table.rows) - table.reference_rows]  # not chance, blind
            cells = {(row[0].split(" ")[0], row[column]) for row in rows}
            one_per_run = len(rows) == 2
            shown = str(failing.n_errors) if one_per_run else f"{failing.n_errors} in run"
            assert cells == {("builtin:constant", "0"), ("test:every-third-fails", shown)}, \
                table.title
            text = table.to_text()
            assert COLUMN in text and note in text
    paths = api.write_outputs(tmp_path / "out", runs)
    results = json.loads(paths["results.json"].read_text())
    assert [r["errors"] for r in results["runs"]] == [0, failing.n_errors]
    assert note in paths["report.md"].read_text()
    data = page_data(paths["report.html"].read_text())  # the explorer shows the same
    assert [r["counts"]["errors"] for r in data["runs"]] == [0, failing.n_errors]
    shown = data["datasets"][0]["tables"]
    assert [t["title"] for t in shown] == [t.title for t in tables]
    for table, entry in zip(tables, shown, strict=True):
        assert any(note in n for n in entry["notes"])
        assert (COLUMN in entry["columns"]) == (COLUMN in table.columns)


def test_tables_without_errors_are_unchanged(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    runs = api.run_all([ds], ["builtin:constant"], options=RunOptions(progress=False))
    [table] = api.tables_for(runs)
    assert COLUMN not in table.columns and not any("Backend errors" in n for n in table.notes)


def test_run_exits_3_when_items_ended_in_errors_and_report_keeps_the_marks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    code = main(["run", "--suite", str(ds), "--model", "test:every-third-fails", "--out",
                 str(tmp_path / "run"), "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 3
    assert COLUMN in out and "⚠ Backend errors" in out
    assert "item(s) ended in a backend error" in err and "exit status 3" in err
    assert (tmp_path / "run" / "results.json").is_file()
    # The merged report of that folder shows the errors too (read back from its files).
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "merged")]) == 0
    out, _ = capsys.readouterr()
    assert COLUMN in out and "⚠ Backend errors" in out
    # A clean run exits 0.
    assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--out",
                 str(tmp_path / "clean"), "--no-progress"]) == 0


def test_the_bias_analysis_says_which_runs_had_errors(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--model",
                 "test:every-third-fails", "--out", str(tmp_path / "run"), "--no-progress"]) == 3
    groups = tmp_path / "groups.csv"
    groups.write_text("image,group\n" + "".join(f"img_{k:03d}.png,{'ab'[k % 2]}\n"
                                                 for k in range(6)))
    report = analyze_bias(tmp_path / "run", groups)
    [(_, model, failed, total)] = report.backend_errors
    assert model == "test:every-third-fails" and 0 < failed < total == 12
    for table in bias_tables(report):
        assert f"⚠ Backend errors — test:every-third-fails on handmade: {failed} of 12 items" \
            in table.to_text()


def test_the_exit_codes_are_documented_in_run_help() -> None:
    parser = build_parser()
    run = next(a for a in parser._subparsers._group_actions  # type: ignore[union-attr]
               if a.choices and "run" in a.choices).choices["run"]  # type: ignore[index]
    text = run.format_help()
    for line in ("exit status:", "0    success", "2    user error", "3    the run finished",
                 "130  interrupted"):
        assert line in text
