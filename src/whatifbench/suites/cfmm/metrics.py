"""CFMM metrics (§3.4): acc_b, acc_c, acc+ overall and per category, the total scores (sums
over the categories, max 100 per category), and Observation 1's statistics: the phi correlation
of basic and counterfactual correctness, and how often a counterfactual error picks the basic
question's answer. All accuracies are percentages; 95 % intervals over pairs (Wilson, Newcombe
for the drop, MOVER for the totals: ``metrics.intervals``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from whatifbench.core.item import Item
from whatifbench.core.suite import Sample
from whatifbench.metrics import intervals
from whatifbench.metrics.paired import pair_table, paired_metrics
from whatifbench.metrics.stats import percent, phi
from whatifbench.suites.cfmm.pairs import complete_pairs, ordered_categories
from whatifbench.suites.cfmm.schema import ROLES

NAMES = ("acc_b", "acc_c")
SCORES = ("acc_b", "acc_c", "acc_plus")


def _paired(samples: Sequence[Sample]) -> dict[str, Any]:
    """``paired_metrics`` for basic/counterfactual with pair accuracy named ``acc_plus``."""
    raw = paired_metrics(samples, roles=ROLES, names=NAMES)
    raw["acc_plus"] = raw.pop("pair_accuracy")
    if "ci95" in raw:
        raw["ci95"]["acc_plus"] = raw["ci95"].pop("pair_accuracy")
        raw["ci95_method"]["acc_plus"] = raw["ci95_method"].pop("pair_accuracy")
    table = pair_table(samples, ROLES)
    raw["phi"] = phi(table.first.tolist(), table.second.tolist())
    order = (*SCORES, "drop", "phi", "unparsed", "n_pairs", "n_items", "n_unparsed", "n_errors")
    return {**{key: raw.pop(key) for key in order}, **raw}


def chose_basic(samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
    """Counterfactual errors that picked the basic question's answer (Observation 1).

    Only where that carries information: counterfactual questions with more than two options
    (or free-form ones) whose basic answer differs from the counterfactual answer and, for
    choices, is one of the options. With two options one of which is the basic answer, a wrong
    (parsed) answer is the basic one by construction, so the share would be 100 % for every
    model: those errors are counted in ``n_cf_errors_two_options``; errors on questions whose
    options do not include the basic answer cannot pick it (``n_cf_errors_basic_not_offered``).
    Unparsed replies and failed requests are errors that did not pick it. ``cf_questions``
    counts the dataset's counterfactual questions of each kind (what the tables' note says).
    """
    by_id = {s.item_id: s for s in samples}
    errors = picked = two_options = not_offered = 0
    kinds = {"informative": 0, "two_options_with_basic": 0, "basic_not_offered": 0,
             "same_answer": 0}
    for basic, cf in complete_pairs(items):
        kind = _cf_kind(basic, cf)
        kinds[kind] += 1
        s = by_id.get(cf.id)
        if s is None or basic.id not in by_id or s.correct:
            continue
        if kind == "two_options_with_basic":
            two_options += 1
        elif kind == "basic_not_offered":
            not_offered += 1
        elif kind == "informative":
            errors += 1
            picked += s.prediction == basic.target
    return {"cf_errors_chose_basic": percent(picked, errors) if errors else None,
            "n_cf_errors_considered": errors, "n_cf_errors_two_options": two_options,
            "n_cf_errors_basic_not_offered": not_offered, "cf_questions": kinds}


def _cf_kind(basic: Item, cf: Item) -> str:
    """Whether a counterfactual error can tell if the basic answer was repeated."""
    if basic.target == cf.target:
        return "same_answer"
    if cf.kind == "choice" and basic.target not in cf.choices:
        return "basic_not_offered"
    if cf.kind == "choice" and len(cf.choices) <= 2:
        return "two_options_with_basic"
    return "informative"


def total_scores(by_category: dict[str, dict[str, Any]],
                 pairs: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, Any]:
    """The paper's Table 3 "Total score": per-category percentages summed over the categories
    present (as displayed, 2 decimals), max 100 per category; with a 95 % interval (MOVER sum
    of the categories' Wilson intervals over their complete pairs; the categories are
    independent)."""
    out: dict[str, Any] = {name: _total([m[name] for m in by_category.values()])
                           for name in SCORES}
    out["categories"] = len(by_category)
    out["max"] = 100 * len(by_category)
    if pairs and all(len(a) for a, _ in pairs.values()):
        counts = {"acc_b": [(int(a.sum()), len(a)) for a, _ in pairs.values()],
                  "acc_c": [(int(b.sum()), len(b)) for _, b in pairs.values()],
                  "acc_plus": [(int((a & b).sum()), len(a)) for a, b in pairs.values()]}
        out["ci95"] = {name: intervals.sum_of_shares(counts[name]) for name in SCORES}
        out["ci95_method"] = dict.fromkeys(SCORES, intervals.MOVER_SUM)
    return out


def _total(values: Sequence[float | None]) -> float | None:
    """The sum of per-category percentages; none when a category has no value for it (a
    total over fewer categories than it names would read as a low score)."""
    if not values or any(v is None for v in values):
        return None
    return round(sum(v for v in values if v is not None), 2)


def cfmm_metrics(samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
    """The run's metrics for ``results.json``."""
    out = _paired(samples)
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.group or "", []).append(s)
    by_category: dict[str, dict[str, Any]] = {}
    pairs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for cat in ordered_categories(groups):
        m = _paired(groups[cat])
        by_category[cat] = {key: m[key] for key in (*SCORES, "drop", "phi", "n_pairs",
                                                    "n_by_role", "ci95", "ci95_method")
                            if key in m}
        table = pair_table(groups[cat], ROLES)
        pairs[cat] = (table.first, table.second)
    out["by_category"] = by_category
    out["total"] = total_scores(by_category, pairs)
    out.update(chose_basic(samples, items))
    return out
