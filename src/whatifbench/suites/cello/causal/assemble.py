"""A frame becomes a finished question: template text, options with their distractor kinds, the
computed answer, and the leakage check."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from whatifbench.scenes.options import arrange
from whatifbench.suites.cello.causal.distractors import NameIndex, entity, image_distractor
from whatifbench.suites.cello.causal.entities import Entity, same_thing
from whatifbench.suites.cello.causal.graph import CausalGraph
from whatifbench.suites.cello.causal.leakage import question_problems
from whatifbench.suites.cello.causal.questions import (
    edge_sentences,
    option_text,
    render,
    slot_values,
)
from whatifbench.suites.cello.causal.scene_graph import SceneObject
from whatifbench.suites.cello.causal.tasks import TASKS, BinaryTask, Frame, MultipleChoiceTask
from whatifbench.suites.cello.causal.tasks.base import TEXT_NODE

BINARY_OPTIONS = ("Yes", "No")
"""Options of Yes/No questions, in the release's order."""
OTHER_KINDS = ("image", "graph", "text")
"""Distractor kinds of a multiple-choice question."""


@dataclass(frozen=True)
class Question:
    """One finished question about one image (images and node attributes are added later)."""

    frame: Frame
    """The task instance (task, matched graph, slots, computed answer)."""
    image_id: int
    """The VG image."""
    text: str
    """The question as posed: the template text, or an accepted LLM rewrite."""
    template_text: str
    """The template rendering (kept when a rewrite is accepted)."""
    options: tuple[str, ...]
    """Option texts in presentation order."""
    answer_index: int
    """Position of the correct option."""
    option_kinds: tuple[str, ...]
    """Multiple choice: ``correct``/``image``/``graph``/``text`` per option; empty for Yes/No."""
    required: tuple[Entity, ...]
    """Entities the question must name."""
    forbidden: tuple[Entity, ...]
    """Entities the question must not name (they would leak the answer)."""
    descriptions: tuple[str, ...]
    """Relationships among the matched objects as written in the scene graph."""
    edges_text: tuple[str, ...]
    """The matched causal edges as text (``beach supports horse``)."""
    objects: tuple[SceneObject, ...]
    """The matched objects in the template's role order (the record's ``objs``)."""
    relations: tuple[str, ...]
    """The predicate naming each matched edge, in the template's edge order."""
    provenance: dict[str, Any] = field(default_factory=dict)
    """How the answer and the distractors were computed."""
    contrast: str | None = None
    """The contrast set of a ``shortcut-free`` question (the same question and options about
    other images, answered differently); ``None`` otherwise."""

    @property
    def task_type(self) -> str:
        """The task's name."""
        return self.frame.task_type


def _descriptions(cg: CausalGraph, nodes: tuple[int, ...]) -> tuple[str, ...]:
    objects = cg.scene.by_id()
    wanted = set(nodes)
    return tuple(f"{objects[r.subject_id].name} {r.predicate} {objects[r.object_id].name}"
                 for r in cg.scene.relationships
                 if r.subject_id in wanted and r.object_id in wanted
                 and r.subject_id != r.object_id)


def _explanation(frame: Frame, edges: tuple[str, ...], values: dict[str, str],
                 answer: str) -> str:
    task = TASKS[frame.task_type]
    bound = ", ".join(f"{slot} = {values[slot]}" for slot, _ in frame.slots)
    return (f"Causal graph: {'; '.join(edges)}. Rule ({bound}): {task.rule} "
            f"So the answer is {answer}.")


