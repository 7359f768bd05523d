"""The conformance matrix: every capability on every registered suite, the suites taken from the
registry (so a new suite is covered without editing this file), plus a toy suite defined in
tests/toy_suite.py with the public API only.

Each suite's small dataset comes from the suite itself (``Suite.example``). Capabilities: a run
with the built-in models; a chance row in every table of runs; a blind row after an audit in
every such table; ablated runs labelled, with their multimodal gain; a human sheet giving one row
per annotator and the majority, with Krippendorff's alpha; a partial sheet giving "–" (null),
never 0, over what it did not answer; the explorer rendering in Chromium; every export that
applies round-tripping; the inspect task reporting the suite's own metrics.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import toy_suite  # noqa: F401  (registers the toy suite and the test:pixels backend)
from browser_util import needs_chromium, open_page

from whatifbench import api
from whatifbench.answers.letters import letter_for
from whatifbench.cli.main import main
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import listing, lookup
from whatifbench.core.suite import suite_for
from whatifbench.errors import WhatifError
from whatifbench.human.api import import_sheet
from whatifbench.report.reference import BLIND, CHANCE
from whatifbench.report.render import tables_for
from whatifbench.report.table import Cell, Table
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.results import RunResult, load_runs

SUITES = [entry.name for entry in listing("suite")]
"""Every registered suite (the toy included: it registered when this module imported it)."""
ANNOTATORS = ("ada", "bo", "cy")


@dataclass
class World:
    """What the matrix built for one suite (once per module)."""

    root: Path
    dataset: Dataset
    runs: list[RunResult] = field(default_factory=list)


_WORLDS: dict[str, World] = {}


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, World]:
    """Built lazily per suite: its example dataset and the built-in models' runs."""
    _WORLDS.clear()
    _WORLDS["__root__"] = World(tmp_path_factory.mktemp("conformance"), None)  # type: ignore[arg-type]
    return _WORLDS


def world(worlds: dict[str, World], name: str) -> World:
    """The suite's dataset (``Suite.example``) and the default models' runs on it."""
    if name not in worlds:
        root = worlds["__root__"].root / name
        suite_for(name).example(root / "data", seed=0)
        dataset = load_dataset(root / "data", verify=True)
        runs = api.run_all([dataset], list(api.DEFAULT_MODELS), defaults=True,
                           options=RunOptions(progress=False))
        worlds[name] = World(root, dataset, runs)
    return worlds[name]


def runs_tables(tables: list[Table]) -> list[Table]:
    """The tables with a row per run that hold numbers (the ones reference rows go to)."""
    return [t for t in tables if t.columns[:1] == ("model",)
            and any(isinstance(c, Cell) for row in t.rows for c in row)]


def labels(table: Table) -> list[str]:
    return [str(row[0]) for row in table.rows]


# -- 1. a run with the built-in models ---------------------------------------------------------
@pytest.mark.parametrize("name", SUITES)
def test_the_built_in_models_run(name: str, worlds: dict[str, World], tmp_path: Path) -> None:
    w = world(worlds, name)
    assert {r.model for r in w.runs} >= {"builtin:random", "builtin:constant"}
    suite = suite_for(name)
    for run in w.runs:
        assert len(run.samples) == len(w.dataset.items)
        assert suite.headline(run.metrics).value is not None
    api.write_outputs(tmp_path / "out", w.runs)
    back = load_runs(tmp_path / "out")
    assert [r.metrics for r in back] == [json.loads(json.dumps(r.metrics)) for r in w.runs]


# -- 2. the chance row -----------------------------------------------------------------------
@pytest.mark.parametrize("name", SUITES)
def test_every_table_of_runs_has_a_chance_row(name: str, worlds: dict[str, World]) -> None:
    w = world(worlds, name)
    tables = runs_tables(tables_for(w.runs))
    assert tables
    for table in tables:
        assert CHANCE in labels(table), (table.title, table.notes)
        assert not any("No chance row" in note for note in table.notes)


