"""Paired accuracy: two questions about the same image (original/basic and counterfactual); and
paired comparisons: two models (or one model with and without its images) on the same items."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from whatifbench.core.suite import Sample
from whatifbench.metrics import intervals
from whatifbench.metrics.stats import mcnemar_exact, percent, recorded_p


@dataclass(frozen=True)
class PairTable:
    """Correctness of complete pairs plus every item's outcome, for one set of samples."""

    first: np.ndarray
    """Per complete pair: the first role's question was right."""
    second: np.ndarray
    """Per complete pair: the counterfactual question was right."""
    by_role: dict[str, list[Sample]]
    """All samples by role (incomplete pairs included)."""


def pair_table(samples: Sequence[Sample], roles: tuple[str, str]) -> PairTable:
    """Line up samples into pairs by ``pair_id``."""
    first, second = roles
    found: dict[str, dict[str, Sample]] = {}
    by_role: dict[str, list[Sample]] = {first: [], second: []}
    for s in samples:
        if s.role in by_role and s.pair_id is not None:
            found.setdefault(s.pair_id, {})[s.role] = s
            by_role[s.role].append(s)
    complete = [p for p in found.values() if first in p and second in p]
    return PairTable(
        np.array([p[first].correct for p in complete], dtype=bool),
        np.array([p[second].correct for p in complete], dtype=bool),
        by_role,
    )


def paired_metrics(
    samples: Sequence[Sample],
    roles: tuple[str, str] = ("original", "counterfactual"),
    names: tuple[str, str] = ("original_accuracy", "counterfactual_accuracy"),
    with_stats: bool = True,
) -> dict[str, Any]:
    """Accuracy per role, drop (first − second), pair accuracy (both right), unparsed share.

    All accuracies are percentages. With ``with_stats``: 95 % intervals (``ci95``; each
    method in ``ci95_method``, see ``metrics.intervals``): Wilson for the accuracies over each
    role's questions and for pair accuracy over complete pairs, Newcombe's paired interval for
    the drop over complete pairs; and the exact McNemar p-value of the drop.
    """
    table = pair_table(samples, roles)
    first, second = (table.by_role[r] for r in roles)
    hits1, hits2 = sum(bool(s.correct) for s in first), sum(bool(s.correct) for s in second)
    acc1, acc2 = percent(hits1, len(first)), percent(hits2, len(second))
    # not from the rounded accuracies; none unless both roles were answered
    exact = (100.0 * hits1 / len(first) - 100.0 * hits2 / len(second)
             if first and second else None)
    both = table.first & table.second
    all_samples = first + second
    out: dict[str, Any] = {
        names[0]: acc1,
        names[1]: acc2,
        "drop": None if exact is None else round(exact, 2),
        "pair_accuracy": percent(int(both.sum()), len(both)),
        "unparsed": percent(sum(s.unparsed for s in all_samples), len(all_samples)),
        "n_pairs": len(both),
        "n_items": len(all_samples),
        "n_by_role": {roles[0]: len(first), roles[1]: len(second)},
        "n_unparsed": sum(s.unparsed for s in all_samples),
        "n_errors": sum(s.error is not None for s in all_samples),
    }
    if with_stats and len(both):
        only1 = int(np.sum(table.first & ~table.second))
        only2 = int(np.sum(~table.first & table.second))
        out["ci95"] = {
            names[0]: intervals.share(hits1, len(first)),
            names[1]: intervals.share(hits2, len(second)),
            "drop": intervals.paired_difference(int(both.sum()), only1, only2,
                                                len(both) - int(both.sum()) - only1 - only2),
            "pair_accuracy": intervals.share(int(both.sum()), len(both)),
        }
        out["ci95_method"] = {names[0]: intervals.WILSON, names[1]: intervals.WILSON,
                              "drop": intervals.NEWCOMBE_PAIRED,
                              "pair_accuracy": intervals.WILSON}
        out["drop_mcnemar_p"] = round(mcnemar_exact(only1, only2), 6)
    return out


def by_group(samples: Sequence[Sample], **kwargs: Any) -> dict[str, dict[str, Any]]:
    """``paired_metrics`` per group, groups in sorted order."""
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.group or "", []).append(s)
    return {g: paired_metrics(groups[g], **kwargs) for g in sorted(groups)}


def compare(a: Sequence[bool] | np.ndarray, b: Sequence[bool] | np.ndarray,
            units: Sequence[str]) -> dict[str, Any]:
    """Two models' correctness on the same items (``a[i]``, ``b[i]``: item i right): their
    accuracies (%), the difference A − B (points) with a 95 % interval (Newcombe's paired
    interval, shrunk by the design effect when ``units`` group items: an item's pair, so that
    the questions of a pair count together), the discordant counts and the exact two-sided
    p-value of the sign-flip test over units (the exact McNemar test when every unit is one
    item)."""
    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    index: dict[str, int] = {}
    cluster = np.array([index.setdefault(u, len(index)) for u in units], dtype=int)
    only_a, only_b = int(np.sum(x & ~y)), int(np.sum(~x & y))
    n = len(x)
    ci, method = intervals.clustered_difference(x, y, cluster)
    if len(index) == n:
        p, test = mcnemar_exact(only_a, only_b), MCNEMAR
    else:
        diffs = np.bincount(cluster, weights=x.astype(int) - y.astype(int),
                            minlength=len(index)).astype(int)
        p, test = intervals.sign_flip_p(diffs.tolist()), SIGN_FLIP
    return {
        "n_items": n, "n_units": len(index),
        "accuracy_a": percent(int(x.sum()), n), "accuracy_b": percent(int(y.sum()), n),
        "difference": round(100.0 * (int(x.sum()) - int(y.sum())) / n, 2) if n else None,
        "ci95": list(ci) if ci is not None else None, "ci95_method": method,
        "a_only": only_a, "b_only": only_b,
        "mcnemar_p": recorded_p(p), "test": test,
    }


MCNEMAR = "exact McNemar over items"
"""``compare``'s test when every unit is one item."""
SIGN_FLIP = "exact sign-flip over units (clustered McNemar)"
"""``compare``'s test when units hold several items (each unit's difference keeps its sign or
flips it under the null)."""
