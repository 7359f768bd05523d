"""Slices of a dataset's items: the value an item has for a key (one of its fields, or a
``meta`` key), as the audit, the item analysis and the reports' reference rows compare them."""

from __future__ import annotations

import json
from typing import Any

from whatifbench.core.item import Item

ITEM_KEYS = ("group", "role", "kind")
"""Keys read from the item's fields; every other key is read from ``meta``."""


def slice_value(item: Item, key: str) -> str | None:
    """The item's value for ``key`` as text (``None`` when it has none)."""
    value: Any = getattr(item, key) if key in ITEM_KEYS else item.meta.get(key)
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def natural_order(value: str) -> tuple[int, float, str]:
    """Numbers in numeric order, before text in text order."""
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)
