"""The four graph templates and their detection by induced subgraph isomorphism (networkx VF2).

| type          | roles     | edges               |
|---------------|-----------|---------------------|
| ``direct``      | A, B      | A→B                 |
| ``chain``       | A, B, C   | A→B, B→C            |
| ``confounding`` | Z, X, Y   | Z→X, Z→Y, X→Y       |
| ``collision``   | A, B, C   | A→C, B→C            |

Matching is *induced*: the matched objects carry exactly the template's edges among themselves
(a chain whose ends are also linked is a confounding triangle, not a chain), so a record's
``graph`` holds exactly the template's nodes and edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
from networkx.algorithms.isomorphism import DiGraphMatcher

GRAPH_TYPES = ("direct", "chain", "confounding", "collision")

TEMPLATES: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "direct": (("A", "B"), (("A", "B"),)),
    "chain": (("A", "B", "C"), (("A", "B"), ("B", "C"))),
    "confounding": (("Z", "X", "Y"), (("Z", "X"), ("Z", "Y"), ("X", "Y"))),
    "collision": (("A", "B", "C"), (("A", "C"), ("B", "C"))),
}
"""graph type → (roles in record order, edges in record order)."""


@dataclass(frozen=True)
class Match:
    """One occurrence of a template in an image's causal graph."""

    graph_type: str
    """One of ``GRAPH_TYPES``."""
    roles: tuple[tuple[str, int], ...]
    """(role, node id) in the template's role order."""

    @property
    def role(self) -> dict[str, int]:
        """Role → node id."""
        return dict(self.roles)

    @property
    def nodes(self) -> tuple[int, ...]:
        """Node ids in role order (the record's ``objs``)."""
        return tuple(n for _, n in self.roles)

    @property
    def edges(self) -> tuple[tuple[int, int], ...]:
        """Edges in the template's order."""
        role = self.role
        return tuple((role[a], role[b]) for a, b in TEMPLATES[self.graph_type][1])

    def subgraph(self, graph: nx.DiGraph) -> nx.DiGraph:
        """The template-shaped graph over the matched nodes (with the full graph's attributes)."""
        sub = nx.DiGraph()
        for node in self.nodes:
            sub.add_node(node, **graph.nodes[node])
        for u, v in self.edges:
            sub.add_edge(u, v, **graph.edges[u, v])
        return sub


def template_graph(graph_type: str) -> nx.DiGraph:
    """The template as a small ``DiGraph`` over its role names."""
    roles, edges = TEMPLATES[graph_type]
    template = nx.DiGraph()
    template.add_nodes_from(roles)
    template.add_edges_from(edges)
    return template


def find_matches(graph: nx.DiGraph, types: tuple[str, ...] = GRAPH_TYPES) -> list[Match]:
    """Every induced occurrence of each template, once per node set and edge set, sorted."""
    found: dict[tuple[str, tuple[tuple[int, int], ...]], Match] = {}
    for graph_type in types:
        roles = TEMPLATES[graph_type][0]
        matcher = DiGraphMatcher(graph, template_graph(graph_type))
        for mapping in matcher.subgraph_isomorphisms_iter():
            inverse = {role: node for node, role in mapping.items()}
            match = Match(graph_type, tuple((r, inverse[r]) for r in roles))
            key = (graph_type, tuple(sorted(match.edges)))
            if key not in found or match.nodes < found[key].nodes:
                found[key] = match
    order = {t: i for i, t in enumerate(GRAPH_TYPES)}
    return sorted(found.values(), key=lambda m: (order[m.graph_type], m.nodes))
