"""MuCR's figures: C2E, E2C and Cue accuracy per model, by category and by style."""

from __future__ import annotations

from collections.abc import Sequence

from whatifbench.core.table import interval
from whatifbench.report.figures import (
    FigureSpec,
    metric_block,
    metric_keys,
    per_model,
    per_run,
    slug,
)
from whatifbench.runner.results import RunResult


def mucr_figures(runs: Sequence[RunResult]) -> list[FigureSpec]:
    d = slug(runs[0].dataset)
    metrics = (("C2E", "c2e"), ("E2C", "e2c"), ("Cue", "cue"))
    out = [per_model(runs, f"mucr-{d}-accuracy-by-metric",
                      f"{runs[0].dataset}: accuracy by metric (Exp is scored 0–10, see tables)",
                      "accuracy (%)", [k for _, k in metrics], [s for s, _ in metrics],
                      lambda r, k: (r.metrics.get(k), interval(r.metrics.get("ci95", {}).get(k))))]
    for field, kind in (("by_category", "category"), ("by_style", "style")):
        values = metric_keys(runs, field)
        if values:
            out.append(per_run(runs, f"mucr-{d}-accuracy-by-{kind}",
                                f"{runs[0].dataset}: accuracy by {kind}", "accuracy (%)",
                                values, metrics, metric_block(field)))
    return out
