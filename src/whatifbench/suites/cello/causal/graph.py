"""Scene graph → causal graph (networkx ``DiGraph``), and node attributes as in the release.

Nodes are the objects that take part in at least one causal relationship; an edge ``u → v``
means ``u`` supports ``v`` (see ``predicates``) and carries the predicate verbatim as
``relation``. The first relationship between two objects names the edge; two objects that
support each other (``A on B`` and ``B on A``) are contradictory and both edges are dropped.

``position`` follows the release: the box centre is compared with the image centre,
``left``/``right`` by ``x`` and ``upper``/``down`` by ``y`` (ties go right/down), joined as
``left_upper``, ``right_upper``, ``left_down`` or ``right_down``. The example record (beach
centre (250.5, 281) → ``right_down``, horse (154.5, 225) → ``left_down``, women (325, 182.5) →
``right_upper``) is consistent with this for its 500-pixel-wide VG image.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from whatifbench.suites.cello.causal.predicates import causal_edge, lookup, normalise
from whatifbench.suites.cello.causal.scene_graph import SceneGraph, SceneObject


@dataclass(frozen=True)
class CausalGraph:
    """The causal graph of one image and what was left out while building it."""

    scene: SceneGraph
    """The scene graph it was built from."""
    graph: nx.DiGraph
    """Nodes: object ids with attribute ``obj`` (the ``SceneObject``); edges with ``relation``."""
    mapped: Counter[str] = field(default_factory=Counter)
    """Causal predicates used, by normalised base form."""
    unmapped: Counter[str] = field(default_factory=Counter)
    """Predicates ignored as not causal, by normalised form."""
    dropped: Counter[str] = field(default_factory=Counter)
    """Relationships dropped: ``dangling`` (unknown object id), ``self`` (an object related to
    itself), ``contradictory`` (two objects supporting each other)."""

    @property
    def image_id(self) -> int:
        """The image id."""
        return self.scene.image_id

    @property
    def is_dag(self) -> bool:
        """True when the graph has no directed cycle (tasks need a DAG)."""
        return bool(nx.is_directed_acyclic_graph(self.graph))

    def name(self, node: int) -> str:
        """The object name of a node."""
        obj: SceneObject = self.graph.nodes[node]["obj"]
        return obj.name


def build_causal_graph(scene: SceneGraph) -> CausalGraph:
    """Map each relationship through the predicate table and assemble the graph."""
    objects = scene.by_id()
    graph = nx.DiGraph()
    mapped: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    contradictory: set[frozenset[int]] = set()
    for rel in scene.relationships:
        if rel.subject_id not in objects or rel.object_id not in objects:
            dropped["dangling"] += 1
            continue
        if rel.subject_id == rel.object_id:
            dropped["self"] += 1
            continue
        edge = causal_edge(rel.subject_id, rel.object_id, rel.predicate)
        if edge is None:
            unmapped[normalise(rel.predicate) or rel.predicate] += 1
            continue
        rule = lookup(rel.predicate)
        assert rule is not None
        mapped[rule.canonical] += 1
        cause, effect = edge
        if graph.has_edge(effect, cause):
            contradictory.add(frozenset(edge))
            continue
        if not graph.has_edge(cause, effect):
            for node in edge:
                if node not in graph:
                    graph.add_node(node, obj=objects[node])
            graph.add_edge(cause, effect, relation=rel.predicate)
    for pair in contradictory:
        u, v = tuple(pair)
        for a, b in ((u, v), (v, u)):
            if graph.has_edge(a, b):
                graph.remove_edge(a, b)
        dropped["contradictory"] += 2
    graph.remove_nodes_from([n for n in list(graph) if graph.degree(n) == 0])
    return CausalGraph(scene, graph, mapped, unmapped, dropped)


def position(box: tuple[float, float, float, float], size: tuple[int, int]) -> str:
    """``left_upper`` … ``right_down``: the box centre against the image centre."""
    x, y, w, h = box
    width, height = size
    horizontal = "left" if x + w / 2 < width / 2 else "right"
    vertical = "upper" if y + h / 2 < height / 2 else "down"
    return f"{horizontal}_{vertical}"


def node_attributes(obj: SceneObject, size: tuple[int, int]) -> dict[str, Any]:
    """A node's attributes in the release format (``boxes`` as a list of ``[x, y, w, h]``)."""
    return {"obj_name": obj.name, "obj_synsets": list(obj.synsets), "boxes": [list(obj.box)],
            "position": position(obj.box, size)}
