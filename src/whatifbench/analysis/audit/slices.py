"""Slices: blind accuracy beside chance for each value of a key (template, category, task type,
role, group, or any ``meta`` key), with a 95 % interval and the test behind the flag (``flags``:
the flag itself is set over the whole audit, Holm-corrected)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from whatifbench.analysis.audit.chance import chance_per_item
from whatifbench.analysis.audit.flags import scored_entry
from whatifbench.core.item import Item
from whatifbench.core.slices import ITEM_KEYS, natural_order, slice_value
from whatifbench.errors import WhatifError

DEFAULT_KEYS = ("template", "category", "task_type", "type", "group", "role")
"""Keys sliced by default, when the items have them; a key that splits the items exactly as an
earlier one does (C-VQA-Synthetic's group and template) is shown once."""
def available_keys(items: Sequence[Item]) -> list[str]:
    """Every key the items can be sliced by: item fields and ``meta`` keys."""
    keys = {k for k in ITEM_KEYS if any(getattr(i, k) is not None for i in items)}
    keys.update(k for i in items for k in i.meta)
    return sorted(keys)


def check_keys(items: Sequence[Item], keys: Sequence[str], source: str) -> None:
    """Refuse a ``--by`` key that no item has, naming the keys there are."""
    known = available_keys(items)
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise WhatifError(
            f"No item of {source} has the key {unknown[0]!r} to slice by. Pass --by one of: "
            f"{', '.join(known)}.")


def _groups(items: Sequence[Item], key: str) -> dict[str, list[int]]:
    """The indexes of the items with each value of ``key`` (items without one left out)."""
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        value = slice_value(item, key)
        if value is not None:
            groups.setdefault(value, []).append(index)
    return groups


def _partition(items: Sequence[Item], key: str) -> tuple[tuple[int, ...], ...]:
    """The items grouped by their value of ``key`` (as index tuples, for comparing keys)."""
    return tuple(sorted(tuple(g) for g in _groups(items, key).values()))


def slice_keys(items: Sequence[Item], extra: Sequence[str] = ()) -> list[str]:
    """The default keys the items have (each partition once, a single value left out), then the
    ``extra`` keys asked for."""
    chosen: list[str] = []
    seen: set[tuple[tuple[int, ...], ...]] = set()
    for key in DEFAULT_KEYS:
        parts = _partition(items, key)
        if len(parts) > 1 and parts not in seen:
            chosen.append(key)
            seen.add(parts)
    return chosen + [k for k in extra if k not in chosen]


def summary(items: Sequence[Item], right: np.ndarray) -> dict[str, Any]:
    """n, blind accuracy, chance, 95 % interval and the test (``hits``, ``p``, ``null``) of a
    set of items (percent); ``flagged`` is set by ``flags.apply_flags`` over the whole audit."""
    entry = scored_entry(right, chance_per_item(items))
    return {"n": entry["n"], "blind": entry["accuracy"], "chance": entry["chance"],
            "interval": entry["interval"], "hits": entry["hits"], "p": entry["p"],
            "null": entry["null"], "flagged": False}


def slices(items: Sequence[Item], right: np.ndarray, keys: Sequence[str]) -> list[dict[str, Any]]:
    """One entry per (key, value): ``key``, ``value`` and the ``summary`` fields."""
    out = []
    for key in keys:
        groups = _groups(items, key)
        for value in sorted(groups, key=natural_order):
            members = groups[value]
            entry = summary([items[i] for i in members], right[members])
            out.append({"key": key, "value": value, **entry})
    return out
