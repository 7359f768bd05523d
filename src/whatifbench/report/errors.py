"""Backend errors made visible in every results table, whatever the suite.

A run whose calls failed must never show bare accuracies: ``mark_errors`` adds a
``backend errors`` column (items of the row's run that ended in a backend error) to every table
whose rows are models, and a note under every table naming each affected run and what the
errors mean. The suites' own table code stays unaware of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from whatifbench.core.table import Table
from whatifbench.report.labels import model_name, run_labels
from whatifbench.runner.results import RunResult

COLUMN = "backend errors"
UNCLEAR = "see note"
"""Cell of a row that stands for several runs of one model with different error counts."""


def mark_errors(table: Table, runs: Sequence[RunResult]) -> Table:
    """``table`` (built from ``runs``) with the errors column and note when any run has errors;
    unchanged otherwise."""
    if not any(r.n_errors for r in runs):
        return table
    notes = (*table.notes, error_note(runs))
    if not table.columns or table.columns[0] != "model" or COLUMN in table.columns:
        return dataclasses.replace(table, notes=notes)
    cells = _cells(table, runs)
    groups = (*table.groups, ("", 1)) if table.groups else ()
    return dataclasses.replace(
        table, columns=(*table.columns, COLUMN),
        rows=tuple((*row, cell) for row, cell in zip(table.rows, cells, strict=True)),
        groups=groups, notes=notes)


def _belongs(cell: object, run: RunResult, label: str) -> bool:
    """The row (named by ``cell``) shows ``run``: its label (``report.labels``), or its
    display name or spec followed by more (a table's own label)."""
    if not isinstance(cell, str):
        return False
    return cell == label or any(cell == name or cell.startswith(f"{name} ")
                                for name in (model_name(run), run.model))


def _cells(table: Table, runs: Sequence[RunResult]) -> list[str]:
    """Each row's error count: rows in run order, one per run, map one to one. Otherwise (a
    breakdown with several rows per run) a row shows its run's total as ``N in run`` (or
    ``see note`` when its model has several runs with different counts)."""
    labels = run_labels(runs)
    if len(table.rows) == len(runs) and all(
            _belongs(row[0], run, label)
            for row, run, label in zip(table.rows, runs, labels, strict=True)):
        return [str(run.n_errors) for run in runs]
    by_label = dict(zip(labels, runs, strict=True))
    cells = []
    for row in table.rows:
        exact = by_label.get(row[0]) if isinstance(row[0], str) else None
        counts = ({exact.n_errors} if exact is not None else
                  {r.n_errors for r, label in zip(runs, labels, strict=True)
                   if _belongs(row[0], r, label)})
        if len(counts) != 1:
            cells.append(UNCLEAR if counts else "–")
        else:
            count = counts.pop()
            cells.append(f"{count} in run" if count else "0")
    return cells


def error_note(runs: Sequence[RunResult]) -> str:
    """One sentence naming each run with errors, e.g. ``openai:gpt-4o: 12 of 300 items``."""
    return errors_sentence([f"{label}: {r.n_errors} of {r.n_items} items"
                            for r, label in zip(runs, run_labels(runs), strict=True)
                            if r.n_errors])


def errors_sentence(parts: Sequence[str]) -> str:
    """The note under a table whose runs had errors; ``parts`` name each run and its count."""
    return (f"⚠ Backend errors — {'; '.join(parts)} got no answer (the model's or the judge's "
            "call failed after all retries). They are counted wrong in every figure above; run "
            "the same command again to retry exactly those items.")
