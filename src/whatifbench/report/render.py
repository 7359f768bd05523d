"""Collect each suite's tables and figures for a set of runs and write results, samples, reports
and tables as data."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from whatifbench.core.fsutil import dumps, ensure_dir, write_text_atomic
from whatifbench.report.labels import run_labels, shown_together
from whatifbench.report.page import page_html
from whatifbench.report.payload import Options, Source, build_payload
from whatifbench.report.programs import program_failure_table
from whatifbench.report.sources import EXECUTION, execution_json, fresh
from whatifbench.report.table import Table
from whatifbench.report.table_export import to_csv, to_latex
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.results import RunResult

DEFAULT = Options()
TABLES = "tables"
"""Folder beside report.md with every table as CSV and LaTeX."""


def tables_for(runs: Sequence[RunResult]) -> list[Table]:
    """Each suite's tables over the runs of each dataset (in first-seen order)."""
    return [t for group in shown_together(runs) for t in dataset_tables(group)]


def dataset_tables(runs: Sequence[RunResult]) -> list[Table]:
    """The tables of the runs of one dataset: the suite's, then program outcomes (if any)."""
    return [*get_suite(runs[0].suite).tables(runs), *program_failure_table(runs)]


def runs_table(sources: Sequence[Source]) -> Table:
    """Which run folder each row came from."""
    rows = []
    for group in shown_together([s.run for s in sources]):
        labels = run_labels(group)
        for run, label in zip(group, labels, strict=True):
            src = next(s for s in sources if s.run is run)
            rows.append((label, run.suite, run.dataset, run.model,
                         src.folder or "(this run)"))
    return Table("Runs: where each row comes from", ("row", "suite", "dataset", "model spec",
                                                      "run folder"), tuple(rows))


def results_json(runs: Sequence[RunResult]) -> str:
    """The text of ``results.json``: ``{"runs": [...]}``."""
    return json.dumps({"runs": [r.to_json() for r in runs]}, indent=2, ensure_ascii=False) + "\n"


def samples_jsonl(runs: Sequence[RunResult]) -> str:
    """The text of ``samples.jsonl``: one line per sample, tagged with dataset and model."""
    lines = [dumps({"dataset": run.dataset, "model": run.model, **s.to_json()})
             for run in runs for s in run.samples]
    return "\n".join(lines) + "\n"


def _figure_entries(runs: list[RunResult]) -> list[dict[str, Any]]:
    from whatifbench.report.draw import svg
    from whatifbench.report.figures import figures_for

    out = []
    for spec in figures_for(runs):
        data = base64.b64encode(svg(spec).encode("utf-8")).decode("ascii")
        out.append({"name": spec.name, "title": spec.title,
                    "src": f"data:image/svg+xml;base64,{data}"})
    return out


def explorer_payload(sources: Sequence[Source], options: Options = DEFAULT) -> dict[str, Any]:
    """The explorer's data for these runs (tables and figures included)."""
    def per_dataset(runs: list[RunResult]) -> dict[str, Any]:
        tables = dataset_tables(runs)
        return {"tables": [t.to_json() for t in tables], "figures": _figure_entries(runs)}

    return build_payload(sources, per_dataset, options)


def report_html(sources: Sequence[Source], options: Options = DEFAULT) -> str:
    """The explorer page for these runs."""
    return page_html(explorer_payload(sources, options))


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())[:60]


def write_tables(out: Path, tables: Sequence[Table]) -> list[Path]:
    """Every table as ``tables/NN-title.csv`` and ``.tex``; older files there are removed."""
    folder = out / TABLES
    ensure_dir(folder)
    written = []
    for k, table in enumerate(tables, start=1):
        stem = f"{k:02d}-{_slug(table.title)}"
        for suffix, text in ((".csv", to_csv(table)), (".tex", to_latex(table))):
            path = folder / f"{stem}{suffix}"
            write_text_atomic(path, text)
            written.append(path)
    for old in folder.iterdir():
        if old.suffix in (".csv", ".tex") and old not in written:
            old.unlink()
    return written


def write_outputs(out: Path, runs: Sequence[RunResult], *,
                  sources: Sequence[Source] | None = None,
                  options: Options = DEFAULT) -> dict[str, Path]:
    """Write ``results.json``, ``samples.jsonl``, ``execution.json``, ``report.md``,
    ``report.html`` and ``tables/`` into ``out``.

    ``sources`` tell where loaded runs came from (default: evaluated here). Each file is
    written atomically; ``results.json`` is written last, so its presence means the set is
    complete.
    """
    ensure_dir(out)
    sources = list(sources) if sources is not None else fresh(runs)
    tables = tables_for(runs)
    paths = {name: out / name for name in
             ("samples.jsonl", EXECUTION, "report.md", "report.html", "results.json")}
    write_text_atomic(paths["samples.jsonl"], samples_jsonl(runs))
    write_text_atomic(paths[EXECUTION], execution_json(sources))
    md = "# whatifbench results\n\n" + "\n\n".join(
        t.to_markdown() for t in [*tables, runs_table(sources)]) + "\n"
    write_text_atomic(paths["report.md"], md)
    write_tables(out, tables)
    write_text_atomic(paths["report.html"], report_html(sources, options))
    write_text_atomic(paths["results.json"], results_json(runs))
    return paths
