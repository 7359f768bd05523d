"""Rung 3, counterfactual: counterfactual reasoning, natural direct and indirect effects,
sufficient and necessary causes (all Yes/No)."""

from __future__ import annotations

from typing import ClassVar

import networkx as nx

from whatifbench.suites.cello.causal.scm import ancestors, descendants, parents, states
from whatifbench.suites.cello.causal.tasks.base import BinaryTask, Slots


class CounterfactualReasoning(BinaryTask):
    """CR: had a supported object X fallen, would O still stand?"""

    name = "counterfactual_reasoning"
    abbrev = "CR"
    rung = "counterfactual"
    graph_types = ("direct", "chain", "confounding", "collision")
    slot_names = ("X", "O")
    templates: ClassVar[dict[str, str]] = {
        "stay": "If {X} had fallen down, would {O} still be placed steadily?",
        "fall": "If {X} had fallen down, would {O} have dropped as well?",
    }
    rule = ("O falls under do(X = fallen), X being an object that rests on another one: "
            "exactly when X is an ancestor of O (a fall never travels against the arrows).")

    def admits(self, graph: nx.DiGraph, slots: Slots) -> bool:
        return bool(parents(graph, slots["X"]))

    def affected(self, graph: nx.DiGraph, slots: Slots) -> bool:
        return not states(graph, do={slots["X"]: False})[slots["O"]]


class NaturalDirectEffect(BinaryTask):
    """NDE: T removed, the mediator M kept at its actual state: does O drop?"""

    name = "natural_direct_effect"
    abbrev = "NDE"
    rung = "counterfactual"
    graph_types = ("chain", "confounding")
    slot_names = ("T", "M", "O")
    templates: ClassVar[dict[str, str]] = {
        "fall": "If {T} were removed but {M} somehow stayed exactly as {M_it} {M_be} now, "
                "would {O} drop?",
        "stay": "If {T} were removed but {M} somehow stayed exactly as {M_it} {M_be} now, "
                "would {O} stay steady?",
    }
    rule = ("O falls under do(T = fallen, M = M's actual state) with M a mediator of T → O: "
            "only a direct T → O edge can carry the effect.")

    def admits(self, graph: nx.DiGraph, slots: Slots) -> bool:
        t, m, o = slots["T"], slots["M"], slots["O"]
        return m in descendants(graph, t) and o in descendants(graph, m)

    def affected(self, graph: nx.DiGraph, slots: Slots) -> bool:
        m = slots["M"]
        actual = states(graph)[m]
        return not states(graph, do={slots["T"]: False, m: actual})[slots["O"]]


class NaturalIndirectEffect(BinaryTask):
    """NIE: T kept, M set to the state it would take without T: does O drop?"""

    name = "natural_indirect_effect"
    abbrev = "NIE"
    rung = "counterfactual"
    graph_types = ("chain", "confounding", "collision")
    slot_names = ("T", "M", "O")
    templates: ClassVar[dict[str, str]] = {
        "fall": "If {T} stayed in place but {M} changed the way {M_it} would if {T} were "
                "removed, would {O} drop?",
        "stay": "If {T} stayed in place but {M} changed the way {M_it} would if {T} were "
                "removed, would {O} stay steady?",
    }
    rule = ("O falls under do(M = M's state under do(T = fallen)), T itself untouched, where T "
            "causes O and M is another cause of O: the effect travels only through M, so it is "
            "null when M does not depend on T.")

    def admits(self, graph: nx.DiGraph, slots: Slots) -> bool:
        t, m, o = slots["T"], slots["M"], slots["O"]
        return o in descendants(graph, t) and m in ancestors(graph, o)

    def affected(self, graph: nx.DiGraph, slots: Slots) -> bool:
        m = slots["M"]
        shifted = states(graph, do={slots["T"]: False})[m]
        return not states(graph, do={m: shifted})[slots["O"]]


class SufficientCause(BinaryTask):
    """SC: is the failure of a root support X enough to make O drop?"""

    name = "sufficient_cause"
    abbrev = "SC"
    rung = "counterfactual"
    graph_types = ("direct", "chain", "confounding", "collision")
    slot_names = ("X", "O")
    templates: ClassVar[dict[str, str]] = {
        "fall": "If {X} suddenly gave way, would {O} drop?",
        "stay": "If {X} suddenly gave way, would {O} still stay steady?",
    }
    rule = ("X's failure suffices for O's fall: O falls under do(X = fallen), X being an object "
            "that rests on nothing in the graph (a root).")

    def admits(self, graph: nx.DiGraph, slots: Slots) -> bool:
        return not parents(graph, slots["X"])

    def affected(self, graph: nx.DiGraph, slots: Slots) -> bool:
        return not states(graph, do={slots["X"]: False})[slots["O"]]


class NecessaryCause(BinaryTask):
    """NC: given that O fell, must its support X have given way?"""

    name = "necessary_cause"
    abbrev = "NC"
    rung = "counterfactual"
    graph_types = ("direct", "chain", "confounding", "collision")
    slot_names = ("O", "X")
    templates: ClassVar[dict[str, str]] = {
        "fall": "If {O} had fallen, would {X} have given way too?",
        "stay": "If {O} had fallen, could {X} still be steady?",
    }
    rule = ("X's failure is necessary for O's fall: O fell because one of its (direct or "
            "indirect) supports failed on its own, and X has fallen in every such case, i.e. "
            "X falls whenever any ancestor of O fails (abduction over single failures).")

    def admits(self, graph: nx.DiGraph, slots: Slots) -> bool:
        return slots["X"] in ancestors(graph, slots["O"])

    def affected(self, graph: nx.DiGraph, slots: Slots) -> bool:
        o, x = slots["O"], slots["X"]
        worlds = [states(graph, failed={a}) for a in ancestors(graph, o)]
        return all(not w[x] for w in worlds if not w[o])