# -- 3. the blind row after an audit -------------------------------------------------------------
@pytest.mark.parametrize("name", SUITES)
def test_every_table_of_runs_has_a_blind_row_after_an_audit(
        name: str, worlds: dict[str, World], capsys: pytest.CaptureFixture[str]) -> None:
    w = world(worlds, name)
    before = runs_tables(tables_for(w.runs))
    assert all(BLIND not in labels(t) for t in before)
    assert all(any("whatif audit" in note for note in t.notes) for t in before)
    assert main(["audit", str(w.dataset.root)]) == 0, capsys.readouterr().err
    for table in runs_tables(tables_for(w.runs)):
        assert BLIND in labels(table), (table.title, table.notes)


# -- 4. ablated runs ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", SUITES)
def test_ablated_runs_are_labelled_and_give_a_gain(name: str, worlds: dict[str, World]) -> None:
    w = world(worlds, name)
    full = api.run_all([w.dataset], ["test:pixels"], options=RunOptions(progress=False))
    blank = api.run_all([w.dataset], ["test:pixels"],
                        options=RunOptions(progress=False, image_ablation="blank"))
    tables = tables_for([*full, *blank])
    shown = [label for t in runs_tables(tables) for label in labels(t)]
    assert any("blank" in label for label in shown), shown
    assert any(t.title.startswith("Multimodal gain") for t in tables)
    with pytest.raises(WhatifError, match="No model is left to run"):
        api.run_all([w.dataset], list(api.DEFAULT_MODELS), defaults=True,
                    options=RunOptions(progress=False, image_ablation="none"))


# -- 5 and 6. people ---------------------------------------------------------------------------
def answer_for(item: Item, annotator: str) -> str:
    """A reply the suite's parser reads: right for about 85 % of (item, annotator)."""
    h = int(hashlib.sha256(f"{annotator}:{item.id}".encode()).hexdigest(), 16)
    right = h % 100 < 85
    if item.kind == "choice":
        index = item.target_index if right else (item.target_index + 1) % len(item.choices)
        return letter_for(index)
    if item.kind == "yes-no":
        return item.target if right else ("no" if item.target == "yes" else "yes")
    if item.kind == "number":
        return item.target if right else str(int(float(item.target)) + 1)
    return "The cause made it happen, so the effect followed."


