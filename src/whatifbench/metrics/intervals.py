"""95 % intervals with honest coverage at every sample size, and the exact paired test over
clusters. Every interval is in percent (points for differences), rounded to 2 decimals, and
comes with the name of its method (``results.json`` records it beside each interval):

- a share (accuracy, pair accuracy, all-right of a set): the Wilson score interval;
- the difference of two shares measured on the same units (a drop: original − counterfactual
  over pairs; two models on the same items): Newcombe's hybrid score interval for paired data
  (his method 10, Wilson intervals of the two margins combined with the corrected phi);
  when the items come in clusters (the questions of a pair), the 2×2 table is first shrunk by
  the design effect of the difference (Rao & Scott: the cluster-robust variance over the
  variance the items would have if independent, between 1 and the largest cluster's size);
- a sum of shares of independent groups (CFMM's total score): Zou & Donner's MOVER over the
  groups' Wilson intervals;
- the difference of two independent groups' estimates (a gap between subgroups' drops): MOVER
  over the two groups' own intervals;
- a mean of scores on a bounded scale (MuCR's Exp, 0–10): the Wilson interval of the mean
  rescaled to [0, 1] at the sample's effective size (the size whose binomial variance at that
  mean equals the sample's), at most four times the sample size.

None of them collapses to a point at 0 or 100 % (6 of 6 right gives 61.0–100); their coverage on
simulated data is measured by ``bench/bench_calibration.py`` (docs/statistics.md).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator, Sequence

import numpy as np

Z95 = 1.959963984540054
"""The standard normal's 97.5 % point."""

WILSON = "wilson"
"""Method name: Wilson score interval of a share."""
NEWCOMBE_PAIRED = "newcombe-paired"
"""Method name: Newcombe's hybrid score interval of a paired difference (method 10)."""
NEWCOMBE_CLUSTERED = "newcombe-paired-clustered"
"""Method name: the same after the Rao–Scott design-effect shrinkage of the table."""
MOVER_SUM = "mover-wilson-sum"
"""Method name: MOVER sum of independent groups' Wilson intervals."""
MOVER_DIFFERENCE = "mover-difference"
"""Method name: MOVER difference of two independent estimates' intervals."""
WILSON_MEAN = "wilson-bounded-mean"
"""Method name: Wilson interval of a bounded mean at its effective size."""
METHODS = {
    WILSON: "Wilson score interval",
    NEWCOMBE_PAIRED: "Newcombe hybrid score interval for paired proportions (method 10)",
    NEWCOMBE_CLUSTERED: ("Newcombe paired interval with the Rao–Scott design effect of the "
                         "pairs"),
    MOVER_SUM: "MOVER sum of the groups' Wilson intervals (Zou & Donner)",
    MOVER_DIFFERENCE: "MOVER difference of two independent groups' intervals (Zou & Donner)",
    WILSON_MEAN: "Wilson interval of the rescaled mean at its effective size",
}
"""Each method's name in words (tables' notes, docs)."""

SHARES_NOTE = ("95% intervals: Wilson score for each share, Newcombe's paired interval for a "
               "change Δ over the same pairs (docs/statistics.md).")
"""The sentence under tables whose cells carry these intervals."""

Interval = tuple[float, float]
_ON = contextvars.ContextVar("intervals", default=True)


@contextlib.contextmanager
def suppressed() -> Iterator[None]:
    """Within this block every interval of this module is ``None``: for metrics computed only
    for their values (the reports' chance rows, expected values over many pseudo-runs)."""
    token = _ON.set(False)
    try:
        yield
    finally:
        _ON.reset(token)


