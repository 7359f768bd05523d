"""The C-VQA results table: rows = models, columns = group × original / counterfactual (Δ)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from whatifbench.core.table import DELTA_NOTE, Cell, Table, fmt, interval, negated
from whatifbench.metrics.intervals import SHARES_NOTE
from whatifbench.report.labels import labeller
from whatifbench.report.programs import by_code_llm
from whatifbench.runner.results import RunResult

SIGNIFICANCE_NOTE = "* = exact McNemar p < 0.05."


def paired_cells(m: dict[str, Any], names: tuple[str, str] = ("original_accuracy",
                                                                "counterfactual_accuracy"),
                 digits: int = 1) -> tuple[Cell, Cell]:
    """The original and the counterfactual cell (with Δ = cf − orig) of paired metrics."""
    ci = m.get("ci95", {})
    n = m.get("n_pairs")
    per_role = list((m.get("n_by_role") or {}).values())  # the items of each role
    first = Cell(m.get(names[0]), digits, interval(ci.get(names[0])),
                 per_role[0] if len(per_role) == 2 else n)
    second = Cell(m.get(names[1]), digits, interval(ci.get(names[1])),
                  per_role[1] if len(per_role) == 2 else n,
                  None if m.get("drop") is None else -m["drop"],
                  negated(interval(ci.get("drop"))), m.get("drop_mcnemar_p"))
    return first, second


def paired_table(runs: Sequence[RunResult], title: str, groups: Sequence[str],
                 labels: dict[str, str] | None = None) -> Table:
    """One row per run; for each group (and overall) original, counterfactual (Δ); then
    pair accuracy and unparsed share over all items."""
    labels = labels or {}
    label = labeller(runs)
    columns: list[str] = ["model"]
    spans: list[tuple[str, int]] = [("", 1)]
    for g in [*groups, "all"]:
        columns += ["orig", "cf (Δ)"]
        spans.append((labels.get(g, g), 2))
    columns += ["pair acc", "unparsed %"]
    spans.append(("", 2))
    rows = []
    for run in runs:
        m = run.metrics
        row: list[str | Cell] = [label(run)]
        for g in groups:
            gm = m.get("by_group", {}).get(g)
            row += ["–", "–"] if gm is None else list(paired_cells(gm))
        ci = m.get("ci95", {})
        row += [*paired_cells(m),
                Cell(m["pair_accuracy"], ci=interval(ci.get("pair_accuracy")), n=m.get("n_pairs")),
                fmt(m["unparsed"])]
        rows.append(tuple(row))
    notes = ((f"Accuracy in %. {DELTA_NOTE} pair acc = pairs with both questions (original "
              f"and counterfactual) answered right. {SIGNIFICANCE_NOTE} {SHARES_NOTE} (± in "
              "report.md and report.html)."),)
    return Table(title, tuple(columns), tuple(rows), tuple(spans), notes, unit="pairs")


def code_llm_tables(runs: Sequence[RunResult], title: str, groups: Sequence[str],
                    labels: dict[str, str] | None = None) -> list[Table]:
    """C-VQA Table 6 layout: the runs of each program backend (ViperGPT, VisProg), one row per
    code LLM (tools, prompts and questions fixed), columns as ``paired_table``."""
    out = []
    for name, relabelled in by_code_llm(runs):
        table = paired_table(relabelled, f"{title}: {name} with different code LLMs "
                             "(Table 6 layout)", groups, labels)
        out.append(replace(table, columns=("code LLM", *table.columns[1:])))
    return out