def write_sheet(path: Path, items: list[Item]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item_id", "annotator", "answer", "seconds"])
        for annotator in ANNOTATORS:
            for item in items:
                writer.writerow([item.id, annotator, answer_for(item, annotator), "4.5"])
    return path


@pytest.mark.parametrize("name", SUITES)
def test_a_sheet_gives_annotator_and_majority_rows_with_alpha(
        name: str, worlds: dict[str, World], tmp_path: Path) -> None:
    w = world(worlds, name)
    sheet = write_sheet(tmp_path / "sheet.csv", w.dataset.items)
    done = import_sheet(w.dataset, sheet, tmp_path / "people")
    assert len(done.runs) == len(ANNOTATORS) + 1
    tables = tables_for([*w.runs, *done.runs])
    baseline = next(t for t in tables if t.title.startswith("Human baseline"))
    assert len(baseline.rows) == len(ANNOTATORS) + 1
    assert any(isinstance(c, Cell) and c.value is not None for row in baseline.rows for c in row)
    agreement = next(t for t in tables if t.title.startswith("Agreement between annotators"))
    alphas = [c for c in agreement.rows[0][1:] if c not in ("–", "")]
    assert alphas and all(-1.0 <= float(a) <= 1.0 for a in alphas[1::2])


def first_half(dataset: Dataset) -> list[Item]:
    """What a partial sheet answers: the first question of each pair (the original or basic
    one) of a paired suite, else the items of the first group only."""
    roles = suite_for(dataset.suite).pair_roles
    if roles is not None:
        return [i for i in dataset.items if i.role != roles[1]]
    first = next(i.group for i in dataset.items if i.kind != "text")  # a group people can
    return [i for i in dataset.items if i.group == first]  # answer without a judge


@pytest.mark.parametrize("name", SUITES)
def test_a_partial_sheet_shows_nothing_as_a_dash_never_zero(
        name: str, worlds: dict[str, World], tmp_path: Path) -> None:
    w = world(worlds, name)
    answered = first_half(w.dataset)
    assert 0 < len(answered) < len(w.dataset.items)
    sheet = write_sheet(tmp_path / "sheet.csv", answered)
    done = import_sheet(w.dataset, sheet, tmp_path / "people")
    results = json.loads((tmp_path / "people" / "results.json").read_text())
    cells = [c for t in tables_for(done.runs) for row in t.rows for c in row
             if isinstance(c, Cell)]
    empty = [c for c in cells if c.n == 0]
    assert all(c.value is None and c.render() == "–" for c in empty)
    text = (tmp_path / "people" / "report.md").read_text()
    assert "–" in text
    if suite_for(name).pair_roles is not None:
        for run in results["runs"]:
            assert run["metrics"]["n_pairs"] == 0
            assert suite_for(name).headline(run["metrics"]).value is None


# -- 7. exports ----------------------------------------------------------------------------------
def essence(items: list[Item]) -> list[tuple[Any, ...]]:
    """What an export must keep of each item, in a comparable order."""
    return sorted((i.question, i.kind, tuple(i.choices), i.target, i.role, i.group)
                  for i in items)


@pytest.mark.parametrize("name", SUITES)
def test_every_export_that_applies_round_trips(name: str, worlds: dict[str, World],
                                                tmp_path: Path) -> None:
    w = world(worlds, name)
    tried = []
    for listed in listing("exporter"):
        exporter = lookup("exporter", listed.name).obj
        if exporter.suites is not None and name not in exporter.suites:
            continue
        out = tmp_path / listed.name / ("export.tsv" if listed.name == "vlmevalkit"
                                        else "export.jsonl" if listed.name.endswith("jsonl")
                                        else "export.csv" if listed.name == "cfmm-csv"
                                        else "export")
        out.parent.mkdir()
        code = main(["export", str(w.dataset.root), "--format", listed.name, "--out", str(out)])
        if code != 0:  # refused with a reason (VLMEvalKit's TSV holds multiple choice only)
            assert exporter.suites is None and any(i.kind != "choice" for i in w.dataset.items)
            continue
        back = exporter.read_back(out, w.dataset, tmp_path / listed.name / "back")
        kept = [i for i in w.dataset.items if listed.name != "vlmevalkit" or i.kind == "choice"]
        assert essence(back) == essence(kept), listed.name
        tried.append(listed.name)
    assert {"hf", "lmms-eval"} <= set(tried)


# -- 8. inspect --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SUITES)
def test_the_inspect_task_reports_the_suite_metrics(name: str, worlds: dict[str, World],
                                                    tmp_path: Path) -> None:
    inspect_ai = pytest.importorskip("inspect_ai")
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from whatifbench.integrations.inspect.tasks import task_for

    w = world(worlds, name)
    def reply(*_: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content="A")
        output.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return output  # usage given: inspect counts no tokens (that would need the network)

    model = get_model("mockllm/model", custom_outputs=reply)
    (log,) = inspect_ai.eval(task_for(name)(dataset=str(w.dataset.root)), model=model,
                             log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    reported = set(log.results.scores[0].metrics)
    assert reported == set(suite_for(name).reported_metrics(w.dataset.items))


# -- 9. the explorer (last: Playwright keeps a loop on the main thread until the module ends)
@needs_chromium
@pytest.mark.parametrize("name", SUITES)
def test_the_explorer_renders(name: str, worlds: dict[str, World], page: Any,
                              tmp_path: Path) -> None:
    w = world(worlds, name)
    api.write_outputs(tmp_path / "out", w.runs)
    open_page(page, (tmp_path / "out" / "report.html").as_uri())
    assert page.locator("table.results").count() >= 1
    assert page.locator("table.results tbody tr.ref").count() >= 1  # the chance row
    body = page.inner_text("main")
    assert "builtin:random" in body
    page.click("nav button[data-view=figures]")
    assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
    assert page.problems == []