def wilson(hits: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson bounds of ``hits / n`` as fractions (``n > 0``; counts may be fractional; never
    suppressed)."""
    p = min(max(hits / n, 0.0), 1.0)
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(max(p * (1.0 - p) / n + z * z / (4.0 * n * n), 0.0)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _pct(low: float, high: float, scale: float = 100.0) -> Interval:
    return (round(scale * low, 2), round(scale * high, 2))


def share(hits: int, n: int) -> Interval | None:
    """Wilson 95 % interval of ``hits`` of ``n`` in percent; ``None`` over nothing."""
    if n <= 0 or not _ON.get():
        return None
    return _pct(*wilson(hits, n))


def paired_difference(both: float, only_first: float, only_second: float, neither: float
                      ) -> Interval | None:
    """Newcombe's method 10 interval of p(first right) − p(second right), in points, from the
    paired 2×2 table (counts may be fractional: see ``clustered_difference``)."""
    n = both + only_first + only_second + neither
    if n <= 0 or not _ON.get():
        return None
    hits1, hits2 = both + only_first, both + only_second
    p1, p2 = hits1 / n, hits2 / n
    l1, u1 = wilson(hits1, n)
    l2, u2 = wilson(hits2, n)
    margins = hits1 * (n - hits1) * hits2 * (n - hits2)
    cross = both * neither - only_first * only_second
    corrected = cross - n / 2 if cross > n / 2 else cross if cross < 0 else 0.0
    phi = corrected / math.sqrt(margins) if margins > 0 else 0.0
    d = p1 - p2
    below = math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2,
                          0.0))
    above = math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2,
                          0.0))
    return _pct(max(-1.0, d - below), min(1.0, d + above))


def design_effect(first: np.ndarray, second: np.ndarray, cluster: np.ndarray) -> float:
    """The Rao–Scott design effect of the paired difference ``mean(first) − mean(second)``
    when items come in clusters (``cluster``: each item's cluster index): the cluster-robust
    variance over the variance of independent items, between 1 and the largest cluster's
    size (1 when either is zero)."""
    n = len(first)
    diff = first.astype(float) - second.astype(float)
    counts = np.bincount(cluster)
    clusters = int(np.count_nonzero(counts))
    if n < 2 or clusters < 2 or clusters == n:
        return 1.0
    mean = float(diff.mean())
    naive = float(np.mean((diff - mean) ** 2)) / n
    per = np.bincount(cluster, weights=diff) - mean * counts
    robust = clusters / (clusters - 1) * float(np.sum(per ** 2)) / n ** 2
    if naive <= 0 or robust <= 0:
        return 1.0
    return float(min(max(robust / naive, 1.0), counts.max()))


def clustered_difference(first: Sequence[bool] | np.ndarray, second: Sequence[bool] | np.ndarray,
                         cluster: Sequence[int] | np.ndarray) -> tuple[Interval | None, str]:
    """The paired difference's interval (points) and method over items in clusters: Newcombe's
    on the table divided by the design effect (plain Newcombe when every cluster is one item
    or the design effect is 1)."""
    x = np.asarray(first, dtype=bool)
    y = np.asarray(second, dtype=bool)
    groups = np.asarray(cluster, dtype=int)
    cells = (float(np.sum(x & y)), float(np.sum(x & ~y)), float(np.sum(~x & y)),
             float(np.sum(~x & ~y)))
    deff = design_effect(x, y, groups) if len(x) else 1.0
    if deff <= 1.0:
        return paired_difference(*cells), NEWCOMBE_PAIRED
    return paired_difference(*(c / deff for c in cells)), NEWCOMBE_CLUSTERED


def sum_of_shares(parts: Sequence[tuple[int, int]]) -> Interval | None:
    """MOVER interval (percent points) of the sum of the groups' shares ``hits / n`` (each
    group independent); ``None`` when a group is empty."""
    if not parts or any(n <= 0 for _, n in parts) or not _ON.get():
        return None
    total = low = high = 0.0
    for hits, n in parts:
        p = hits / n
        lo, hi = wilson(hits, n)
        total += p
        low += (p - lo) ** 2
        high += (hi - p) ** 2
    return _pct(max(0.0, total - math.sqrt(low)), min(float(len(parts)), total + math.sqrt(high)))


def independent_difference(first: float, first_ci: Interval, second: float,
                           second_ci: Interval) -> Interval:
    """MOVER interval of ``first − second`` (same unit as the inputs) from each independent
    estimate's own interval."""
    below = math.hypot(first - first_ci[0], second_ci[1] - second)
    above = math.hypot(first_ci[1] - first, second - second_ci[0])
    return (round(first - second - below, 2), round(first - second + above, 2))


def bounded_mean(values: Sequence[float] | np.ndarray, low: float, high: float
                 ) -> Interval | None:
    """Interval of the mean of scores on ``[low, high]`` (in the scores' own unit): Wilson at
    the effective size ``n · m(1 − m) / s²`` of the mean ``m`` rescaled to [0, 1] (``s²`` the
    sample variance), between ``n`` and ``4 n`` (a sample without spread says little about
    its spread); ``None`` over nothing."""
    x = (np.asarray(values, dtype=float) - low) / (high - low)
    n = len(x)
    if n == 0 or not _ON.get():
        return None
    m = float(np.clip(x.mean(), 0.0, 1.0))
    var = float(x.var(ddof=1)) if n > 1 else 0.0
    bernoulli = m * (1.0 - m)
    effective = 4.0 * n if var <= 0 or bernoulli <= 0 else min(
        max(n * bernoulli / var, float(n)), 4.0 * n)
    lo, hi = wilson(m * effective, effective)
    return (round(low + lo * (high - low), 2), round(low + hi * (high - low), 2))


def _binomial_pmf(n: int) -> np.ndarray:
    """P(B = k) for B ~ Binomial(n, 1/2), k = 0..n (from log-gamma: no overflow)."""
    k = np.arange(n + 1)
    logs = (math.lgamma(n + 1) - np.array([math.lgamma(i + 1) + math.lgamma(n - i + 1)
                                           for i in k]) - n * math.log(2.0))
    return np.exp(logs)


def sign_flip_p(differences: Sequence[int]) -> float:
    """Two-sided exact p-value of the sign-flip (randomisation) test that integer cluster
    differences (A's right answers − B's, per cluster) are symmetric about 0: P(|S| ≥ |s|)
    when each cluster's sign is flipped at random. With clusters of one item it is the exact
    McNemar test."""
    d = [abs(int(v)) for v in differences if int(v) != 0]
    observed = abs(sum(int(v) for v in differences))
    if not d or observed == 0:
        return 1.0
    size = sum(d)
    dist = np.zeros(2 * size + 1)
    dist[size] = 1.0
    for weight in sorted(set(d)):
        count = d.count(weight)
        pmf = _binomial_pmf(count)
        # this weight adds weight·(2B − count) for B ~ Binomial(count, 1/2)
        step = np.zeros(2 * weight * count + 1)
        step[::2 * weight] = pmf
        dist = np.convolve(dist, step)[weight * count:weight * count + 2 * size + 1]
    values = np.arange(-size, size + 1)
    return float(min(1.0, dist[np.abs(values) >= observed].sum()))
