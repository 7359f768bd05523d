"""Template questions: slot values with agreement, option texts, and causal edges as text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import networkx as nx

from whatifbench.suites.cello.causal.entities import Entity
from whatifbench.suites.cello.causal.templates import Match


def slot_values(slots: Mapping[str, int], entity_of: Callable[[int], Entity]) -> dict[str, str]:
    """Format values for each slot ``S``: ``S`` (the horse), ``S_pos`` (the horse's), ``S_be``
    (is/are), ``S_become`` (becomes/become), ``S_it`` (it/they)."""
    values: dict[str, str] = {}
    for slot, node in slots.items():
        e = entity_of(node)
        values[slot] = e.the
        values[f"{slot}_pos"] = e.possessive
        values[f"{slot}_be"] = e.verb("is", "are")
        values[f"{slot}_become"] = e.verb("becomes", "become")
        values[f"{slot}_it"] = e.verb("it", "they")
    return values


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill a template; the first letter is capitalised."""
    text = template.format(**values)
    return text[:1].upper() + text[1:]


def option_text(entities: Sequence[Entity]) -> str:
    """An option naming one object (``beach``) or several (``beach and women``)."""
    return " and ".join(e.name for e in entities)


def edge_sentences(match: Match, graph: nx.DiGraph) -> list[str]:
    """The matched edges as text, as the paper's rewriting prompt shows them
    (``beach supports horse``)."""
    return [f"{graph.nodes[u]['obj'].name} supports {graph.nodes[v]['obj'].name}"
            for u, v in match.edges]
