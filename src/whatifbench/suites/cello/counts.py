"""Counts of a CELLO item set: per rung, task type, graph type, format and answer position."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from whatifbench.core.item import Item
from whatifbench.suites.cello.causal.tasks import RUNGS, TASKS
from whatifbench.suites.cello.causal.templates import GRAPH_TYPES


def _ordered(counter: Counter[str], order: Iterable[str]) -> dict[str, int]:
    known = [k for k in order if counter[k]]
    return {k: counter[k] for k in [*known, *sorted(set(counter) - set(known))]}


def cello_counts(items: Iterable[Item]) -> dict[str, Any]:
    """Card counts: ``by_rung``, ``by_task``, ``by_graph_type``, ``by_task_graph``,
    ``by_format`` and ``answer_positions`` (per format)."""
    items = list(items)
    meta = [i.meta for i in items]
    positions: dict[str, Counter[str]] = {}
    for item in items:
        fmt = str(item.meta.get("format", ""))
        positions.setdefault(fmt, Counter())[str(item.target_index)] += 1
    return {
        "by_rung": _ordered(Counter(str(m.get("rung")) for m in meta), RUNGS),
        "by_task": _ordered(Counter(str(m.get("task_type")) for m in meta), TASKS),
        "by_graph_type": _ordered(Counter(str(m.get("graph_type")) for m in meta), GRAPH_TYPES),
        "by_task_graph": {
            t: _ordered(Counter(str(m.get("graph_type")) for m in meta
                                if m.get("task_type") == t), GRAPH_TYPES)
            for t in _ordered(Counter(str(m.get("task_type")) for m in meta), TASKS)},
        "by_format": _ordered(Counter(str(m.get("format")) for m in meta),
                              ("multiple_choice", "binary")),
        "answer_positions": {f: dict(sorted(c.items())) for f, c in sorted(positions.items())},
    }
