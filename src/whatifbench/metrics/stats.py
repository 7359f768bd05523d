"""Honest statistics: bootstrap confidence intervals, exact McNemar test, Wilson intervals."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np

BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 0
CACHED_RESAMPLES = 1_000_000
"""Index tables up to this many entries (8 MB) are kept for reuse; 16 at most."""
_INTERVALS = contextvars.ContextVar("bootstrap_intervals", default=True)
_SHARED: contextvars.ContextVar[dict[tuple[int, int, int], np.ndarray] | None] = (
    contextvars.ContextVar("shared_resamples", default=None))


@contextlib.contextmanager
def shared_resamples() -> Iterator[None]:
    """Within this block every resampling table is kept, whatever its size, and reused by the
    intervals over the same number of units (many comparisons over one set of pairs draw it
    once); it is freed when the block ends. The intervals do not change."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


@contextlib.contextmanager
def no_intervals() -> Iterator[None]:
    """Within this block bootstrap intervals are not drawn (they come out ``(0.0, 0.0)``): for
    metrics computed only for their values, many times (the reports' chance rows)."""
    token = _INTERVALS.set(False)
    try:
        yield
    finally:
        _INTERVALS.reset(token)


def percent(hits: int, total: int) -> float | None:
    """``100 * hits / total`` rounded to 2 decimals; ``None`` for an empty total (a share of
    nothing is no number, never 0)."""
    return round(100.0 * hits / total, 2) if total else None


def wilson_ci(hits: int, total: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95 % interval of a proportion, in percent."""
    if total == 0:
        return (0.0, 0.0)
    p = hits / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return (round(100 * max(0.0, centre - half), 2), round(100 * min(1.0, centre + half), 2))


def wilson_of_percent(percent: float, total: int) -> tuple[float, float]:
    """``wilson_ci`` of a share recorded as a percentage of ``total`` (hits recovered by
    rounding)."""
    return wilson_ci(round(percent * total / 100), total)


def bootstrap_ci(
    columns: Sequence[np.ndarray],
    statistic: Callable[..., np.ndarray],
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile 95 % interval of ``statistic`` over resampled units (rows).

    ``columns`` are arrays with one row per unit (e.g. per pair); ``statistic`` receives the
    resampled columns as 2-D arrays ``(samples, units)`` and returns one value per resample.
    """
    n = len(columns[0])
    if n == 0 or not _INTERVALS.get():
        return (0.0, 0.0)
    shared = _SHARED.get()
    if n * samples <= CACHED_RESAMPLES:
        idx = _resample_rows(n, samples, seed)
    elif shared is not None:
        if (n, samples, seed) not in shared:
            shared[(n, samples, seed)] = _draw_rows(n, samples, seed)
        idx = shared[(n, samples, seed)]
    else:
        idx = _draw_rows(n, samples, seed)
    values = statistic(*(np.asarray(c)[idx] for c in columns))
    lo, hi = interval_95(values)
    return (round(float(lo), 2), round(float(hi), 2))


def _draw_rows(n: int, samples: int, seed: int) -> np.ndarray:
    """Resampled row indexes ``(samples, n)``: ``samples`` draws of ``n`` units."""
    return np.random.default_rng(seed).integers(0, n, size=(samples, n))


@functools.lru_cache(maxsize=16)
def _resample_rows(n: int, samples: int, seed: int) -> np.ndarray:
    """``_draw_rows`` drawn once per process and shared (read-only): tables ask for many
    intervals over the same few group sizes."""
    idx = _draw_rows(n, samples, seed)
    idx.flags.writeable = False
    return idx


def interval_95(values: np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of ``values``: exactly ``np.percentile(values, [2.5,
    97.5])`` (linear interpolation between closest ranks, numpy's formula), without the
    ``numpy.ma`` import that ``np.percentile`` triggers."""
    ordered = np.sort(np.asarray(values, dtype=float).ravel())
    virtual = (len(ordered) - 1) * (np.asarray([2.5, 97.5]) / 100)
    below = np.floor(virtual).astype(int)
    above = np.minimum(below + 1, len(ordered) - 1)
    gamma = virtual - below
    a, b = ordered[below], ordered[above]
    diff = b - a
    out = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
    return float(out[0]), float(out[1])


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


def stratified_bootstrap_ci(
    strata: Sequence[Sequence[np.ndarray]],
    statistic: Callable[..., np.ndarray],
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile 95 % interval of ``statistic`` when units are resampled within each stratum.

    ``strata`` holds, per stratum (e.g. per image subgroup), its columns (arrays with one row
    per unit of that stratum); ``statistic`` receives every stratum's resampled columns in
    stratum order, each as a 2-D array ``(samples, units of the stratum)``, and returns one
    value per resample. An empty stratum gives ``(0.0, 0.0)``.
    """
    if not _INTERVALS.get():
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    resampled: list[np.ndarray] = []
    for columns in strata:
        n = len(columns[0])
        if n == 0:
            return (0.0, 0.0)
        idx = rng.integers(0, n, size=(samples, n))
        resampled += [np.asarray(c)[idx] for c in columns]
    lo, hi = interval_95(statistic(*resampled))
    return (round(float(lo), 2), round(float(hi), 2))


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
