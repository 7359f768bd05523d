"""What CFMM's metrics hold (``results.json`` → ``runs[i].metrics``): acc_b, acc_c, acc+ and
the drop over all pairs and per category, the total scores (Table 3) and Observation 1's
counts."""

from __future__ import annotations

from whatifbench.core.records.metrics import (
    Correlation,
    Interval,
    Metrics,
    NonNegative,
    PairedMetrics,
)
from whatifbench.core.records.spec import Count, Percent


class CfmmPaired(PairedMetrics, total=False):
    """Accuracy on basic and counterfactual questions, both right (acc+), the drop, phi."""

    acc_b: Percent | None
    acc_c: Percent | None
    acc_plus: Percent | None
    phi: Correlation | None


class CfmmTotal(Metrics, total=False):
    """Table 3: the categories' scores summed (0 to 100 × categories)."""

    acc_b: NonNegative | None
    acc_c: NonNegative | None
    acc_plus: NonNegative | None
    categories: Count
    max: Count
    ci95: dict[str, Interval | None]


class CfmmMetrics(Metrics, CfmmPaired, total=False):
    """CFMM's metrics."""

    by_category: dict[str, CfmmPaired]
    total: CfmmTotal
    cf_errors_chose_basic: Percent | None
    n_cf_errors_considered: Count
    n_cf_errors_two_options: Count
    n_cf_errors_basic_not_offered: Count
    cf_questions: dict[str, Count]
