"""What MuCR's metrics hold (``results.json`` → ``runs[i].metrics``): C2E, E2C and Cue accuracy,
the Exp score (0–10) and its parts, overall and per category and style."""

from __future__ import annotations

from typing import Annotated

from whatifbench.core.records.metrics import Metrics
from whatifbench.core.records.schema import Range
from whatifbench.core.records.spec import Count, Percent

Scale10 = Annotated[float, Range(0, 10)]
"""A score on the judge's scale, 0 to 10."""


class MucrCore(Metrics, total=False):
    """The four metrics of a set of samples."""

    c2e: Percent | None
    e2c: Percent | None
    cue: Percent | None
    exp: Scale10 | None
    exp_parts: dict[str, Scale10 | None]
    exp_judged: bool
    exp_not_judged: str
    n: dict[str, Count]
    n_pairs: Count
    n_judge_failures: Count


class MucrMetrics(MucrCore, total=False):
    """MuCR's metrics."""

    by_category: dict[str, MucrCore]
    by_style: dict[str, MucrCore]
