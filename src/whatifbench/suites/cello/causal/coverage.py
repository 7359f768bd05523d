"""Predicate coverage of a scene-graph input: what the mapping uses, what it ignores, and which
graph types the resulting causal graphs contain (``whatif stats scene_graphs.json``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from whatifbench.core.table import Table
from whatifbench.suites.cello.causal.graph import build_causal_graph
from whatifbench.suites.cello.causal.predicates import TABLE
from whatifbench.suites.cello.causal.scene_graph import SceneGraph, load_scene_graphs
from whatifbench.suites.cello.causal.templates import GRAPH_TYPES, find_matches

TOP_UNMAPPED = 50
"""Unmapped predicates listed (the rest are counted)."""


@dataclass(frozen=True)
class Coverage:
    """Counts over every scene graph of an input."""

    scenes: int
    """Scene graphs read."""
    relationships: int
    """Relationships read."""
    mapped: Counter[str]
    """Causal predicates by base form."""
    unmapped: Counter[str]
    """Ignored predicates by normalised form."""
    dropped: Counter[str]
    """Dropped relationships by reason (dangling, self, contradictory)."""
    matches: Counter[str]
    """Template matches by graph type."""
    images_with: Counter[str]
    """Images with at least one match, by graph type."""
    acyclic: int
    """Scene graphs whose causal graph has edges and no cycle (usable for tasks)."""


def coverage(scenes: Sequence[SceneGraph]) -> Coverage:
    """Map and match every scene graph."""
    mapped: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    matches: Counter[str] = Counter()
    images_with: Counter[str] = Counter()
    acyclic = 0
    for scene in scenes:
        cg = build_causal_graph(scene)
        mapped.update(cg.mapped)
        unmapped.update(cg.unmapped)
        dropped.update(cg.dropped)
        if cg.graph.number_of_edges() == 0 or not cg.is_dag:
            continue
        acyclic += 1
        found = Counter(m.graph_type for m in find_matches(cg.graph))
        matches.update(found)
        images_with.update(found.keys())
    return Coverage(len(scenes), sum(len(s.relationships) for s in scenes), mapped, unmapped,
                    dropped, matches, images_with, acyclic)


def coverage_tables(cov: Coverage, title: str, top: int = TOP_UNMAPPED) -> list[Table]:
    """Summary, mapped predicates, unmapped predicates (most frequent first), graph types."""
    n_mapped, n_unmapped = sum(cov.mapped.values()), sum(cov.unmapped.values())
    share = 100 * n_mapped / cov.relationships if cov.relationships else 0.0
    summary = Table(f"{title}: predicate coverage", ("what", "count"), (
        ("scene graphs", str(cov.scenes)), ("relationships", str(cov.relationships)),
        ("causal (mapped)", f"{n_mapped} ({share:.1f}%)"), ("ignored (unmapped)", str(n_unmapped)),
        *((f"dropped: {k}", str(v)) for k, v in sorted(cov.dropped.items())),
        ("scene graphs usable for tasks", str(cov.acyclic)),
    ))
    mapped = Table(f"{title}: mapped predicates", ("predicate", "direction", "count"), tuple(
        (p, TABLE[p].direction, str(c))
        for p, c in sorted(cov.mapped.items(), key=lambda kv: (-kv[1], kv[0]))))
    ordered = sorted(cov.unmapped.items(), key=lambda kv: (-kv[1], kv[0]))
    notes = ((f"... and {len(ordered) - top} more distinct unmapped predicates.",)
             if len(ordered) > top else ())
    unmapped = Table(f"{title}: unmapped predicates (extend "
                     "suites/cello/causal/predicates.py TABLE)",
                     ("predicate", "count"), tuple((p, str(c)) for p, c in ordered[:top]),
                     notes=notes)
    graphs = Table(f"{title}: graph types found", ("graph type", "matches", "images"), tuple(
        (g, str(cov.matches[g]), str(cov.images_with[g])) for g in GRAPH_TYPES))
    return [summary, mapped, unmapped, graphs]


def scene_graph_stats(path: str | Path) -> list[Table]:
    """The coverage tables of a ``scene_graphs.json`` file."""
    return coverage_tables(coverage(load_scene_graphs(path)), Path(path).name)
