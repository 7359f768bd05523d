"""Task types (CLadder style: the rung is a class attribute) and the frames they produce.

A *frame* is one task instance on one matched graph: which objects fill the question's slots
and, computed by the task's rule, the correct option (multiple choice) or whether the asked-about
change happens (Yes/No). Every rule is evaluated twice — on the matched template and on the
image's whole causal graph — and a frame is kept only when both agree, so an answer is never
contradicted by a support path outside the template.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import permutations
from typing import ClassVar

import networkx as nx

from whatifbench.suites.cello.causal.templates import Match

RUNGS = ("discovery", "association", "intervention", "counterfactual")
"""Pearl's ladder as CELLO orders it (rung 0 … 3)."""

TEXT_NODE = -1
"""Stands for the text distractor, an object that is in neither the image nor the graph."""

Slots = dict[str, int]


@dataclass(frozen=True)
class Frame:
    """One instance of a task on a matched graph."""

    task_type: str
    """The task's name."""
    match: Match
    """The matched template (the record's ``graph``)."""
    slots: tuple[tuple[str, int], ...]
    """Question placeholders and the objects filling them, in the task's slot order."""
    answer: tuple[int, ...] = ()
    """Multiple choice: the objects forming the correct option (computed by the rule)."""
    graph_distractor: tuple[int, ...] = ()
    """Multiple choice: graph objects forming the option that fails the rule."""
    outcome: bool | None = None
    """Yes/No: the asked-about change happens (the object falls, or must have fallen)."""

    @property
    def slot(self) -> Slots:
        """Placeholder → object id."""
        return dict(self.slots)


class TaskType(ABC):
    """One of the twelve CELLO task types."""

    name: ClassVar[str]
    """Name as in the release (``sufficient_cause``)."""
    abbrev: ClassVar[str]
    """The paper's abbreviation (``SC``)."""
    rung: ClassVar[str]
    """One of ``RUNGS``."""
    graph_types: ClassVar[tuple[str, ...]]
    """Graph types on which the rule yields questions (checked by the tests)."""
    binary: ClassVar[bool]
    """Yes/No (True) or four-option multiple choice (False)."""
    slot_names: ClassVar[tuple[str, ...]]
    """The question's placeholders."""
    templates: ClassVar[dict[str, str]]
    """Question templates: ``""`` for multiple choice; ``fall``/``stay`` polarity for Yes/No."""
    rule: ClassVar[str]
    """The answer rule in one sentence (docs and provenance)."""

    def assignments(self, match: Match) -> Iterator[Slots]:
        """Candidate slot fillings: every ordered choice of distinct matched objects."""
        for nodes in permutations(match.nodes, len(self.slot_names)):
            yield dict(zip(self.slot_names, nodes, strict=True))

    @abstractmethod
    def frame(self, match: Match, graph: nx.DiGraph, sub: nx.DiGraph,
              slots: Slots) -> Frame | None:
        """The frame for one filling (``sub``: the matched template, ``graph``: the whole causal
        graph), or ``None`` when the rule gives no well-posed question."""

    def frames(self, match: Match, graph: nx.DiGraph) -> list[Frame]:
        """Every well-posed frame of this task on a match (``graph``: the whole causal graph)."""
        if match.graph_type not in self.graph_types:
            return []
        sub = match.subgraph(graph)
        found = (self.frame(match, graph, sub, slots) for slots in self.assignments(match))
        return [f for f in found if f is not None]


class MultipleChoiceTask(TaskType):
    """The answer is the one option (a set of objects) that satisfies ``holds``."""

    binary = False

    @abstractmethod
    def holds(self, graph: nx.DiGraph, slots: Slots, option: tuple[int, ...]) -> bool:
        """True when ``option`` answers the question on ``graph``."""

    def graph_options(self, match: Match, slots: Slots) -> list[tuple[int, ...]]:
        """Options drawn from the matched graph: each object not named in the question."""
        named = set(slots.values())
        return [(n,) for n in match.nodes if n not in named]

    def frame(self, match: Match, graph: nx.DiGraph, sub: nx.DiGraph,
              slots: Slots) -> Frame | None:
        options = self.graph_options(match, slots)
        truth = [self.holds(sub, slots, o) for o in options]
        if len(options) < 2 or sum(truth) != 1:
            return None
        if truth != [self.holds(graph, slots, o) for o in options]:
            return None
        wrong = [o for o, t in zip(options, truth, strict=True) if not t]
        return Frame(self.name, match, tuple(slots.items()),
                     answer=options[truth.index(True)], graph_distractor=wrong[0])


class BinaryTask(TaskType):
    """Yes/No: ``affected`` says whether the asked-about change happens; the wording's polarity
    (``fall``: "would it drop?", ``stay``: "would it still stand?") maps it to Yes or No."""

    binary = True

    @abstractmethod
    def admits(self, graph: nx.DiGraph, slots: Slots) -> bool:
        """Whether the question makes sense for this filling (checked on the template)."""

    @abstractmethod
    def affected(self, graph: nx.DiGraph, slots: Slots) -> bool:
        """The structural answer: the asked-about change happens."""

    def frame(self, match: Match, graph: nx.DiGraph, sub: nx.DiGraph,
              slots: Slots) -> Frame | None:
        if not self.admits(sub, slots):
            return None
        outcome = self.affected(sub, slots)
        if outcome != self.affected(graph, slots):
            return None
        return Frame(self.name, match, tuple(slots.items()), outcome=outcome)

    @staticmethod
    def answer(outcome: bool, polarity: str) -> str:
        """``Yes`` or ``No`` for a structural outcome under a wording polarity."""
        return "Yes" if outcome == (polarity == "fall") else "No"
