"""Budget estimates (``whatif run --budget``) on simulated models like and unlike the bank's.

The units are ``units`` questions in six templates, a quarter of them counterfactual; a unit's
difficulty b is N(0, 1.5) and its discrimination a is LN(0.3, 0.4) (items that spread over
difficulty as benchmark items do; docs/statistics.md gives the figures for a narrower spread
too). A model of ability θ knows a unit with probability σ(a(θ − b)) and otherwise guesses one
of four options. The bank is fitted (``fit_2pl``) on ``bank_runs`` models with θ ~ N(0, 1).
Target models (``TARGETS``):

- ``bank-like``: θ ~ N(0, 1), as the bank's;
- ``better``: θ above every bank model's (the best one's plus 0.5–1.5);
- ``chance``: guesses every unit;
- ``specialist``: knows one template's units (θ = 3 there), guesses the rest;
- ``believe-your-eyes``: a bank-like model that answers every counterfactual unit with what
  it sees (wrong 90 % of the time).

Each target's estimate from ``budget`` units is compared with its own full score (the mean of
its outcomes on every unit), for every method, with a random sample of the same size as the
baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from whatifbench.analysis.items.estimate import Units, design, draw
from whatifbench.analysis.items.irt import fit_2pl
from whatifbench.runner.budget import METHODS

TARGETS = ("bank-like", "better", "chance", "specialist", "believe-your-eyes")
"""The kinds of target model."""
TEMPLATES = 6
"""Templates the units fall in."""
GUESS = 0.25
"""Chance of a guess being right."""


@dataclass(frozen=True)
class World:
    """Units, their true parameters, and the bank fitted on simulated runs."""

    a: np.ndarray
    """True discrimination."""
    b: np.ndarray
    """True difficulty."""
    template: np.ndarray
    """Template of each unit."""
    counterfactual: np.ndarray
    """Whether a unit is a counterfactual question."""
    bank: Units
    """The fitted bank."""
    best: float
    """The highest ability among the bank's models."""
    guess: float
    """Chance that a model that does not know a unit gets it right anyway (0: the bank's own
    2PL)."""


def world(units: int = 600, bank_runs: int = 50, seed: int = 0, spread: float = 1.5,
          guess: float = 0.0) -> World:
    """Units and a bank fitted on ``bank_runs`` simulated runs."""
    rng = np.random.default_rng(seed)
    a = np.exp(rng.normal(0.3, 0.4, size=units))
    b = rng.normal(0.0, spread, size=units)
    template = rng.integers(0, TEMPLATES, size=units)
    cf = rng.random(units) < 0.25
    theta = rng.normal(0.0, 1.0, size=bank_runs)
    y = np.array([_answers(rng, a, b, t, guess) for t in theta])
    fit = fit_2pl(y, np.ones_like(y, dtype=bool))
    ids = tuple(f"u{k}" for k in range(units))
    bank = Units(ids, fit.a, fit.d, ids, dict.fromkeys(ids, 1))
    return World(a, b, template, cf, bank, float(theta.max()), guess)


def _answers(rng: np.random.Generator, a: np.ndarray, b: np.ndarray,
             theta: float | np.ndarray, guess: float) -> np.ndarray:
    know = rng.random(len(a)) < 1.0 / (1.0 + np.exp(-a * (theta - b)))
    return (know | (rng.random(len(a)) < guess)).astype(int)


def target(w: World, kind: str, rng: np.random.Generator) -> np.ndarray:
    """One target model's outcome on every unit."""
    if kind == "bank-like":
        return _answers(rng, w.a, w.b, rng.normal(0.0, 1.0), w.guess)
    if kind == "better":
        return _answers(rng, w.a, w.b, w.best + rng.uniform(0.5, 1.5), w.guess)
    if kind == "chance":
        return (rng.random(len(w.a)) < GUESS).astype(int)
    if kind == "specialist":
        strong = w.template == rng.integers(0, TEMPLATES)
        return np.where(strong, _answers(rng, w.a, w.b, 3.0, w.guess),
                        (rng.random(len(w.a)) < GUESS).astype(int))
    if kind == "believe-your-eyes":
        seen = _answers(rng, w.a, w.b, rng.normal(0.0, 1.0), w.guess)
        return np.where(w.counterfactual, (rng.random(len(w.a)) < 0.1).astype(int), seen)
    raise ValueError(f"unknown target {kind!r}; one of {', '.join(TARGETS)}")


@dataclass(frozen=True)
class BudgetFigures:
    """One method's estimates for one kind of target at one budget."""

    kind: str
    """The target kind."""
    method: str
    """The method."""
    budget: int
    """Units asked."""
    models: int
    """Target models estimated."""
    mean_error: float
    """Mean absolute error against the full score (points)."""
    coverage: float
    """Share of 95 % intervals that hold the full score."""
    mean_width: float
    """Mean interval width (points)."""
    misfit: float
    """Share of models said to fit the bank badly."""


def measure(w: World, kind: str, budget: int, models: int, seed: int = 0,
            methods: Sequence[str] = METHODS) -> list[BudgetFigures]:
    """Every method's figures over ``models`` targets of ``kind`` (the same targets for each
    method)."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list[tuple[float, bool, float, bool]]] = {m: [] for m in methods}
    for k in range(models):
        y = target(w, kind, rng)
        full = 100.0 * float(y.mean())
        outcomes = {uid: bool(v) for uid, v in zip(w.bank.ids, y, strict=True)}

        def answer(chosen: Sequence[str], mine: dict[str, bool] = outcomes
                   ) -> dict[str, bool]:
            return {u: mine[u] for u in chosen}

        for method in methods:
            found = draw(w.bank, budget, method, answer, seed=seed * 100_000 + k)
            rows[method].append((abs(found.value - full), found.low <= full <= found.high,
                                 found.high - found.low, found.misfit))
    return [BudgetFigures(kind, m, budget, models,
                          float(np.mean([r[0] for r in rows[m]])),
                          float(np.mean([r[1] for r in rows[m]])),
                          float(np.mean([r[2] for r in rows[m]])),
                          float(np.mean([r[3] for r in rows[m]]))) for m in methods]


def exact_ratio(w: World, kind: str, budget: int, models: int, seed: int = 0) -> float:
    """The stratified design's root mean squared error over a random sample's, from each
    target's exact design variance (no draw: the comparison carries no simulation noise),
    over ``models`` targets of ``kind``."""
    rng = np.random.default_rng(seed)
    index = {u: k for k, u in enumerate(w.bank.ids)}
    plan = design(w.bank, budget, "stratified", seed=0)
    strata = [(np.array([index[u] for u in s.population]), len(s.asked)) for s in plan]
    total = len(w.bank.ids)
    n = sum(k for _, k in strata)
    stratified = random = 0.0
    for _ in range(models):
        y = target(w, kind, rng).astype(float)
        random += total ** 2 * (1 - n / total) * float(y.var(ddof=1)) / n
        stratified += sum(len(s) ** 2 * (1 - k / len(s)) * float(y[s].var(ddof=1)) / k
                          for s, k in strata)
    return float(np.sqrt(stratified / random))
