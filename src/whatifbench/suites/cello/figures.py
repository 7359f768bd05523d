"""CELLO's figures: accuracy by rung, task type and graph type, and the kind of option chosen
when wrong."""

from __future__ import annotations

from collections.abc import Sequence

from whatifbench.metrics.stats import wilson_ci
from whatifbench.report.figures import (
    FigureSpec,
    Interval,
    accuracy_cell,
    metric_keys,
    per_model,
    slug,
)
from whatifbench.runner.results import RunResult


def cello_figures(runs: Sequence[RunResult]) -> list[FigureSpec]:
    d = slug(runs[0].dataset)
    out = []
    for field, kind in (("by_rung", "rung"), ("by_task_type", "task type"),
                        ("by_graph_type", "graph type")):
        keys = metric_keys(runs, field)
        if keys:
            out.append(per_model(
                runs, f"cello-{d}-accuracy-by-{slug(kind)}",
                f"{runs[0].dataset}: accuracy by {kind} (95% Wilson intervals)", "accuracy (%)",
                keys, keys, accuracy_cell(field)))
    first = next((r for r in runs if "distractor_errors" in r.metrics), None)
    if first is not None:
        kinds = list(first.metrics["distractor_errors"].get("by_kind", {}))

        def share(r: RunResult, k: str) -> tuple[float | None, Interval]:
            block = r.metrics.get("distractor_errors", {})
            entry = block.get("by_kind", {}).get(k)
            if not entry:
                return None, None
            n = int(block.get("n_errors", 0))
            return entry["share_of_errors"], wilson_ci(int(entry["count"]), n) if n else None

        out.append(per_model(runs, f"cello-{d}-distractor-errors",
                              f"{runs[0].dataset}: kind of option chosen when wrong",
                              "% of multiple-choice errors", kinds, kinds, share))
    return out
