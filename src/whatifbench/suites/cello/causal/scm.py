"""The structural causal model behind every answer: stability propagates along support edges.

Each object has a binary state, *stable* or *fallen*. An object is stable exactly when it did not
fail on its own and every one of its supports (parents) is stable — every support is needed, as
in the paper's examples (the books drop when the shelf falls, even if the wall stands).
An intervention ``do(v = s)`` sets an object's state regardless of its supports; in the factual
world nothing has failed, so every object is stable and abduction is trivial. Graph-theoretic
queries (d-separation, the backdoor criterion) use the same graph; objects outside it are
isolated variables.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

import networkx as nx


def states(graph: nx.DiGraph, do: Mapping[int, bool] | None = None,
           failed: Iterable[int] = ()) -> dict[int, bool]:
    """Every object's stability under interventions ``do`` and spontaneous failures ``failed``."""
    do = do or {}
    failed = set(failed)
    out: dict[int, bool] = {}
    for node in nx.topological_sort(graph):
        if node in do:
            out[node] = do[node]
        else:
            out[node] = node not in failed and all(out[p] for p in graph.predecessors(node))
    return out


def _with_nodes(graph: nx.DiGraph, nodes: Iterable[int]) -> nx.DiGraph:
    missing = [n for n in nodes if n not in graph]
    if not missing:
        return graph
    copy = graph.copy()
    copy.add_nodes_from(missing)
    return copy


def d_separated(graph: nx.DiGraph, a: int, b: int, given: Collection[int] = ()) -> bool:
    """True when ``a`` and ``b`` are d-separated by ``given`` (objects outside are isolated)."""
    full = _with_nodes(graph, [a, b, *given])
    return bool(nx.is_d_separator(full, {a}, {b}, set(given)))


def satisfies_backdoor(graph: nx.DiGraph, treatment: int, outcome: int,
                       adjust: Collection[int]) -> bool:
    """Pearl's backdoor criterion: no adjusted object descends from the treatment (or is it),
    and the set blocks every path from treatment to outcome that starts with an arrow into the
    treatment."""
    full = _with_nodes(graph, [treatment, outcome, *adjust])
    forbidden = nx.descendants(full, treatment) | {treatment}
    if any(n in forbidden for n in adjust):
        return False
    cut = full.copy()
    cut.remove_edges_from(list(full.out_edges(treatment)))
    return bool(nx.is_d_separator(cut, {treatment}, {outcome}, set(adjust)))


def ancestors(graph: nx.DiGraph, node: int) -> set[int]:
    """Objects with a directed path to ``node`` (empty for objects outside the graph)."""
    return set(nx.ancestors(graph, node)) if node in graph else set()


def descendants(graph: nx.DiGraph, node: int) -> set[int]:
    """Objects reachable from ``node`` (empty for objects outside the graph)."""
    return set(nx.descendants(graph, node)) if node in graph else set()


def parents(graph: nx.DiGraph, node: int) -> set[int]:
    """Direct supports of ``node``."""
    return set(graph.predecessors(node)) if node in graph else set()


def children(graph: nx.DiGraph, node: int) -> set[int]:
    """Objects ``node`` supports directly."""
    return set(graph.successors(node)) if node in graph else set()
