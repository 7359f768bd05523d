"""Pair records → items, and the pair facts every CFMM card reports (importer and generator)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.metrics.stats import percent
from whatifbench.suites.cfmm.schema import CATEGORIES, ROLES, PairRecord

ROLE_SUFFIX = {"basic": "b", "counterfactual": "c"}
"""Item id = ``<pair id>-<suffix>``."""


def pair_items(record: PairRecord, image: str, provenance: dict[str, Any]) -> tuple[Item, Item]:
    """The basic and the counterfactual item of a record (``image``: dataset-relative path).

    Each item's provenance is ``provenance`` plus its question's ``explanation`` when known.
    """
    items = []
    for role in ROLES:
        q = record.question(role)
        prov = dict(provenance)
        if q.explanation:
            prov["explanation"] = q.explanation
        items.append(Item(
            id=f"{record.id}-{ROLE_SUFFIX[role]}", images=(image,), question=q.text,
            kind="choice", target=q.answer, choices=q.options, pair_id=record.id, role=role,
            group=record.category, meta={"category": record.category}, provenance=prov,
        ))
    return items[0], items[1]


def complete_pairs(items: Iterable[Item]) -> list[tuple[Item, Item]]:
    """(basic, counterfactual) items of every pair that has both, in first-seen order."""
    found: dict[str, dict[str, Item]] = {}
    for item in items:
        if item.pair_id is not None and item.role in ROLES:
            found.setdefault(item.pair_id, {})[item.role] = item
    return [(p["basic"], p["counterfactual"]) for p in found.values()
            if "basic" in p and "counterfactual" in p]


def ordered_categories(names: Iterable[str]) -> list[str]:
    """The paper's categories first in its order, then any others sorted."""
    names = set(names)
    return [c for c in CATEGORIES if c in names] + sorted(names - set(CATEGORIES))


def pair_facts(items: Sequence[Item]) -> dict[str, Any]:
    """Card facts: pairs per category, the share of pairs whose counterfactual answer differs
    from the basic one, the share whose basic answer is a counterfactual option, and how often
    the correct answer is option A / B (percent)."""
    pairs = complete_pairs(items)
    by_category: dict[str, int] = {}
    for basic, _ in pairs:
        by_category[basic.group or ""] = by_category.get(basic.group or "", 0) + 1
    changed = sum(b.target != c.target for b, c in pairs)
    offered = sum(b.target in c.choices for b, c in pairs)
    choice_items = [i for i in items if i.kind == "choice" and len(i.choices) == 2]
    first = sum(i.target_index == 0 for i in choice_items)
    return {
        "pairs_by_category": {c: by_category[c] for c in ordered_categories(by_category)},
        "answer_changed_percent": percent(changed, len(pairs)),
        "basic_answer_offered_percent": percent(offered, len(pairs)),
        "correct_option_percent": {"A": percent(first, len(choice_items)),
                                   "B": percent(len(choice_items) - first, len(choice_items))},
    }
