"""The item bank: 2PL parameters of a dataset's scoring units, fitted from stored runs, as a JSON
file that ``whatif run --budget N --bank FILE`` reads.

A bank names the dataset it was fitted on (its items' sha256) and is refused for any other.
Its ``calibration`` says how much the estimate's interval must be widened to cover held-out
respondents' full scores: at fitting time the respondents are split in five folds, a bank is
fitted without each fold, and each held-out respondent's full score is estimated from a budget
of its own answers (both methods); the factor is the root mean square of the standardized
errors, at least 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from whatifbench.analysis.items.estimate import METHODS, Units, adaptive, estimate, stratified
from whatifbench.analysis.items.irt import A_PRIOR, D_PRIOR, fit_2pl
from whatifbench.core.readfile import NotRegularFile, read_text
from whatifbench.errors import WhatifError

FORMAT = "whatifbench-item-bank"
"""The ``format`` field of a bank file."""
VERSION = 1
"""Bank file version."""
FOLDS = 5
"""Folds of respondents for the calibration."""
MIN_COVERAGE = 0.9
"""A held-out respondent enters the calibration when it answered this share of the units."""


@dataclass(frozen=True)
class BankUnit:
    """One scoring unit's parameters."""

    id: str
    """The scoring unit (``Suite.unit_outcomes`` key)."""
    deal: str
    """The dealing unit it is asked in (``Item.unit``: its pair, or the item)."""
    items: tuple[str, ...]
    """The items of that dealing unit (what a budgeted run evaluates)."""
    a: float
    """Discrimination."""
    d: float
    """Intercept (``P = σ(a·θ + d)``)."""
    share_right: float | None
    """Share of the fitting runs that got it right."""


@dataclass(frozen=True)
class Calibration:
    """How far the interval of an estimate must be widened, per method."""

    widen: dict[str, float]
    """Factor per selection method (at least 1)."""
    budget: int
    """The budget (items) the calibration used."""
    respondents: int
    """Held-out respondents it was computed over (0: not enough to calibrate)."""


@dataclass(frozen=True)
class Bank:
    """A dataset's item bank."""

    dataset: dict[str, Any]
    """``name``, ``suite``, ``version`` and ``items_sha256`` of the dataset fitted."""
    scoring_unit: str
    """What a unit is, in words (``Suite.scoring_unit``)."""
    metric: str
    """The metric the mean outcome of all units is (the suite's headline)."""
    units: tuple[BankUnit, ...]
    """Every scoring unit of the dataset."""
    respondents: int
    """Runs (models and people) the bank was fitted on."""
    calibration: Calibration
    """Interval widening."""
    fit: dict[str, Any] = field(default_factory=dict)
    """How it was fitted (model, priors, EM cycles, convergence)."""

    def arrays(self) -> Units:
        """The units as arrays for selection and estimation."""
        cost: dict[str, int] = {}
        for u in self.units:
            cost[u.deal] = len(u.items)
        return Units(tuple(u.id for u in self.units), np.array([u.a for u in self.units]),
                     np.array([u.d for u in self.units]), tuple(u.deal for u in self.units),
                     cost)

    def to_json(self) -> dict[str, Any]:
        """The bank file's object."""
        return {"format": FORMAT, "version": VERSION, "dataset": self.dataset,
                "scoring_unit": self.scoring_unit, "metric": self.metric,
                "respondents": self.respondents, "fit": self.fit,
                "calibration": {"widen": self.calibration.widen,
                                "budget": self.calibration.budget,
                                "respondents": self.calibration.respondents},
                "units": [{"id": u.id, "deal": u.deal, "items": list(u.items),
                           "a": round(u.a, 5), "d": round(u.d, 5),
                           "share_right": u.share_right} for u in self.units]}


def _calibrate(y: np.ndarray, observed: np.ndarray, units: Units, budget: int) -> Calibration:
    """Cross-validated widening factors (see the module docstring)."""
    n = y.shape[0]
    folds = np.arange(n) % FOLDS
    z: dict[str, list[float]] = {m: [] for m in METHODS}
    for fold in range(FOLDS):
        held = np.flatnonzero(folds == fold)
        keep = np.flatnonzero(folds != fold)
        if len(held) == 0 or len(keep) < 2:
            continue
        fit = fit_2pl(y[keep], observed[keep])
        part = Units(units.ids, fit.a, fit.d, units.deal, units.cost)
        for r in held:
            if observed[r].mean() < MIN_COVERAGE:
                continue
            mine = {units.ids[k]: bool(y[r, k]) for k in np.flatnonzero(observed[r])}
            full = 100.0 * float(np.mean(list(mine.values())))
            for method in METHODS:
                if method == "stratified":
                    chosen = stratified(part, budget)
                    outcomes = _asked(part, chosen, mine)
                else:
                    _, outcomes = adaptive(part, budget, partial(_asked, part, answers=mine))
                found = estimate(part, outcomes)
                side = (found.high - found.value) if full >= found.value else (
                    found.value - found.low)
                z[method].append((full - found.value) / max(side / 1.96, 1e-6))
    used = len(z["stratified"])
    widen = {m: round(max(1.0, float(np.sqrt(np.mean(np.square(v))))) if len(v) >= 10
                      else 1.0, 3) for m, v in z.items()}
    return Calibration(widen, budget, used if used >= 10 else 0)


