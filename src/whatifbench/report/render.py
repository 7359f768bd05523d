"""Collect each suite's tables for a set of runs and write results, samples and reports."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from whatifbench.core.fsutil import dumps
from whatifbench.core.outputs import PathLike, staged_dir
from whatifbench.report.errors import mark_errors
from whatifbench.report.html import render_html
from whatifbench.report.programs import program_failure_table
from whatifbench.report.table import Table
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.results import RunResult, new_run_id
from whatifbench.secrets import redact


def tables_for(runs: Sequence[RunResult]) -> list[Table]:
    """Each suite's tables over its runs (suites and runs in first-seen order), with backend
    errors marked in each (``report.errors``)."""
    by_key: dict[tuple[str, str], list[RunResult]] = {}
    for run in runs:
        by_key.setdefault((run.suite, run.dataset), []).append(run)
    tables: list[Table] = []
    for (suite, _dataset), group in by_key.items():
        tables += [mark_errors(t, group) for t in
                   (*get_suite(suite).tables(group), *program_failure_table(group))]
    return tables


def results_json(runs: Sequence[RunResult], run_id: str | None = None) -> str:
    """The text of ``results.json``: ``{"run_id": ..., "runs": [...]}``."""
    head = {"run_id": run_id} if run_id is not None else {}
    return json.dumps({**head, "runs": [r.to_json() for r in runs]}, indent=2,
                      ensure_ascii=False) + "\n"


def write_outputs(out: Path, runs: Sequence[RunResult], overwrite: bool = False,
                  inputs: Iterable[PathLike] = ()) -> dict[str, Path]:
    """Write ``results.json``, ``samples.jsonl``, ``report.md`` and ``report.html`` as one unit.

    The files are written into a staging folder that becomes ``out`` in one rename
    (``core.outputs.staged_dir``): ``out`` must be new (or empty) unless ``overwrite``, which
    replaces only a run folder we wrote. A fresh ``run_id`` goes into ``results.json`` and every
    ``samples.jsonl`` line, so readers can tell that the two belong together. ``inputs`` (the
    datasets, run folders read) must not be touched by ``out``. Every text passes ``secrets.redact``
    (a key a server echoed never lands in an output).
    """
    tables = tables_for(runs)
    run_id = new_run_id()
    names = ("samples.jsonl", "report.md", "report.html", "results.json")
    lines = []
    for run in runs:
        for s in run.samples:
            lines.append(dumps({"run_id": run_id, "dataset": run.dataset, "model": run.model,
                                **s.to_json()}))
    md = "# whatifbench results\n\n" + "\n\n".join(t.to_markdown() for t in tables) + "\n"
    with staged_dir(out, overwrite, inputs, kind="run") as stage:
        (stage / "samples.jsonl").write_text(redact("\n".join(lines) + "\n"), encoding="utf-8")
        (stage / "report.md").write_text(redact(md), encoding="utf-8")
        (stage / "report.html").write_text(redact(render_html(runs, tables)), encoding="utf-8")
        (stage / "results.json").write_text(redact(results_json(runs, run_id)), encoding="utf-8")
    return {name: Path(out) / name for name in names}
