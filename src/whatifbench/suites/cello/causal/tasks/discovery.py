"""Rung 0, discovery: causality identification, causal attribution, abstract reasoning."""

from __future__ import annotations

from typing import ClassVar

import networkx as nx

from whatifbench.suites.cello.causal.scm import ancestors, children, descendants, parents
from whatifbench.suites.cello.causal.tasks.base import MultipleChoiceTask, Slots


class CausalityIdentification(MultipleChoiceTask):
    """CaI: which object is crucial for Y's stability?"""

    name = "causality_identification"
    abbrev = "CaI"
    rung = "discovery"
    graph_types = ("chain", "confounding")
    slot_names = ("Y",)
    templates: ClassVar[dict[str, str]] = {
        "": "Which of the following elements is crucial for {Y_pos} stability?"}
    rule = ("The option whose removal would make Y fall: Y's only (direct or indirect) support "
            "among the options; Y must have exactly one such support.")

    def holds(self, graph: nx.DiGraph, slots: Slots, option: tuple[int, ...]) -> bool:
        return len(option) == 1 and option[0] in ancestors(graph, slots["Y"])


class CausalAttribution(MultipleChoiceTask):
    """CA: what indirectly causes O's stability?"""

    name = "causal_attribution"
    abbrev = "CA"
    rung = "discovery"
    graph_types = ("chain",)
    slot_names = ("O",)
    templates: ClassVar[dict[str, str]] = {"": "What indirectly causes {O_pos} stability?"}
    rule = ("An indirect cause of O: an ancestor of O that is not one of its direct supports "
            "(the direct support is the graph distractor).")

    def holds(self, graph: nx.DiGraph, slots: Slots, option: tuple[int, ...]) -> bool:
        o = slots["O"]
        return (len(option) == 1 and option[0] in ancestors(graph, o)
                and option[0] not in parents(graph, o))


class AbstractReasoning(MultipleChoiceTask):
    """AR: what is indirectly influenced by X?"""

    name = "abstract_reasoning"
    abbrev = "AR"
    rung = "discovery"
    graph_types = ("chain",)
    slot_names = ("X",)
    templates: ClassVar[dict[str, str]] = {
        "": "What is indirectly influenced by {X_pos} stability?"}
    rule = ("An indirect effect of X: a descendant of X that X does not support directly "
            "(the directly supported object is the graph distractor).")

    def holds(self, graph: nx.DiGraph, slots: Slots, option: tuple[int, ...]) -> bool:
        x = slots["X"]
        return (len(option) == 1 and option[0] in descendants(graph, x)
                and option[0] not in children(graph, x))
