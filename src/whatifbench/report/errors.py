"""Backend errors made visible in every results table, whatever the suite.

A run whose calls failed must never show bare accuracies: ``mark_errors`` adds a
``backend errors`` column (items of the row's run that ended in a backend error) to every table
whose rows are models, and a note under every table naming each affected run and what the
errors mean. The suites' own table code stays unaware of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from whatifbench.report.table import Table
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


def _belongs(cell: str, run: RunResult) -> bool:
    return cell == run.model or cell.startswith(f"{run.model} ")


def _cells(table: Table, runs: Sequence[RunResult]) -> list[str]:
    """Each row's error count: rows in run order, one per run, map one to one. Otherwise (a
    breakdown with several rows per run) a row shows its run's total as ``N in run`` (or
    ``see note`` when its model has several runs with different counts)."""
    if len(table.rows) == len(runs) and all(
            _belongs(row[0], run) for row, run in zip(table.rows, runs, strict=True)):
        return [str(run.n_errors) for run in runs]
    cells = []
    for row in table.rows:
        counts = {r.n_errors for r in runs if _belongs(row[0], r)}
        if len(counts) != 1:
            cells.append(UNCLEAR if counts else "–")
        else:
            count = counts.pop()
            cells.append(f"{count} in run" if count else "0")
    return cells


def error_note(runs: Sequence[RunResult]) -> str:
    """One sentence naming each run with errors, e.g. ``openai:gpt-4o: 12 of 300 items``."""
    return errors_sentence([f"{run_label(r, runs)}: {r.n_errors} of {r.n_items} items"
                            for r in runs if r.n_errors])


def errors_sentence(parts: Sequence[str]) -> str:
    """The note under a table whose runs had errors; ``parts`` name each run and its count."""
    return (f"⚠ Backend errors — {'; '.join(parts)} got no answer (the model's or the judge's "
            "call failed after all retries). They are counted wrong in every figure above; run "
            "the same command again to retry exactly those items.")


def run_label(run: RunResult, runs: Sequence[RunResult]) -> str:
    """The model spec, plus the protocol settings in which the runs of that model differ."""
    same = [r for r in runs if r.model == run.model]
    if len(same) < 2:
        return run.model
    protocol = _protocol(run)
    keys = sorted(k for k in protocol if len({repr(_protocol(r).get(k)) for r in same}) > 1)
    shown = ", ".join(f"{k} {protocol[k]}" for k in keys)
    return f"{run.model} [{shown}]" if shown else run.model


def _protocol(run: RunResult) -> dict[str, Any]:
    protocol = run.spec.get("protocol")
    return protocol if isinstance(protocol, dict) else {}
