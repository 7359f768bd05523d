"""Paired accuracy: two questions about the same image (original/basic and counterfactual); and
paired comparisons: two models (or one model with and without its images) on the same items."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from whatifbench.core.suite import Sample
from whatifbench.metrics.stats import bootstrap_ci, mcnemar_exact, percent, recorded_p


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

    All accuracies are percentages. With ``with_stats``: 95 % bootstrap intervals over pairs and
    the exact McNemar p-value of the drop.
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
        a = table.first.astype(float)
        b = table.second.astype(float)
        out["ci95"] = {
            names[0]: bootstrap_ci([a], lambda x: 100 * x.mean(axis=1)),
            names[1]: bootstrap_ci([b], lambda x: 100 * x.mean(axis=1)),
            "drop": bootstrap_ci([a, b], lambda x, y: 100 * (x.mean(axis=1) - y.mean(axis=1))),
            "pair_accuracy": bootstrap_ci([a * b], lambda x: 100 * x.mean(axis=1)),
        }
        out["drop_mcnemar_p"] = round(mcnemar_exact(
            int(np.sum(table.first & ~table.second)), int(np.sum(~table.first & table.second))
        ), 6)
    return out


def by_group(samples: Sequence[Sample], **kwargs: Any) -> dict[str, dict[str, Any]]:
    """``paired_metrics`` per group, groups in sorted order."""
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.group or "", []).append(s)
    return {g: paired_metrics(groups[g], **kwargs) for g in sorted(groups)}


def compare(a: Sequence[bool], b: Sequence[bool], units: Sequence[str]) -> dict[str, Any]:
    """Two models' correctness on the same items (``a[i]``, ``b[i]``: item i right): their
    accuracies (%), the difference A − B (points) with a 95 % paired bootstrap interval that
    resamples ``units`` (an item's pair, so that the questions of a pair stay together), the
    discordant counts and the exact McNemar p-value over items."""
    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    index: dict[str, int] = {}
    cluster = np.array([index.setdefault(u, len(index)) for u in units], dtype=int)
    hits_a = np.bincount(cluster, weights=x, minlength=len(index))
    hits_b = np.bincount(cluster, weights=y, minlength=len(index))
    sizes = np.bincount(cluster, minlength=len(index)).astype(float)
    only_a, only_b = int(np.sum(x & ~y)), int(np.sum(~x & y))
    n = len(x)
    if len(set(sizes.tolist())) == 1:  # pairs of one size: one column to resample, not three
        total = float(sizes.sum())
        ci = bootstrap_ci([(hits_a - hits_b).astype(np.int8)],
                          lambda d: 100 * d.sum(axis=-1) / total)
    else:
        ci = bootstrap_ci([hits_a, hits_b, sizes], difference_statistic)
    return {
        "n_items": n, "n_units": len(index),
        "accuracy_a": percent(int(x.sum()), n), "accuracy_b": percent(int(y.sum()), n),
        "difference": round(100.0 * (int(x.sum()) - int(y.sum())) / n, 2) if n else None,
        "ci95": list(ci),
        "a_only": only_a, "b_only": only_b,
        "mcnemar_p": recorded_p(mcnemar_exact(only_a, only_b)),
    }


def difference_statistic(hits_a: np.ndarray, hits_b: np.ndarray, sizes: np.ndarray
                         ) -> np.ndarray:
    """Per resample (rows of resampled units): 100 × (A's hits − B's hits) / items."""
    return 100 * (hits_a.sum(axis=-1) - hits_b.sum(axis=-1)) / sizes.sum(axis=-1)
