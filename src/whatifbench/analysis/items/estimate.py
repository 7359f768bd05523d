"""A model's full-suite score from a budget of its items, estimated by design: the units are drawn
with known inclusion probabilities, so that the estimate is unbiased and its interval honest
whatever the model; the item bank only assists, by choosing the strata.

Units are drawn as dealing units (``Item.unit``: a pair is asked whole), each holding the
scoring units (``Suite.unit_outcomes``) whose items it contains; the target is the mean outcome
of every scoring unit. Methods (``METHODS``):

- ``stratified`` (default): the dealing units sorted by the bank's predicted difficulty (their
  chance of being right at the bank's mean ability), cut into equal strata, the same share of
  each drawn at random (proportional allocation), and the stratified expanded mean. Sorting by
  difficulty puts units a model tends to get right together, so each stratum varies less than
  the whole; a model unlike the bank's loses nothing against a random sample (proportional
  allocation), one like it gains what the bank's difficulties explain;
- ``random``: a simple random sample of dealing units and the expanded mean (the baseline).

The interval is Korn and Graubard's: the Wilson interval at the effective size whose binomial
variance equals the design-based variance (finite-population corrected; a stratum's variance at
least that of its answers plus one right and one wrong, so that no interval has zero width),
with Student's t for the strata's degrees of freedom, kept within the bounds the answers asked
already fix. The bank's own model-based prediction (the mean predicted
outcome at the model's ability from the asked units) is recorded beside it: when it falls
outside the interval the model fits the bank badly, and an IRT extrapolation would have been
wrong. bench/bench_calibration.py measures coverage and error for models like and unlike the
bank (docs/statistics.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from whatifbench.analysis.items.irt import ability, prob
from whatifbench.metrics import intervals

STRATUM_SIZE = 4
"""Units asked per stratum at least (on average): strata = units asked / this, at most
``MAX_STRATA``."""
MAX_STRATA = 10
"""Most strata."""
MISFIT_Z = 2.0
"""A bank prediction this many standard errors from the estimate says the model fits the
bank badly."""


@dataclass(frozen=True)
class Units:
    """The scoring units of a bank as arrays, grouped by the dealing unit that holds them."""

    ids: tuple[str, ...]
    """Scoring unit ids."""
    a: np.ndarray
    """Discrimination per scoring unit."""
    d: np.ndarray
    """Intercept per scoring unit."""
    deal: tuple[str, ...]
    """The dealing unit of each scoring unit."""
    cost: Mapping[str, int]
    """Items in each dealing unit (what asking it costs)."""

    def members(self) -> dict[str, list[int]]:
        """Scoring unit indexes per dealing unit, in first-seen order."""
        out: dict[str, list[int]] = {}
        for k, unit in enumerate(self.deal):
            out.setdefault(unit, []).append(k)
        return out


Answer = Callable[[Sequence[str]], Mapping[str, bool]]
"""Asks the given dealing units and returns every scoring unit's outcome among them."""


@dataclass(frozen=True)
class Stratum:
    """One stratum of a drawn design."""

    population: tuple[str, ...]
    """Its dealing units."""
    asked: tuple[str, ...]
    """Those drawn (a simple random sample without replacement)."""


@dataclass(frozen=True)
class Estimate:
    """The estimated full-suite score (in percent) of the units' mean outcome."""

    value: float
    """Point estimate."""
    low: float
    """Lower end of the 95 % interval."""
    high: float
    """Upper end of the 95 % interval."""
    se: float
    """Design-based standard error (points)."""
    method: str
    """The design (``METHODS``)."""
    asked: int
    """Dealing units asked."""
    answered: int
    """Scoring units answered."""
    total: int
    """Scoring units in the bank."""
    theta: float
    """The model's ability on the bank's scale (EAP from the units asked)."""
    predicted: float
    """The bank's model-based prediction of the full score at that ability (percent)."""
    random_se: float | None
    """The standard error a random sample of as many units would have had (points,
    estimated from the same answers)."""

    @property
    def misfit(self) -> bool:
        """The bank's prediction is more than ``MISFIT_Z`` standard errors from the estimate:
        the model answers unlike the bank's runs at its ability."""
        return abs(self.predicted - self.value) > MISFIT_Z * max(self.se, 1e-9)

    def to_json(self) -> dict[str, Any]:
        """The record in the run spec (rounded)."""
        return {"value": round(self.value, 2),
                "interval": [round(self.low, 2), round(self.high, 2)],
                "se": round(self.se, 3), "design": self.method,
                "asked_units": self.asked, "answered_units": self.answered,
                "units": self.total, "theta": round(self.theta, 3),
                "bank_prediction": round(self.predicted, 2), "misfit": self.misfit,
                "random_se": None if self.random_se is None else round(self.random_se, 3)}


def _draw(rng: np.random.Generator, population: Sequence[str], n: int) -> tuple[str, ...]:
    """``n`` of ``population`` at random, without replacement, in population order."""
    chosen = set(rng.choice(len(population), size=min(n, len(population)),
                            replace=False).tolist())
    return tuple(u for k, u in enumerate(population) if k in chosen)


def _cut(order: Sequence[str], strata: int) -> list[tuple[str, ...]]:
    """``order`` cut into ``strata`` consecutive parts of (nearly) equal size."""
    return [tuple(order[int(k)] for k in part)
            for part in np.array_split(np.arange(len(order)), strata) if len(part)]


def _allocate(sizes: Sequence[int], n: int) -> list[int]:
    """Units drawn per stratum, ``n`` in all, proportional to the strata's sizes (largest
    remainders), at least one from each."""
    total = sum(sizes)
    exact = [n * s / total for s in sizes]
    out = [min(s, max(1, int(e))) for s, e in zip(sizes, exact, strict=True)]
    order = sorted(range(len(sizes)), key=lambda k: (out[k] - exact[k], k))
    k = 0
    while sum(out) < n and k < 10 * len(sizes):
        j = order[k % len(sizes)]
        if out[j] < sizes[j]:
            out[j] += 1
        k += 1
    return out


