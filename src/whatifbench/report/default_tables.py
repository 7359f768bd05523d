"""The tables of a suite that declares none: one row per run, one column per metric other tools
report (``SuiteFacts.reported_metrics``, by default the paired metrics of a paired suite, then
accuracy and the unparsed share), each a cell with its 95 % interval and count when the metrics
hold them. ``suite_tables`` is how every report asks a suite for its tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.facts import ACCURACY, PAIRED_METRICS
from whatifbench.core.records.run import RunResult
from whatifbench.core.table import Cell, Table
from whatifbench.report.labels import labeller

NAMES = {"original_accuracy": "orig", "counterfactual_accuracy": "cf", "drop": "drop",
         "pair_accuracy": "pair acc", ACCURACY: "accuracy", "unparsed": "unparsed %"}
"""Column names of the shared metrics (others are shown by their key)."""


def suite_tables(suite: Any, runs: Sequence[RunResult]) -> list[Table]:
    """The suite's own tables of ``runs``, or the default ones when it declares none (its
    ``tables`` returns ``None``)."""
    found = suite.tables(runs)
    return list(found) if found is not None else default_tables(suite, runs)


def default_tables(suite: Any, runs: Sequence[RunResult]) -> list[Table]:
    """One table: a row per run, a column per reported metric present in the runs."""
    if not runs:
        return []
    facts = suite.facts
    wanted = facts.reported_metrics or (
        (*(PAIRED_METRICS if facts.pair_roles else ()), ACCURACY, "unparsed"))
    keys = [k for k in wanted if any(k in r.metrics for r in runs)]
    label = labeller(runs)
    rows: list[tuple[str | Cell, ...]] = []
    for run in runs:
        m = run.metrics
        ci = m.get("ci95") or {}
        n = m.get("n_pairs") if facts.pair_roles else m.get("n_items")
        rows.append((label(run), *(Cell(_number(m.get(k)), ci=_pair(ci.get(k)),
                                        n=n if isinstance(n, int) else None) for k in keys)))
    return [Table(f"{suite.name}: {runs[0].dataset}", ("model", *(NAMES.get(k, k) for k in keys)),
                  tuple(rows), unit="pairs" if facts.pair_roles else "items",
                  notes=((f"{facts.headline_name} ranks the models; 95% intervals where the "
                          "metrics hold them (docs/statistics.md)."),))]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _pair(value: Any) -> tuple[float, float] | None:
    return (float(value[0]), float(value[1])) if isinstance(value, (list, tuple)) \
        and len(value) == 2 else None
