"""The 2PL fit, the design and its estimate (``analysis.items.irt``, ``estimate``, ``bank``) on
simulated respondents whose true parameters are known."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from whatifbench.analysis.items.bank import check_bank, fit_bank, load_bank
from whatifbench.analysis.items.estimate import Stratum, Units, design, draw, estimate
from whatifbench.analysis.items.irt import ability, fit_2pl, prob
from whatifbench.errors import WhatifError


def simulate(n: int, k: int, seed: int = 0, spread: float = 1.0
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.0, 0.5, k)
    d = -a * rng.normal(0.0, spread, k)
    theta = rng.normal(0.0, 1.0, n)
    y = (rng.random((n, k)) < prob(a, d, theta).T).astype(int)
    return a, d, theta, y


def test_fit_recovers_known_parameters_with_missing_cells() -> None:
    a, d, theta, y = simulate(300, 150)
    observed = np.random.default_rng(1).random(y.shape) > 0.1
    fit = fit_2pl(y, observed)
    assert fit.converged
    assert np.corrcoef(fit.a, a)[0, 1] > 0.85
    assert np.corrcoef(fit.d, d)[0, 1] > 0.95
    assert np.corrcoef(fit.theta, theta)[0, 1] > 0.95
    again = fit_2pl(y, observed)  # deterministic
    assert np.array_equal(again.a, fit.a) and np.array_equal(again.d, fit.d)


def test_negative_discrimination_shows_as_negative_a() -> None:
    a, d, _, y = simulate(400, 60, seed=2)
    y[:, 0] = 1 - y[:, 0]  # a wrong key: the stronger respondents now get it wrong
    fit = fit_2pl(y, np.ones_like(y, dtype=bool))
    assert fit.a[0] < -0.3 < 0.3 < float(np.median(fit.a))


def test_items_everyone_gets_right_stay_finite() -> None:
    _, _, _, y = simulate(40, 20, seed=3)
    y[:, 0] = 1
    y[:, 1] = 0
    fit = fit_2pl(y, np.ones_like(y, dtype=bool))
    assert np.all(np.isfinite(fit.a)) and np.all(np.isfinite(fit.d))
    assert fit.d[0] > 2 and fit.d[1] < -2


def units_of(a: np.ndarray, d: np.ndarray) -> Units:
    ids = tuple(f"u{k}" for k in range(len(a)))
    return Units(ids, a, d, ids, {u: 1 for u in ids})


def test_estimate_from_every_unit_is_the_score() -> None:
    a, d, _, y = simulate(1, 50, seed=4)
    units = units_of(a, d)
    every = [Stratum(units.ids, units.ids)]
    found = estimate(units, every, {u: bool(v) for u, v in zip(units.ids, y[0], strict=True)},
                     "random")
    # nothing left to estimate: the value is the score and the interval is the point
    assert found.value == pytest.approx(100 * y[0].mean())
    assert found.low == found.high == found.value


def test_design_respects_the_budget_and_estimates_cover() -> None:
    a, d, theta, y = simulate(600, 400, seed=5, spread=1.5)
    fit = fit_2pl(y[:200], np.ones((200, 400), dtype=bool))
    units = units_of(fit.a, fit.d)
    for method in ("stratified", "random"):
        plan = design(units, 40, method, seed=1)
        asked = [u for s in plan for u in s.asked]
        assert len(asked) == 40 == len(set(asked))
        assert sorted(u for s in plan for u in s.population) == sorted(units.ids)
        assert design(units, 40, method, seed=1) == plan  # seeded
    strata = design(units, 40, "stratified", seed=1)
    assert len(strata) == 10 and {len(s.asked) for s in strata} == {4}  # proportional
    errors: dict[str, list[float]] = {"stratified": [], "random": []}
    covered = dict.fromkeys(errors, 0)
    for r in range(200, 600):
        mine = {u: bool(v) for u, v in zip(units.ids, y[r], strict=True)}
        full = 100 * y[r].mean()
        for method in errors:
            found = draw(units, 40, method, lambda c, m=mine: {u: m[u] for u in c}, seed=r)
            assert found.asked == 40 and found.low <= found.value <= found.high
            covered[method] += found.low <= full <= found.high
            errors[method].append(abs(found.value - full))
    # honest coverage for both; the bank's strata help a model like the bank's (items whose
    # difficulty spreads as benchmark items' do: docs/statistics.md)
    assert min(covered.values()) >= 0.92 * 400
    assert np.mean(errors["stratified"]) < 0.9 * np.mean(errors["random"])


def test_ability_moves_with_answers() -> None:
    a, d = np.ones(10), np.zeros(10)
    assert ability(a, d, np.ones(10)).mean > 1 > -1 > ability(a, d, np.zeros(10)).mean


def test_bank_round_trip_and_refusals(tmp_path: Path) -> None:
    _, _, _, y = simulate(30, 12, seed=6)
    units = [(f"u{k}", f"p{k // 2}", (f"p{k // 2}-a", f"p{k // 2}-b")) for k in range(12)]
    bank = fit_bank(y, np.ones_like(y, dtype=bool), units,
                    {"name": "sim", "items_sha256": "abc"}, "questions", "accuracy")
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(bank.to_json()), encoding="utf-8")
    loaded = load_bank(path)
    assert [u.id for u in loaded.units] == [u[0] for u in units]
    assert loaded.arrays().cost == {f"p{k}": 2 for k in range(6)}
    check_bank(loaded, path, "abc", "here")
    with pytest.raises(WhatifError, match="was fitted on the dataset 'sim'"):
        check_bank(loaded, path, "def", "there")
    broken = bank.to_json()
    broken["units"][0]["a"] = "x"
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(WhatifError, match=r'bank.json:1: field units\[0\]\.a is "x", not a number'):
        load_bank(path)
    path.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(WhatifError, match="not valid JSON.*It is not a JSON file"):
        load_bank(path)