def affordable(units: Units, budget: int) -> int:
    """Dealing units a budget of items buys whatever is drawn (by the costliest unit)."""
    return max(1, budget // max(units.cost.values()))


def design(units: Units, budget: int, method: str, seed: int = 0) -> list[Stratum]:
    """The strata and the dealing units drawn from each for ``budget`` items."""
    rng = np.random.default_rng(seed)
    members = units.members()
    deals = list(members)
    n = min(affordable(units, budget), len(deals))
    if method == "random":
        return [Stratum(tuple(deals), _draw(rng, deals, n))]
    p0 = prob(units.a, units.d, 0.0)[:, 0]
    level = {u: float(np.mean(p0[members[u]])) for u in deals}
    parts = _cut(sorted(deals, key=lambda u: (level[u], u)),
                 max(1, min(MAX_STRATA, n // STRATUM_SIZE)))
    counts = _allocate([len(p) for p in parts], n)
    return [Stratum(p, _draw(rng, p, k)) for p, k in zip(parts, counts, strict=True)]


def draw(units: Units, budget: int, method: str, answer: Answer, seed: int = 0) -> Estimate:
    """Draw and ask the units of ``budget`` items by ``method`` and estimate the full score."""
    plan = design(units, budget, method, seed)
    return estimate(units, plan, answer([u for s in plan for u in s.asked]), method)


def estimate(units: Units, plan: Sequence[Stratum], outcomes: Mapping[str, bool],
             method: str) -> Estimate:
    """The stratified expanded mean of every scoring unit's outcome and its interval."""
    members = units.members()
    total = len(units.ids)
    y = {u: float(sum(bool(outcomes.get(units.ids[k], False)) for k in members[u]))
         for s in plan for u in s.asked}
    size = {u: len(members[u]) for u in members}
    t_hat = var = 0.0
    df = 0
    for s in plan:
        big, small = len(s.population), len(s.asked)
        if small == 0:
            continue
        values = np.array([y[u] for u in s.asked])
        t_hat += big / small * float(values.sum())
        var += big ** 2 * (1 - small / big) * _variance(values, [size[u] for u in s.asked]) \
            / small
        df += small - 1
    asked = [u for s in plan for u in s.asked]
    se = 100.0 * math.sqrt(var) / total
    # what the answers asked already fix: their right ones, and their wrong ones
    floor = 100.0 * sum(y.values()) / total
    ceiling = 100.0 - 100.0 * sum(size[u] - y[u] for u in asked) / total
    value = min(max(100.0 * t_hat / total, floor), ceiling)
    low, high = _interval(value, se, df)
    theta, predicted = _bank_prediction(units, outcomes)
    return Estimate(value, max(floor, low), min(ceiling, high), se, method,
                    len(asked), sum(size[u] for u in asked), total, theta, predicted,
                    _random_se(plan, y, size, total))


def _interval(value: float, se: float, df: int) -> tuple[float, float]:
    """Korn and Graubard's interval for a share estimated by a design: the Wilson interval at
    the effective size whose binomial variance equals the design's (``se``), with Student's t
    for the strata's degrees of freedom. Near 0 or 100 % it is not symmetric, as the share's
    distribution is not."""
    if se <= 0:
        return value, value
    p = min(max(value / 100.0, 0.0), 1.0)
    effective = max(p * (1.0 - p), 1e-6) / (se / 100.0) ** 2
    low, high = intervals.wilson(p * effective, effective, _t95(max(df, 1)))
    return 100.0 * low, 100.0 * high


def _variance(values: np.ndarray, sizes: Sequence[int]) -> float:
    """The sample variance of a stratum's outcomes, at least that of its outcomes plus half a
    right and half a wrong answer (a stratum answered all right or all wrong says little about
    its spread)."""
    n = len(values)
    found = float(values.var(ddof=1)) if n > 1 else 0.0
    share = (float(values.sum()) + 0.5) / (sum(sizes) + 1.0)
    return max(found, share * (1.0 - share) * float(np.mean(sizes)) * n / (n + 1.0))


def _random_se(plan: Sequence[Stratum], y: Mapping[str, float], size: Mapping[str, int],
               total: int) -> float | None:
    """The standard error (points) a simple random sample of as many units would have had,
    from the outcomes asked (how much the bank's strata helped)."""
    asked = [u for s in plan for u in s.asked]
    population = sum(len(s.population) for s in plan)
    if len(asked) < 2:
        return None
    values = np.array([y[u] for u in asked])
    var = population ** 2 * (1 - len(asked) / population) * _variance(
        values, [size[u] for u in asked]) / len(asked)
    return 100.0 * math.sqrt(var) / total


def _bank_prediction(units: Units, outcomes: Mapping[str, bool]) -> tuple[float, float]:
    """The model's ability from the scoring units asked, and the bank's prediction of the
    full score at it (asked units as answered, the others by their probability)."""
    index = {uid: k for k, uid in enumerate(units.ids)}
    seen = [index[u] for u in outcomes if u in index]
    y = np.array([float(outcomes[units.ids[k]]) for k in seen])
    found = ability(units.a[seen], units.d[seen], y)
    p = prob(units.a, units.d, found.mean)[:, 0]
    p[seen] = y
    return found.mean, 100.0 * float(p.mean())


def _t95(df: int) -> float:
    """Student's t 97.5 % point."""
    from scipy.stats import t

    return float(t.ppf(0.975, df))
