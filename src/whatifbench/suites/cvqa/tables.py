"""The C-VQA results table: rows = models, columns = group × original / counterfactual (drop)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from whatifbench.report.programs import by_code_llm
from whatifbench.report.table import Table, fmt, fmt_drop
from whatifbench.runner.results import RunResult


def paired_table(runs: Sequence[RunResult], title: str, groups: Sequence[str],
                 labels: dict[str, str] | None = None) -> Table:
    """One row per run; for each group (and overall) original, counterfactual (drop); then
    pair accuracy and unparsed share over all items."""
    labels = labels or {}
    columns: list[str] = ["model"]
    spans: list[tuple[str, int]] = [("", 1)]
    for g in [*groups, "all"]:
        columns += ["orig", "cf (drop)"]
        spans.append((labels.get(g, g), 2))
    columns += ["pair acc", "unparsed %"]
    spans.append(("", 2))
    rows = []
    for run in runs:
        m = run.metrics
        row = [run.model]
        for g in groups:
            gm = m.get("by_group", {}).get(g)
            if gm is None:
                row += ["–", "–"]
            else:
                row += [fmt(gm["original_accuracy"]),
                        f"{fmt(gm['counterfactual_accuracy'])} {fmt_drop(gm['drop'])}"]
        row += [fmt(m["original_accuracy"]),
                f"{fmt(m['counterfactual_accuracy'])} {fmt_drop(m['drop'])}",
                fmt(m["pair_accuracy"]), fmt(m["unparsed"])]
        rows.append(tuple(row))
    notes: tuple[str, ...] = ()
    if runs:
        n = runs[0].metrics.get("n_pairs")
        note = (f"Accuracy in %, {n} pairs; drop = original − counterfactual. "
                "95% bootstrap intervals and McNemar p-values are in results.json.")
        notes = (note,)
    return Table(title, tuple(columns), tuple(rows), tuple(spans), notes)


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
