"""``whatif stats`` tables of a CELLO dataset."""

from __future__ import annotations

from collections import Counter

from whatifbench.core.dataset import Dataset
from whatifbench.core.table import Table
from whatifbench.suites.cello.causal.templates import GRAPH_TYPES
from whatifbench.suites.cello.counts import cello_counts


def cello_stats(dataset: Dataset) -> list[Table]:
    """Items per rung, per task type × graph type, per format; correct positions; option kinds."""
    c = cello_counts(dataset.items)
    name = dataset.card.name
    rung = Table(f"{name}: items per rung", ("rung", "items"),
                 tuple((k, str(v)) for k, v in c["by_rung"].items()))
    graph_types = [g for g in GRAPH_TYPES if g in c["by_graph_type"]]
    task = Table(f"{name}: items per task type and graph type",
                 ("task type", *graph_types, "total"),
                 tuple((t, *(str(row.get(g, 0)) for g in graph_types), str(sum(row.values())))
                       for t, row in c["by_task_graph"].items()))
    fmt = Table(f"{name}: items per format and position of the correct option",
                ("format", "items", "correct position (A, B, ...)"),
                tuple((f, str(n), ", ".join(f"{chr(65 + int(p))}: {k}" for p, k in
                                            c["answer_positions"].get(f, {}).items()))
                      for f, n in c["by_format"].items()))
    kinds = Counter(k for i in dataset.items for k in i.meta.get("option_kinds") or ())
    option = Table(f"{name}: multiple-choice options by kind", ("kind", "options"),
                   tuple((k, str(v)) for k, v in sorted(kinds.items())))
    return [rung, task, fmt, option]
