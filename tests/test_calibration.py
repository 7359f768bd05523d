"""A reduced calibration bench (bench/bench_calibration.py prints the full one for
docs/statistics.md): a change that breaks the coverage of an interval, the size of a paired test,
the precision of the key flags or the coverage of a budget estimate fails here. Thresholds are
the issue's where the computation is exact, a little looser where fewer simulated runs than the
bench's make the figure noisier."""

from __future__ import annotations

import numpy as np
import pytest

from whatifbench.analysis.calibration import budgets, coverage, keyflags
from whatifbench.analysis.items import precision
from whatifbench.metrics import intervals


@pytest.mark.parametrize("n", [5, 10, 30])
def test_share_intervals_cover_at_every_n(n: int) -> None:
    found = coverage.shares(n)
    assert 0.94 <= found.mean <= 0.97
    assert found.minimum >= (0.89 if n <= 10 else 0.92)
    assert found.zero_width == 0


@pytest.mark.parametrize("n", [5, 10, 30])
def test_paired_difference_intervals_cover_at_every_n(n: int) -> None:
    found = coverage.paired(n)
    assert 0.94 <= found.mean <= 0.97
    assert found.minimum >= (0.89 if n <= 10 else 0.92)
    assert found.zero_width == 0


def test_edges_do_not_collapse() -> None:
    low, high = intervals.share(6, 6)
    assert low <= 65 and high == 100.0
    assert intervals.share(0, 10) == (0.0, 27.75)
    low, high = intervals.paired_difference(0, 0, 12, 12)
    assert low < -50.0 < high < 0


def test_the_paired_test_over_pairs_keeps_its_size() -> None:
    found = coverage.paired_test(50, 0.9, sims=400)
    assert found.sign_flip <= 0.075  # nominal 5 %, 400 simulations
    assert found.mcnemar_items > found.sign_flip  # what ignoring the pairs did
    assert found.coverage >= 0.92


@pytest.mark.parametrize("kind", ["shared-distractor", "believe-your-eyes", "weak"])
def test_key_flags_do_not_fire_on_shared_mistakes(kind: str) -> None:
    found = keyflags.measure(kind, 16, [0], pairs=300, planted=30)
    assert max(found.false_clean) <= 6
    assert found.precision is None or found.precision >= 0.8


def test_key_flags_find_planted_keys_among_independent_runs() -> None:
    found = keyflags.measure("independent", 16, [0, 1])
    assert found.recall is not None and found.recall >= 0.75  # 0.8 over the bench's 5 seeds
    assert found.precision is not None and found.precision >= 0.8


def test_key_flags_say_their_measured_precision() -> None:
    shown, sentence = precision.key_flag_note(16)
    assert shown and "simulated populations" in sentence
    first = min(m.runs for m in precision.table())
    shown, sentence = precision.key_flag_note(first - 1)
    assert not shown and f"measured from {first} runs up" in sentence
    # flags are shown exactly where their measured precision reaches 0.8; for runs of usual
    # strength that is every measured count
    for m in precision.table():
        shown, sentence = precision.key_flag_note(m.runs, m.strength)
        reached = m.precision is not None and m.precision >= precision.MIN_PRECISION
        assert shown == reached, sentence
        assert reached or m.strength == "weak"
    assert precision.strength([0.35, 0.33], 0.25) == "weak"
    assert precision.strength([0.63, 0.55], 0.25) == "usual"


@pytest.fixture(scope="module")
def world() -> budgets.World:
    return budgets.world(600, 50, seed=0)


@pytest.mark.parametrize("kind", budgets.TARGETS)
def test_budget_intervals_cover_every_kind_of_model(world: budgets.World, kind: str) -> None:
    rows = {r.method: r for r in budgets.measure(world, kind, 100, 50, seed=3)}
    assert rows["stratified"].coverage >= 0.86  # 0.92 over the bench's 300 models
    assert rows["stratified"].mean_error <= 1.15 * rows["random"].mean_error


def test_the_bank_helps_a_model_like_its_own(world: budgets.World) -> None:
    rows = {r.method: r for r in budgets.measure(world, "bank-like", 100, 80, seed=4)}
    assert rows["stratified"].mean_error < 0.9 * rows["random"].mean_error
    assert np.isfinite(rows["stratified"].mean_width)
