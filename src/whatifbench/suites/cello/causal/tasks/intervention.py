"""Rung 2, intervention: confounder identification, backdoor adjustment set, controlled direct
effect."""

from __future__ import annotations

from typing import ClassVar

import networkx as nx

from whatifbench.suites.cello.causal.scm import (
    ancestors,
    descendants,
    parents,
    satisfies_backdoor,
    states,
)
from whatifbench.suites.cello.causal.tasks.base import BinaryTask, MultipleChoiceTask, Slots
from whatifbench.suites.cello.causal.templates import Match


class ConfounderIdentification(MultipleChoiceTask):
    """CoI: which object supports Y both directly and through Y's other support?"""

    name = "confounder_identification"
    abbrev = "CoI"
    rung = "intervention"
    graph_types = ("confounding",)
    slot_names = ("Y",)
    templates: ClassVar[dict[str, str]] = {
        "": "Which of the following keeps {Y} steady both directly and through another object?"}
    rule = ("The confounder: a direct support of Y that also supports another direct support "
            "of Y (a common cause of Y and of Y's other cause); that other support is the graph "
            "distractor.")

    def holds(self, graph: nx.DiGraph, slots: Slots, option: tuple[int, ...]) -> bool:
        y = slots["Y"]
        if len(option) != 1 or option[0] not in parents(graph, y):
            return False
        return any(option[0] in ancestors(graph, p) for p in parents(graph, y) - {option[0]})


class BackdoorAdjustmentSet(MultipleChoiceTask):
    """BAS: what to control for when relating X's stability to Y's."""

    name = "backdoor_adjustment_set"
    abbrev = "BAS"
    rung = "intervention"
    graph_types = ("confounding",)
    slot_names = ("X", "Y")
    templates: ClassVar[dict[str, str]] = {
        "": "To assess the relationship between {X_pos} stability and {Y_pos} stability, "
            "which of the following should we control for?"}
    rule = ("The set satisfying Pearl's backdoor criterion for X → Y (no descendant of X, "
            "blocks every backdoor path), asked only when Y depends on X and the empty set does "
            "not suffice; the graph distractor adds Y itself, a descendant of X.")

    def graph_options(self, match: Match, slots: Slots) -> list[tuple[int, ...]]:
        """Each object not named, alone and together with the outcome Y."""
        singles = super().graph_options(match, slots)
        return [o for z in singles for o in (z, (*z, slots["Y"]))]

    def holds(self, graph: nx.DiGraph, slots: Slots, option: tuple[int, ...]) -> bool:
        x, y = slots["X"], slots["Y"]
        if y not in descendants(graph, x) or satisfies_backdoor(graph, x, y, ()):
            return False
        return satisfies_backdoor(graph, x, y, option)


class ControlledDirectEffect(BinaryTask):
    """CDE: with M held as it is, does making T unstable make O drop?"""

    name = "controlled_direct_effect"
    abbrev = "CDE"
    rung = "intervention"
    graph_types = ("chain", "confounding", "collision")
    slot_names = ("T", "M", "O")
    templates: ClassVar[dict[str, str]] = {
        "fall": "If the state of {M} is not changed and {T} {T_become} unstable, will {O} drop?",
        "stay": "If the state of {M} is not changed and {T} {T_become} unstable, will {O} "
                "stay steady?",
    }
    rule = ("O falls under do(T = fallen, M = stable), where T is a cause of O and M another "
            "cause of O (mediator or confounder) held fixed.")

    def admits(self, graph: nx.DiGraph, slots: Slots) -> bool:
        t, m, o = slots["T"], slots["M"], slots["O"]
        return o in descendants(graph, t) and m in ancestors(graph, o)

    def affected(self, graph: nx.DiGraph, slots: Slots) -> bool:
        return not states(graph, do={slots["T"]: False, slots["M"]: True})[slots["O"]]
