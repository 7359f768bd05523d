"""Honest statistics: shares, Wilson intervals, the exact McNemar test, phi, Holm (the other
intervals live in ``metrics.intervals``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from whatifbench.metrics import intervals


def percent(hits: int, total: int) -> float | None:
    """``100 * hits / total`` rounded to 2 decimals; ``None`` for an empty total (a share of
    nothing is no number, never 0)."""
    return round(100.0 * hits / total, 2) if total else None


def wilson_ci(hits: int, total: int) -> tuple[float, float]:
    """Wilson score 95 % interval of a proportion, in percent (``(0.0, 0.0)`` over nothing:
    callers check the total; ``metrics.intervals.share`` gives ``None`` instead)."""
    if total <= 0:
        return (0.0, 0.0)
    low, high = intervals.wilson(hits, total)
    return (round(100 * low, 2), round(100 * high, 2))


def wilson_of_percent(percent: float, total: int) -> tuple[float, float]:
    """``wilson_ci`` of a share recorded as a percentage of ``total`` (hits recovered by
    rounding)."""
    return wilson_ci(round(percent * total / 100), total)


EXACT_INTEGERS = 200
"""Up to this many discordant items the McNemar tail is summed in integers; above, in floats
from its largest term (integers grow with the count: a report's comparisons ask for many)."""


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided exact McNemar p-value from the two discordant counts: the exact binomial test
    of ``only_first`` successes in ``only_first + only_second`` trials at p = 0.5 (the value of
    ``scipy.stats.binomtest``), computed without scipy: in integers for small counts, else as
    the largest tail term (from ``lgamma``) times the sum of the others' ratios to it."""
    n = only_first + only_second
    if n == 0 or only_first == only_second:
        return 1.0
    m = min(only_first, only_second)
    if n <= EXACT_INTEGERS:
        tail = sum(math.comb(n, k) for k in range(m + 1))
        return min(1.0, 2 * tail / 2**n)
    ratio, total = 1.0, 1.0
    for k in range(m, 0, -1):  # C(n, k-1) / C(n, k) = k / (n - k + 1)
        ratio *= k / (n - k + 1)
        total += ratio
        if ratio < 1e-17 * total:
            break
    log_top = math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1)
    return min(1.0, 2 * math.exp(log_top - n * math.log(2)) * total)


def phi(x: Sequence[bool], y: Sequence[bool]) -> float | None:
    """Phi (Matthews) correlation of two binary sequences; ``None`` when undefined."""
    a = np.asarray(x, dtype=bool)
    b = np.asarray(y, dtype=bool)
    n11 = int(np.sum(a & b))
    n10 = int(np.sum(a & ~b))
    n01 = int(np.sum(~a & b))
    n00 = int(np.sum(~a & ~b))
    denom = math.sqrt((n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00))
    if denom == 0:
        return None
    return round((n11 * n00 - n10 * n01) / denom, 4)


def recorded_p(p: float) -> float:
    """A p-value as results record it: four significant digits (a tiny value keeps its size,
    unlike a fixed number of decimals)."""
    return float(f"{p:.4g}")


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (the family-wise error rate over the tests), in the
    given order: the k-th smallest p is multiplied by ``m − k + 1``, made non-decreasing in that
    order and capped at 1 (``statsmodels.stats.multitest.multipletests(method="holm")``)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * float(pvalues[i])))
        adjusted[i] = running
    return adjusted
