"""Estimates made visible in every table and the explorer, whatever the suite: a run of
``whatif run --budget`` is labelled ``[estimate: N of M items]`` wherever its label appears
(``report.labels``), ranked by its estimated full score (``report.overview``), and
``mark_estimates`` adds an ``estimated full score`` column and a note to every table of runs.
The suites' own table code stays unaware of it (the spec is read by ``spec``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from whatifbench.core.records.spec import EstimateRef
from whatifbench.core.table import Cell, Table
from whatifbench.report.labels import model_name, run_labels
from whatifbench.runner.results import RunResult

COLUMN = "estimated full score"


def note(runs: Sequence[RunResult]) -> str | None:
    """The sentence under a table that shows estimated runs."""
    found = [(r, e) for r in runs if (e := r.spec.estimate) is not None]
    if not found:
        return None
    parts = "; ".join(_one(r, e) for r, e in found)
    unit = found[0][1].scoring_unit or "units"
    return (f"⚠ Estimates — rows marked [estimate: N of M items] were evaluated on N items "
            f"drawn from the dataset; their other columns are over those items only. {COLUMN} "
            f"= the share of {unit} right over the whole suite, estimated from the draw with a "
            f"95 % interval that holds whatever the model: {parts}. See "
            "docs/item-quality.md for what it can and cannot say.")


def _one(run: RunResult, e: EstimateRef) -> str:
    """One estimated run's figures: value, interval, design and the bank's part in it."""
    low, high = e.interval if e.interval is not None else ("–", "–")
    value = "–" if e.value is None else e.value
    text = (f"{run.shown_name}: {value} % [{low}, {high}] from {e.items} of "
            f"{e.dataset_items} items ({e.method}"
            + (f", strata of bank {e.bank}" if e.method == "stratified" else "") + ")")
    se, random_se = e.details.get("se"), e.details.get("random_se")
    if isinstance(se, (int, float)) and isinstance(random_se, (int, float)) and random_se > 0:
        text += f", standard error {se} points (a random draw: {random_se})"
    if e.details.get("misfit") is True:
        text += (f"; it answers unlike the bank's runs at its ability (the bank's IRT model "
                 f"would say {e.details.get('bank_prediction')} %, more than two standard "
                 "errors away)")
    return text


def mark_estimates(table: Table, runs: Sequence[RunResult]) -> Table:
    """``table`` (built from ``runs``) with the estimate column and note when a run is an
    estimate; unchanged otherwise."""
    sentence = note(runs)
    if sentence is None:
        return table
    notes = (*table.notes, sentence)
    if not table.columns or table.columns[0] != "model" or COLUMN in table.columns:
        return dataclasses.replace(table, notes=notes)
    labels = run_labels(runs)
    cells: list[str | Cell] = []
    for row in table.rows:
        owner = next((r for r, label in zip(runs, labels, strict=True) if row[0] == label),
                     None)
        if owner is None:  # a table's own row label: the model's name and more
            owners = [r for r in runs if isinstance(row[0], str) and any(
                row[0] == n or row[0].startswith(f"{n} ") for n in (model_name(r), r.model))]
            owner = owners[0] if len({id(r) for r in owners}) == 1 else None
        found = owner.spec.estimate if owner is not None else None
        cells.append(Cell(found.value, ci=found.interval) if found is not None else "–")
    groups = (*table.groups, ("", 1)) if table.groups else ()
    return dataclasses.replace(
        table, columns=(*table.columns, COLUMN),
        rows=tuple((*row, cell) for row, cell in zip(table.rows, cells, strict=True)),
        groups=groups, notes=notes)