class FrameContext:
    """What every question of one frame needs: entities, slot values, record parts."""

    def __init__(self, frame: Frame, cg: CausalGraph) -> None:
        self.frame, self.cg = frame, cg
        self.slots = frame.slot
        self.named = tuple(self.ent(n) for n in self.slots.values())
        self.values = slot_values(self.slots, self.ent)
        self.edges = tuple(edge_sentences(frame.match, cg.graph))
        self.task = TASKS[frame.task_type]
        self.provenance: dict[str, Any] = {
            "program": "whatifbench.causal", "task_type": frame.task_type,
            "rule": self.task.rule, "slots": dict(self.slots)}

    def ent(self, node: int) -> Entity:
        """The entity of a graph object."""
        return entity(self.cg.graph.nodes[node]["obj"])

    def question(self, text: str, options: tuple[str, ...], answer_index: int,
                 kinds: tuple[str, ...], forbidden: tuple[Entity, ...],
                 provenance: dict[str, Any]) -> Question:
        """The finished question, with the record's objects and relations attached."""
        graph, match = self.cg.graph, self.frame.match
        explanation = _explanation(self.frame, self.edges, self.values, options[answer_index])
        return Question(
            self.frame, self.cg.image_id, text, text, options, answer_index, kinds, self.named,
            forbidden, _descriptions(self.cg, match.nodes), self.edges,
            tuple(graph.nodes[n]["obj"] for n in match.nodes),
            tuple(graph.edges[e]["relation"] for e in match.edges),
            {**self.provenance, **provenance, "explanation": explanation})


def _binary(c: FrameContext, task: BinaryTask, want_yes: bool) -> Question | str:
    outcome = c.frame.outcome
    assert outcome is not None
    return binary_question(c, task, "fall" if outcome == want_yes else "stay")


def binary_question(c: FrameContext, task: BinaryTask, polarity: str) -> Question | str:
    """The Yes/No question of a frame in the wording of ``polarity`` (``fall``/``stay``), or
    why it cannot be posed."""
    outcome = c.frame.outcome
    assert outcome is not None
    text = render(task.templates[polarity], c.values)
    forbidden = tuple(c.ent(n) for n in c.frame.match.nodes if n not in c.slots.values())
    problems = question_problems(text, c.named, forbidden)
    if problems:
        return f"leakage: {problems[0]}"
    answer = BINARY_OPTIONS.index(task.answer(outcome, polarity))
    return c.question(text, BINARY_OPTIONS, answer, (), forbidden,
                      {"polarity": polarity, "outcome": outcome})


def _multiple_choice(c: FrameContext, task: MultipleChoiceTask, names: NameIndex,
                     rng: random.Random, position: int) -> Question | str:
    text = render(task.templates[""], c.values)
    obj = image_distractor(c.cg.scene, c.cg.graph, [], rng)
    if obj is None:
        return "no image distractor"
    if (task.holds(c.cg.graph, c.slots, (obj.object_id,))
            or task.holds(c.cg.graph, c.slots, (TEXT_NODE,))):
        return "a distractor satisfies the rule"
    found = names.text_distractor(c.named, [entity(o) for o in c.cg.scene.objects])
    if found is None:
        return "no text distractor"
    text_entity, text_rule = found
    parts = {"correct": [c.ent(n) for n in c.frame.answer],
             "graph": [c.ent(n) for n in c.frame.graph_distractor],
             "image": [entity(obj)], "text": [text_entity]}
    kinds = arrange("correct", OTHER_KINDS, position, rng)
    options = tuple(option_text(parts[k]) for k in kinds)
    if len({o.lower() for o in options}) != len(options):
        return "options not distinct"
    forbidden = tuple(e for k in kinds for e in parts[k]
                      if not any(same_thing(e, n) for n in c.named))
    problems = question_problems(text, c.named, forbidden)
    if problems:
        return f"leakage: {problems[0]}"
    distractors = {"graph": list(c.frame.graph_distractor),
                   "image": {"object_id": obj.object_id, "name": obj.name},
                   "text": {"name": text_entity.name, **text_rule}}
    return c.question(text, options, position, tuple(kinds), forbidden,
                      {"answer_nodes": list(c.frame.answer), "distractors": distractors})


def assemble(frame: Frame, cg: CausalGraph, names: NameIndex, rng: random.Random,
             position: int, want_yes: bool) -> Question | str:
    """The question for a frame, or the reason it cannot be posed. ``position``: where the
    correct option goes (multiple choice); ``want_yes``: the answer to aim for (Yes/No, by the
    wording's polarity)."""
    context = FrameContext(frame, cg)
    if isinstance(context.task, BinaryTask):
        return _binary(context, context.task, want_yes)
    assert isinstance(context.task, MultipleChoiceTask)
    return _multiple_choice(context, context.task, names, rng, position)
