"""Paired metrics and statistics on hand-computed examples."""

from __future__ import annotations

import pytest

from whatifbench.core.suite import Sample
from whatifbench.metrics import intervals
from whatifbench.metrics.paired import by_group, paired_metrics
from whatifbench.metrics.stats import mcnemar_exact, phi, wilson_ci


def s(pair: str, role: str, correct: bool, group: str = "g", unparsed: bool = False) -> Sample:
    return Sample(f"{pair}-{role}", pair, role, group, "q", "q", "1", "x", None,
                  None if unparsed else "1", correct, unparsed, None, None)


def test_paired_metrics_by_hand() -> None:
    # pairs: (orig, cf) = (T,T) (T,F) (T,F) (F,T) ; plus an original whose partner is missing
    samples = [s("a", "original", True), s("a", "counterfactual", True),
               s("b", "original", True), s("b", "counterfactual", False),
               s("c", "original", True), s("c", "counterfactual", False, unparsed=True),
               s("d", "original", False), s("d", "counterfactual", True),
               s("e", "original", True, group="h")]
    m = paired_metrics(samples)
    assert m["original_accuracy"] == 80.0          # 4 of 5 originals
    assert m["counterfactual_accuracy"] == 50.0    # 2 of 4
    assert m["drop"] == 30.0
    assert m["pair_accuracy"] == 25.0              # 1 of 4 complete pairs
    assert m["n_pairs"] == 4 and m["n_unparsed"] == 1
    assert m["unparsed"] == round(100 / 9, 2)
    assert m["drop_mcnemar_p"] == pytest.approx(1.0)  # discordant 2 vs 1
    # Wilson over each role's questions and the complete pairs; Newcombe over the pairs
    assert m["ci95"]["pair_accuracy"] == intervals.share(1, 4) == (4.56, 69.94)
    assert m["ci95"]["original_accuracy"] == intervals.share(4, 5)
    assert m["ci95"]["drop"] == intervals.paired_difference(1, 2, 1, 0)
    assert m["ci95_method"] == {"original_accuracy": "wilson", "counterfactual_accuracy":
                                "wilson", "drop": "newcombe-paired", "pair_accuracy": "wilson"}
    groups = by_group(samples, with_stats=False)
    assert list(groups) == ["g", "h"] and groups["h"]["n_pairs"] == 0
    assert "ci95" not in groups["g"]


def test_basic_role_names() -> None:
    samples = [s("a", "basic", True), s("a", "counterfactual", False)]
    m = paired_metrics(samples, roles=("basic", "counterfactual"), names=("acc_b", "acc_c"))
    assert (m["acc_b"], m["acc_c"], m["pair_accuracy"]) == (100.0, 0.0, 0.0)


def test_statistics() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 * 0.5**10)
    assert wilson_ci(0, 0) == (0.0, 0.0)
    lo, hi = wilson_ci(50, 100)
    assert lo == pytest.approx(40.38, abs=0.01) and hi == pytest.approx(59.62, abs=0.01)
    assert phi([True, False, True, False], [True, False, True, False]) == 1.0
    assert phi([True, False, True, False], [False, True, False, True]) == -1.0
    assert phi([True, True], [True, False]) is None
    assert wilson_ci(6, 6) == intervals.share(6, 6) == (60.97, 100.0)
