"""CFMM's figures: acc_b, acc_c and acc+ per category for each model."""

from __future__ import annotations

from collections.abc import Sequence

from whatifbench.report.figures import (
    FigureSpec,
    metric_block,
    metric_keys,
    per_run,
    slug,
)
from whatifbench.runner.results import RunResult


def cfmm_figures(runs: Sequence[RunResult]) -> list[FigureSpec]:
    cats = metric_keys(runs, "by_category")
    d = slug(runs[0].dataset)
    return [per_run(runs, f"cfmm-{d}-accuracy-by-category",
                     f"{runs[0].dataset}: accuracy by category", "accuracy (%)", cats,
                     (("acc_b", "acc_b"), ("acc_c", "acc_c"), ("acc+", "acc_plus")),
                     metric_block("by_category"))]