def _asked(units: Units, chosen: Sequence[str], answers: Mapping[str, bool]) -> dict[str, bool]:
    """The outcomes of the scoring units in the ``chosen`` dealing units (those answered)."""
    wanted = set(chosen)
    return {uid: answers[uid] for uid, deal in zip(units.ids, units.deal, strict=True)
            if deal in wanted and uid in answers}


def fit_bank(y: np.ndarray, observed: np.ndarray, units: Sequence[tuple[str, str, tuple[str, ...]]],
             dataset: dict[str, Any], scoring_unit: str, metric: str,
             calibration_budget: int = 100) -> Bank:
    """Fit the bank of a response matrix (respondents × scoring units; ``units``: each
    column's id, dealing unit and that unit's items)."""
    fit = fit_2pl(y, observed)
    cost: dict[str, int] = {}
    for _, deal, items in units:
        cost[deal] = len(items)
    arrays = Units(tuple(u[0] for u in units), fit.a, fit.d, tuple(u[1] for u in units), cost)
    budget = min(calibration_budget, max(1, sum(cost.values()) // 4))
    calibration = _calibrate(y, observed, arrays, budget)
    answered = observed.sum(axis=0)
    right = np.where(observed, y, 0).sum(axis=0)
    bank_units = tuple(
        BankUnit(uid, deal, tuple(items), float(fit.a[k]), float(fit.d[k]),
                 round(float(right[k] / answered[k]), 4) if answered[k] else None)
        for k, (uid, deal, items) in enumerate(units))
    return Bank(dataset, scoring_unit, metric, bank_units, int(y.shape[0]), calibration,
                {"model": "2PL", "method": "marginal maximum likelihood (EM), normal priors",
                 "priors": {"a": list(A_PRIOR), "d": list(D_PRIOR)},
                 "iterations": fit.iterations, "converged": fit.converged})


def load_bank(path: str | Path) -> Bank:
    """Read a bank file, refusing with a sentence anything that is not one."""
    path = Path(path)
    fix = "Write one with 'whatif items DATASET RUN... --bank FILE'."
    try:
        data = json.loads(read_text(path))
    except FileNotFoundError:
        raise WhatifError(f"The item bank {path} does not exist. {fix}") from None
    except NotRegularFile as exc:
        raise WhatifError(f"The item bank {exc}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise WhatifError(f"The item bank {path} is not a JSON file ({exc}). {fix}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise WhatifError(f"{path} is not a whatifbench item bank (no \"format\": \"{FORMAT}\"). "
                          f"{fix}")
    if data.get("version") != VERSION:
        raise WhatifError(f"The item bank {path} has version {data.get('version')!r}; this "
                          f"whatifbench reads version {VERSION}. {fix}")
    try:
        units = tuple(BankUnit(str(u["id"]), str(u["deal"]), tuple(str(i) for i in u["items"]),
                               float(u["a"]), float(u["d"]), u.get("share_right"))
                      for u in data["units"])
        cal = data["calibration"]
        calibration = Calibration({str(k): float(v) for k, v in cal["widen"].items()},
                                  int(cal["budget"]), int(cal["respondents"]))
        bank = Bank(dict(data["dataset"]), str(data["scoring_unit"]), str(data["metric"]),
                    units, int(data["respondents"]), calibration, dict(data.get("fit") or {}))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise WhatifError(f"The item bank {path} lacks or garbles a field ({exc!r}). {fix}") \
            from None
    if not units or not all(np.isfinite([u.a for u in units] + [u.d for u in units])):
        raise WhatifError(f"The item bank {path} has no units, or a parameter that is not a "
                          f"finite number. {fix}")
    return bank


def check_bank(bank: Bank, path: str | Path, items_sha256: str, where: str) -> None:
    """Refuse a bank fitted on another dataset than the one at ``where``."""
    fitted = str(bank.dataset.get("items_sha256"))
    if fitted != items_sha256:
        raise WhatifError(
            f"The item bank {path} was fitted on the dataset {bank.dataset.get('name')!r} "
            f"(items sha256 {fitted[:12]}…), but {where} has items sha256 {items_sha256[:12]}…: "
            "its parameters say nothing about these items. Use the bank of this dataset, or "
            f"fit one with 'whatif items {where} RUN... --bank FILE'.")
