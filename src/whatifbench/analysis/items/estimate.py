"""Which units to ask from a bank, and the full-suite score estimated from their answers.

Selection works on dealing units (``Item.unit``: a pair is asked whole), each holding the
scoring units (``Suite.unit_outcomes``) whose items it contains:

- ``stratified``: the dealing units sorted by the mean difficulty of their scoring units, cut
  into as many equal strata as the budget allows, and the most discriminating unit of each
  stratum taken (anchors spread over the whole difficulty range; deterministic);
- ``adaptive``: a quarter of the budget as stratified anchors, then, in rounds, the units with
  the most Fisher information at the current ability posterior (information averaged over it).

The estimate (tinyBenchmarks' p-IRT): the scoring units asked count as answered, the others
by their probability of being right at the ability, averaged over its posterior; the interval
is the 2.5 and 97.5 % points of that predictive distribution (each unanswered unit a Bernoulli
draw at each ability), widened by the bank's calibration factor (``bank.Calibration``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from whatifbench.analysis.items.irt import GRID, ability, prob

METHODS = ("stratified", "adaptive")
"""How ``--budget`` picks items."""
ROUND = 10
"""Units added per adaptive round."""


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


def _strata(units: Units, chosen: Sequence[str], count: int, budget: int) -> list[str]:
    """Up to ``count`` more dealing units, the middle one of equal strata of difficulty among
    those not ``chosen``, within ``budget`` items."""
    members = units.members()
    free = [u for u in members if u not in set(chosen)]
    if count <= 0 or not free:
        return []
    with np.errstate(divide="ignore", invalid="ignore"):
        level = {u: float(np.mean(-units.d[members[u]] / np.where(
            np.abs(units.a[members[u]]) < 0.05, 0.05, units.a[members[u]]))) for u in free}
    order = sorted(free, key=lambda u: (level[u], u))
    picks: list[str] = []
    spent = 0
    for part in np.array_split(np.arange(len(order)), min(count, len(order))):
        if len(part) == 0:
            continue
        unit = max((order[int(k)] for k in part),
                   key=lambda u: (float(np.sum(units.a[members[u]])) / units.cost[u], u))
        if spent + units.cost[unit] > budget:
            continue
        picks.append(unit)
        spent += units.cost[unit]
    return picks


def stratified(units: Units, budget: int) -> list[str]:
    """Dealing units for ``budget`` items by stratified anchors (see the module docstring)."""
    mean_cost = float(np.mean(list(units.cost.values())))
    return _strata(units, [], max(1, int(budget // mean_cost)), budget)


Answer = Callable[[Sequence[str]], Mapping[str, bool]]
"""Asks the given dealing units (all asked so far, in order) and returns every scoring unit's
outcome among them."""


def adaptive(units: Units, budget: int, answer: Answer) -> tuple[list[str], dict[str, bool]]:
    """Dealing units for ``budget`` items chosen adaptively (see the module docstring), and the
    outcomes ``answer`` returned for them."""
    members = units.members()
    mean_cost = float(np.mean(list(units.cost.values())))
    chosen = _strata(units, [], max(1, int(budget // mean_cost) // 4), budget)
    spent = sum(units.cost[u] for u in chosen)
    outcomes = dict(answer(chosen))
    index = {uid: k for k, uid in enumerate(units.ids)}
    p_grid = prob(units.a, units.d, GRID)
    info_grid = units.a[:, None] ** 2 * p_grid * (1.0 - p_grid)
    while True:
        seen = [index[u] for u in outcomes if u in index]
        post = ability(units.a[seen], units.d[seen],
                       np.array([outcomes[units.ids[k]] for k in seen], float)).weights
        unit_info = info_grid @ post
        taken = set(chosen)
        scores = sorted((-float(unit_info[members[u]].sum()) / units.cost[u], u)
                         for u in members if u not in taken and spent + units.cost[u] <= budget)
        if not scores:
            break
        batch = [u for _, u in scores[:ROUND]]
        trimmed = []
        for unit in batch:
            if spent + units.cost[unit] <= budget:
                trimmed.append(unit)
                spent += units.cost[unit]
        chosen += trimmed
        outcomes = dict(answer(chosen))
    return chosen, outcomes


@dataclass(frozen=True)
class Estimate:
    """The estimated full-suite score (in percent) of the units' mean outcome."""

    value: float
    """Point estimate."""
    low: float
    """Lower end of the 95 % interval."""
    high: float
    """Upper end of the 95 % interval."""
    theta: float
    """Ability (EAP) on the bank's scale."""
    theta_sd: float
    """Its posterior standard deviation."""
    answered: int
    """Scoring units answered."""
    total: int
    """Scoring units in the bank."""

    def to_json(self) -> dict[str, Any]:
        """The record in the run spec (rounded)."""
        return {"value": round(self.value, 2), "interval": [round(self.low, 2),
                                                            round(self.high, 2)],
                "theta": round(self.theta, 3), "theta_sd": round(self.theta_sd, 3),
                "answered_units": self.answered, "units": self.total}


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    return np.asarray(ndtr(x))


def estimate(units: Units, outcomes: Mapping[str, bool], widen: float = 1.0) -> Estimate:
    """The p-IRT estimate of the mean outcome over every scoring unit of ``units`` from the
    ``outcomes`` of some of them (ids not in the bank are ignored), with its 95 % interval
    widened by ``widen``."""
    index = {uid: k for k, uid in enumerate(units.ids)}
    seen = np.array([index[u] for u in outcomes if u in index], dtype=int)
    y = np.array([float(outcomes[units.ids[k]]) for k in seen])
    found = ability(units.a[seen], units.d[seen], y)
    rest = np.setdiff1d(np.arange(len(units.ids)), seen)
    p = prob(units.a[rest], units.d[rest], GRID)
    mean_q = float(y.sum()) + p.sum(axis=0)
    var_q = np.maximum((p * (1.0 - p)).sum(axis=0), 1e-9)
    w = found.weights
    total = len(units.ids)
    centre = float(w @ mean_q)
    xs = np.linspace(0.0, float(total), 2001)
    cdf = (w[None, :] * _normal_cdf((xs[:, None] - mean_q[None, :]) / np.sqrt(var_q)[None, :])
           ).sum(axis=1)
    low = float(xs[min(int(np.searchsorted(cdf, 0.025)), len(xs) - 1)])
    high = float(xs[min(int(np.searchsorted(cdf, 0.975)), len(xs) - 1)])
    low, high = centre - widen * (centre - low), centre + widen * (high - centre)
    scale = 100.0 / total
    return Estimate(centre * scale, max(0.0, low * scale), min(100.0, high * scale),
                    found.mean, found.sd, len(seen), total)
