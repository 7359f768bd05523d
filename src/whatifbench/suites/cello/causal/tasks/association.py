"""Rung 1, association: collider bias."""

from __future__ import annotations

from typing import ClassVar

import networkx as nx

from whatifbench.suites.cello.causal.scm import d_separated
from whatifbench.suites.cello.causal.tasks.base import MultipleChoiceTask, Slots
from whatifbench.suites.cello.causal.templates import Match


class ColliderBias(MultipleChoiceTask):
    """CB: what becomes linked to A once we select on the collider C?"""

    name = "collider_bias"
    abbrev = "CB"
    rung = "association"
    graph_types = ("collision",)
    slot_names = ("A", "C")
    templates: ClassVar[dict[str, str]] = {
        "": "Which of the following is unrelated to {A_pos} stability in general, but becomes "
            "linked to it once we only look at cases in which {C} {C_be} steady?"}
    rule = ("The other cause of the collider C: independent of A (d-separated given nothing) "
            "but dependent on A once C is conditioned on. The collider itself, related to A "
            "anyway, is the graph distractor.")

    def graph_options(self, match: Match, slots: Slots) -> list[tuple[int, ...]]:
        """The objects not named, and the collider itself."""
        return [*super().graph_options(match, slots), (slots["C"],)]

    def holds(self, graph: nx.DiGraph, slots: Slots, option: tuple[int, ...]) -> bool:
        a, c = slots["A"], slots["C"]
        if len(option) != 1 or option[0] == a or not d_separated(graph, a, option[0]):
            return False
        return option[0] != c and not d_separated(graph, a, option[0], {c})
