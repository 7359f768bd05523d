"""Pair rules: how often a counterfactual answer follows from its original's by a fixed rule.

When it does, a model that perceives the original and applies the rule answers the
counterfactual without imagining anything; counterfactual accuracy then mostly measures
perception of the original. The rules (reported, never flagged):

- ``equal``: the counterfactual answer is the original's;
- ``negation``: both are yes/no and differ, or both items offer the same two options and the
  counterfactual answer is the other one (CFMM's "above"/"below", "left"/"right");
- ``plus/minus``: both are numbers and differ by a number the counterfactual question names
  ("if 3 more people came"), in either direction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from whatifbench.analysis.audit.text import (
    answer_number,
    normal,
    question_numbers,
    strip_listing,
    tokens,
)
from whatifbench.core.item import Item
from whatifbench.metrics.stats import percent

FIRST_ROLES = ("original", "basic")
RULES = ("equal", "negation", "plus/minus")


def rules_holding(first: Item, second: Item) -> list[str]:
    """The rules by which ``second``'s (the counterfactual's) answer follows from ``first``'s."""
    a, b = normal(first.target), normal(second.target)
    held = []
    if a == b:
        held.append("equal")
    two = {normal(c) for c in first.choices}
    if {a, b} == {"yes", "no"} or (a != b and len(two) == 2
                                    and two == {normal(c) for c in second.choices}):
        held.append("negation")
    x, y = answer_number(a), answer_number(b)
    if x is not None and y is not None and x != y:
        named = question_numbers(tokens(strip_listing(second.question, second.choices)))
        if any(n and abs(y - x) == n for n in named):
            held.append("plus/minus")
    return held


def rule_shares(counts: Counter[str], total: int) -> dict[str, Any]:
    """Per rule the pairs it holds for (count and percent of ``total``), and the best rule: the
    share a model reaches that perceives the original and applies that one rule (any two
    answers of a yes/no pair are equal or negated, so their sum says nothing)."""
    out: dict[str, Any] = {rule: {"pairs": counts[rule], "percent": percent(counts[rule], total)}
                           for rule in RULES}
    best = max(RULES, key=lambda rule: (counts[rule], -RULES.index(rule)))
    out["best"] = {"rule": best if counts[best] else None, **out[best]}
    return out


def pair_rules(items: Sequence[Item]) -> dict[str, Any]:
    """Pair diagnostics of a dataset: over original/counterfactual (or basic/counterfactual)
    pairs, how often each rule holds and the best single rule, overall and per group."""
    by_pair: dict[str, dict[str, Item]] = {}
    for item in items:
        if item.pair_id is not None and item.role is not None:
            by_pair.setdefault(item.pair_id, {})[item.role] = item
    total = 0
    overall: Counter[str] = Counter()
    groups: dict[str, Counter[str]] = {}
    sizes: Counter[str] = Counter()
    for pair_id in sorted(by_pair):
        roles = by_pair[pair_id]
        first = next((roles[r] for r in FIRST_ROLES if r in roles), None)
        second = roles.get("counterfactual")
        if first is None or second is None:
            continue
        held = rules_holding(first, second)
        group = second.group or first.group or ""
        total += 1
        sizes[group] += 1
        counts = groups.setdefault(group, Counter())
        for rule in held:
            overall[rule] += 1
            counts[rule] += 1
    return {
        "pairs": total,
        "rules": rule_shares(overall, total),
        "by_group": [{"group": g, "pairs": sizes[g], "rules": rule_shares(groups[g], sizes[g])}
                     for g in sorted(groups)],
    }
