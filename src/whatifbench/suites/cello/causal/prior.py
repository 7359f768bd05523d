"""A text-only reader with world knowledge: it answers a CELLO question from the names alone, by
what usually supports what.

From the scene graphs of a build it learns, for every two names, how often one directly
supports the other among the images that show both (a street supports a car, a horse a saddle).
To answer a question it draws the *typical* graph of the objects the question and the options
name — an edge wherever one name supports the other in more than half of those images — and
applies the task's own rule to it: a Yes/No outcome, or the one option that satisfies the
rule (no guess when the typical graph does not admit the question, or when no option or several
do). This is what a model that knows the world but never looks at the image could do; near
contrast sets (``causal.near``) are made only where it guesses alike for every member, and
``bench/bench_blind_mucr_cello.py`` reports it as a blind baseline.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import permutations

import networkx as nx

from whatifbench.suites.cello.causal.distractors import entity
from whatifbench.suites.cello.causal.graph import CausalGraph
from whatifbench.suites.cello.causal.tasks import TASKS, BinaryTask, MultipleChoiceTask

TYPICAL = 0.5
"""An edge of the typical graph: one name supports the other in more than this share of the
images that show both."""


class SupportPrior:
    """Which names usually support which, counted over causal graphs."""

    def __init__(self, graphs: Iterable[CausalGraph]) -> None:
        self.both: Counter[tuple[str, str]] = Counter()
        self.edges: Counter[tuple[str, str]] = Counter()
        for cg in graphs:
            names = sorted({entity(o).name for o in cg.scene.objects})
            self.both.update(permutations(names, 2))
            self.edges.update({(entity(cg.graph.nodes[u]["obj"]).name,
                                entity(cg.graph.nodes[v]["obj"]).name)
                               for u, v in cg.graph.edges})

    def supports(self, a: str, b: str) -> bool:
        """Does ``a`` usually support ``b`` (where both are seen)?"""
        seen = self.both[a, b]
        return seen > 0 and self.edges[a, b] > TYPICAL * seen

    def typical(self, names: Sequence[str]) -> nx.DiGraph | None:
        """The typical graph of the named objects (node ``k`` is ``names[k]``); ``None`` when
        it has a cycle."""
        graph = nx.DiGraph()
        graph.add_nodes_from(range(len(names)))
        graph.add_edges_from((i, j) for i, a in enumerate(names) for j, b in enumerate(names)
                             if i != j and self.supports(a, b))
        return graph if nx.is_directed_acyclic_graph(graph) else None

    def guess(self, task_type: str, slots: Sequence[tuple[str, str]],
              options: Sequence[str] = ()) -> str | None:
        """The guess from names alone: ``"True"``/``"False"`` (the asked-about change happens,
        Yes/No tasks) or one of ``options`` (multiple choice); ``None`` for no guess.
        ``slots``: (placeholder, name) in the task's slot order."""
        task = TASKS[task_type]
        names = [name for _, name in slots]
        if isinstance(task, BinaryTask):
            graph = self.typical(names)
            where = {slot: k for k, (slot, _) in enumerate(slots)}
            if graph is None or not task.admits(graph, where):
                return None
            return str(task.affected(graph, where))
        assert isinstance(task, MultipleChoiceTask)
        graph = self.typical([*names, *options])
        if graph is None:
            return None
        where = {slot: k for k, (slot, _) in enumerate(slots)}
        holding = [option for k, option in enumerate(options, start=len(names))
                   if task.holds(graph, where, (k,))]
        return holding[0] if len(holding) == 1 else None
