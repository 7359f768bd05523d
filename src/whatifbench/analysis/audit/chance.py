"""Chance accuracy: what guessing scores on a set of items, with no image and no text read.

A closed item (options, or yes/no) is guessed right with probability 1/K. An open item (a number
or free text without options) has no 1/K; its chance is the majority answer's share: how often
always giving the most common target among the open items of its kind (in the set considered)
would be right. The audit (blind baselines per slice) and the reports' reference rows use this
one definition."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from whatifbench.core.item import Item


def item_chance(item: Item) -> float | None:
    """1/K for an item with K options, 1/2 for yes/no, ``None`` for an open item."""
    if item.choices:
        return 1.0 / len(item.choices)
    if item.kind == "yes-no":
        return 0.5
    return None


def chance_per_item(items: Iterable[Item]) -> list[float]:
    """The chance of each item, open items taking the majority share of their kind among
    ``items``."""
    items = list(items)
    targets: dict[str, Counter[str]] = {}
    for item in items:
        if item_chance(item) is None:
            targets.setdefault(item.kind, Counter())[item.target.strip().lower()] += 1
    majority = {kind: counts.most_common(1)[0][1] / sum(counts.values())
                for kind, counts in targets.items()}
    out = []
    for item in items:
        closed = item_chance(item)
        out.append(majority[item.kind] if closed is None else closed)
    return out


def chance_accuracy(items: Iterable[Item]) -> float:
    """Expected accuracy of guessing over ``items`` (a fraction; 0 for no items)."""
    values = chance_per_item(items)
    return sum(values) / len(values) if values else 0.0
