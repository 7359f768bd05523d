"""Collect each suite's tables for a set of runs and write results, samples and reports."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from whatifbench.core.fsutil import dumps, ensure_dir, write_text_atomic
from whatifbench.report.html import render_html
from whatifbench.report.programs import program_failure_table
from whatifbench.report.table import Table
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.results import RunResult


def tables_for(runs: Sequence[RunResult]) -> list[Table]:
    """Each suite's tables over its runs (suites and runs in first-seen order)."""
    by_key: dict[tuple[str, str], list[RunResult]] = {}
    for run in runs:
        by_key.setdefault((run.suite, run.dataset), []).append(run)
    tables: list[Table] = []
    for (suite, _dataset), group in by_key.items():
        tables += get_suite(suite).tables(group)
        tables += program_failure_table(group)
    return tables


def results_json(runs: Sequence[RunResult]) -> str:
    """The text of ``results.json``: ``{"runs": [...]}``."""
    return json.dumps({"runs": [r.to_json() for r in runs]}, indent=2, ensure_ascii=False) + "\n"


def write_outputs(out: Path, runs: Sequence[RunResult]) -> dict[str, Path]:
    """Write ``results.json``, ``samples.jsonl``, ``report.md`` and ``report.html`` into ``out``.

    Each file is written atomically; ``results.json`` is written last, so its presence means the
    set is complete.
    """
    ensure_dir(out)
    tables = tables_for(runs)
    paths = {name: out / name for name in
             ("samples.jsonl", "report.md", "report.html", "results.json")}
    lines = []
    for run in runs:
        for s in run.samples:
            lines.append(dumps({"dataset": run.dataset, "model": run.model, **s.to_json()}))
    write_text_atomic(paths["samples.jsonl"], "\n".join(lines) + "\n")
    md = "# whatifbench results\n\n" + "\n\n".join(t.to_markdown() for t in tables) + "\n"
    write_text_atomic(paths["report.md"], md)
    write_text_atomic(paths["report.html"], render_html(runs, tables))
    write_text_atomic(paths["results.json"], results_json(runs))
    return paths
