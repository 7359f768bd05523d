"""Coverage of the intervals of ``metrics.intervals`` and the size of the paired tests, computed
exactly (every outcome weighed by its probability) where that is cheap, else by simulation.

- shares: every count of ``n`` items right, for true shares spread over 0–100 %;
- paired differences (two models on the same items, or a question and its counterfactual on
  the same pairs): every 2×2 table of ``n`` units, for true shares of both over 5–95 % and a
  correlation between them of 0 and 0.25 (``CORRELATIONS``; stronger correlations are
  reported apart: with few discordant units every method covers more than 95 %);
- items in pairs: two models' outcomes correlated within a pair; the clustered interval of the
  difference, and the rejection rate at 5 % of the exact McNemar test over items against the
  sign-flip test over pairs when the two models are equally good.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from whatifbench.metrics import intervals
from whatifbench.metrics.stats import mcnemar_exact

SHARE_GRID = np.linspace(0.0025, 0.9975, 400)
"""True shares for the share intervals (0–100 %)."""
PAIRED_GRID = np.arange(0.05, 0.951, 0.05)
"""True shares of each side for the paired differences."""
CORRELATIONS = (0.0, 0.25)
"""Correlations between the two sides whose coverage the criteria are read on."""


@dataclass(frozen=True)
class Coverage:
    """An interval's coverage at one sample size."""

    what: str
    """The interval."""
    n: int
    """Units."""
    mean: float
    """Mean coverage over the true values."""
    minimum: float
    """Lowest coverage over true values within 5–95 %."""
    zero_width: int
    """Outcomes whose interval has zero width."""
    exact: bool
    """Computed exactly (else simulated)."""


def shares(n: int) -> Coverage:
    """Wilson's coverage for ``n`` items, exactly."""
    k = np.arange(n + 1)
    bounds = np.array([intervals.share(int(h), n) for h in k]) / 100.0
    log_c = np.array([math.lgamma(n + 1) - math.lgamma(h + 1) - math.lgamma(n - h + 1)
                      for h in k])
    cov = []
    for p in SHARE_GRID:
        w = np.exp(log_c + k * math.log(p) + (n - k) * math.log1p(-p))
        cov.append(float(w[(bounds[:, 0] <= p + 1e-12) & (p - 1e-12 <= bounds[:, 1])].sum()))
    c = np.array(cov)
    mid = (SHARE_GRID >= 0.05) & (SHARE_GRID <= 0.95)
    return Coverage("share (Wilson)", n, float(c.mean()), float(c[mid].min()),
                    int(np.sum(bounds[:, 1] - bounds[:, 0] <= 0)), True)


def _joint(pa: float, pb: float, rho: float) -> np.ndarray | None:
    """Cell probabilities (both, first only, second only, neither), or ``None`` when the
    correlation is impossible for these shares."""
    both = pa * pb + rho * math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    cells = np.array([both, pa - both, pb - both, 1 - pa - pb + both])
    return None if cells.min() < -1e-12 else np.clip(cells, 0.0, 1.0)


def _tables(n: int) -> np.ndarray:
    """Every 2×2 table of ``n`` units (rows: both, first only, second only, neither)."""
    out = [(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a)
           for c in range(n + 1 - a - b)]
    return np.array(out, dtype=float).T


def paired(n: int, correlations: Sequence[float] = CORRELATIONS, draws: int = 4000,
           seed: int = 0) -> Coverage:
    """Newcombe's paired interval's coverage for ``n`` units: exactly up to 100 units, by
    ``draws`` simulated tables per true value above."""
    exact = n <= 100
    rng = np.random.default_rng(seed)
    if exact:
        tables = _tables(n)
        log_c = (math.lgamma(n + 1)
                 - sum(np.array([math.lgamma(x + 1) for x in row]) for row in tables))
        bounds = np.array([intervals.paired_difference(*t) for t in tables.T]) / 100.0
    cov: list[float] = []
    mid: list[bool] = []
    zero = 0
    for rho in correlations:
        for pa in PAIRED_GRID:
            for pb in PAIRED_GRID:
                cells = _joint(float(pa), float(pb), rho)
                if cells is None:
                    continue
                truth = float(pa - pb)
                if exact:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        logs = np.log(cells)
                        terms = sum(np.where(row == 0, 0.0, row * lp)
                                    for row, lp in zip(tables, logs, strict=True))
                    w = np.exp(log_c + terms)
                    hit = (bounds[:, 0] <= truth + 1e-12) & (truth - 1e-12 <= bounds[:, 1])
                    cov.append(float(w[hit].sum()))
                else:
                    drawn = rng.multinomial(n, cells, size=draws)
                    found = np.array([intervals.paired_difference(*t) for t in drawn]) / 100.0
                    zero += int(np.sum(found[:, 1] <= found[:, 0]))
                    cov.append(float(np.mean((found[:, 0] <= truth + 1e-12)
                                             & (truth - 1e-12 <= found[:, 1]))))
                mid.append(True)
    if exact:
        zero = int(np.sum(bounds[:, 1] - bounds[:, 0] <= 0))
    c = np.array(cov)
    label = "paired difference (Newcombe)" + (
        "" if tuple(correlations) == CORRELATIONS else f", correlation {correlations}")
    return Coverage(label, n, float(c.mean()), float(c[np.array(mid)].min()), zero, exact)


@dataclass(frozen=True)
class PairedTest:
    """Two equally good models compared on items that come in pairs."""

    pairs: int
    """Pairs (two items each)."""
    within: float
    """Correlation of a model's two answers within a pair."""
    mcnemar_items: float
    """Rejection rate at 5 % of the exact McNemar test over items (ignoring the pairs)."""
    sign_flip: float
    """Rejection rate at 5 % of ``metrics.paired.compare``'s test (sign flips over pairs)."""
    coverage: float
    """Coverage of ``compare``'s interval of the difference (0: the truth)."""


def paired_test(pairs: int, within: float, sims: int = 2000, seed: int = 0) -> PairedTest:
    """Rejection rates and coverage for two models right on 60 % of items, whose answers
    within a pair agree more than chance (a latent pair effect shared by both answers of one
    model)."""
    from whatifbench.metrics.paired import compare

    rng = np.random.default_rng(seed)
    units = [f"p{k // 2}" for k in range(2 * pairs)]
    old = new = covered = 0
    for _ in range(sims):
        rows = []
        for _model in range(2):
            shared = rng.random(pairs) < within  # both answers of the pair decided together
            first = rng.random(pairs) < 0.6
            second = np.where(shared, first, rng.random(pairs) < 0.6)
            rows.append(np.stack([first, second], axis=1).ravel())
        a, b = rows
        found = compare(a, b, units)
        only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
        old += mcnemar_exact(only_a, only_b) < 0.05
        new += found["mcnemar_p"] < 0.05
        low, high = found["ci95"]
        covered += low <= 0.0 <= high
    return PairedTest(pairs, within, old / sims, new / sims, covered / sims)
