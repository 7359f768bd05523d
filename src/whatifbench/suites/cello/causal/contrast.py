"""Contrast sets (``--design shortcut-free``): the same question, other images, other answers.

Built from real scene graphs, a question's wording carries the world's priors: "If the street
gave way, would the car drop?" is Yes in nearly every photograph, and the object that keeps a
hat steady is nearly always a person. A model that reads only the text passes such questions.
A contrast set removes the cause: its members ask the very same question, with the very same
options in the same order, about different images, and each option is the answer of exactly one
member —

- Yes/No tasks: **pairs**, one image where the asked-about change happens and one where it does
  not, both worded with the same polarity (``fall`` or ``stay``, balanced per task and kind of
  pair), so one member is answered Yes and the other No;
- multiple-choice tasks: **sets of four** images whose answers are four different objects (else
  three or two, with as many options); the options are those answers, and in each image the
  others fail the rule (an object of the image that reads as one of them does not satisfy it,
  or the image has none).

Whatever a text-only model concludes from a member's text, it concludes for all members of its
set, so it is right on exactly one of them: chance on every set and on every slice made of whole
sets, whatever it has learnt. Correct positions follow: the answers of a set take every
position once, and Yes/No alternate within each pair.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from whatifbench.suites.cello.causal.assemble import FrameContext, Question, binary_question
from whatifbench.suites.cello.causal.distractors import entity
from whatifbench.suites.cello.causal.entities import Entity, same_thing
from whatifbench.suites.cello.causal.graph import CausalGraph
from whatifbench.suites.cello.causal.leakage import question_problems
from whatifbench.suites.cello.causal.questions import render, slot_values
from whatifbench.suites.cello.causal.tasks import TASKS, BinaryTask, Frame, MultipleChoiceTask

SIZES = {True: (2,), False: (4, 3, 2)}
"""Members per set, preferred first: binary tasks make pairs; multiple-choice tasks one member
per option, four where the images allow, else three or two (each item's chance is 1/K)."""

Graphs = Callable[[int], CausalGraph]
"""Scene index → its causal graph."""


def wording(frame: Frame, cg: CausalGraph) -> str:
    """The frame's question text (Yes/No: in the ``fall`` polarity); frames that share it ask
    the same question (the other polarity's text follows from the same slot values)."""
    task = TASKS[frame.task_type]
    values = slot_values(frame.slot, lambda n: entity(cg.graph.nodes[n]["obj"]))
    return render(task.templates["fall" if task.binary else ""], values)


def answer_entity(frame: Frame, cg: CausalGraph) -> Entity:
    """The entity of a multiple-choice frame's answer (every rule's answer is one object)."""
    return entity(cg.graph.nodes[frame.answer[0]]["obj"])


def fails_in(frame: Frame, cg: CausalGraph, option: Entity) -> bool:
    """True when no object of the frame's image that reads as ``option`` satisfies the rule."""
    task = TASKS[frame.task_type]
    assert isinstance(task, MultipleChoiceTask)
    slots = frame.slot
    return not any(task.holds(cg.graph, slots, (o.object_id,)) for o in cg.scene.objects
                   if same_thing(entity(o), option))


class Member:
    """A candidate frame with what the set checks need."""

    def __init__(self, scene: int, frame: Frame, graphs: Graphs) -> None:
        self.scene, self.frame = scene, frame
        self.cg = graphs(scene)
        self.answer = (answer_entity(frame, self.cg)
                       if not TASKS[frame.task_type].binary else None)
        self._shows: dict[Entity, bool] = {}
        self._fails: dict[Entity, bool] = {}

    def shows(self, option: Entity) -> bool:
        """Does an object of this member's image read as ``option``?"""
        if option not in self._shows:
            self._shows[option] = any(same_thing(entity(o), option)
                                      for o in self.cg.scene.objects)
        return self._shows[option]

    def fails(self, option: Entity) -> bool:
        """``fails_in`` for this member's frame and image (asked again and again while sets
        are searched, so remembered)."""
        if option not in self._fails:
            self._fails[option] = fails_in(self.frame, self.cg, option)
        return self._fails[option]

    def fits(self, others: Sequence[Member]) -> bool:
        """Can join ``others``: another image; another outcome (Yes/No) or another answer that
        fails in the others' images while theirs fail in this one (multiple choice)."""
        if any(o.scene == self.scene for o in others):
            return False
        if self.answer is None:
            return all(o.frame.outcome != self.frame.outcome for o in others)
        for o in others:
            assert o.answer is not None
            if same_thing(o.answer, self.answer):
                return False
            if not (o.fails(self.answer) and self.fails(o.answer)):
                return False
        return True

    def shown(self, others: Sequence[Member]) -> int:
        """How many of the set's other options its images show (as objects failing the rule):
        distractors that are in the picture make the question one of causes, not of presence."""
        if self.answer is None:
            return 0
        return sum(self.shows(o.answer) + o.shows(self.answer) for o in others
                   if o.answer is not None)


MAX_PER_WORDING = 240
"""Candidates of one wording considered for its sets (seeded choice; keeps the search short)."""


def contrast_sets(candidates: Sequence[tuple[int, Frame]], graphs: Graphs,
                  rng: random.Random) -> Iterator[list[tuple[int, Frame]]]:
    """Contrast sets among frames of one task that share a wording (each image at most once),
    made as they are asked for: largest first (``SIZES``); for each size first within each
    graph type (so that a graph type's items hold every answer too), then across graph types
    with the frames left."""
    if not candidates:
        return
    members = [Member(scene, frame, graphs) for scene, frame in candidates]
    rng.shuffle(members)
    members = members[:MAX_PER_WORDING]
    used: set[int] = set()
    types = sorted({m.frame.match.graph_type for m in members})
    for size in SIZES[TASKS[candidates[0][1].task_type].binary]:
        for graph_type in types:
            yield from _best_fit([m for m in members if m.frame.match.graph_type == graph_type],
                                 size, used)
        yield from _best_fit(members, size, used)


def _best_fit(pool: list[Member], size: int, used: set[int]
              ) -> Iterator[list[tuple[int, Frame]]]:
    """Sets of ``size``: each started from the next unused member (in pool order) and grown by
    the fitting member whose images show most of the set's other options (ties: pool order);
    the images of the sets made are added to ``used``."""
    for first in pool:
        if first.scene in used:
            continue
        current = [first]
        while len(current) < size:
            best: tuple[int, int] | None = None
            for k, m in enumerate(pool):
                if m.scene in used or m in current or not m.fits(current):
                    continue
                score = m.shown(current)
                if best is None or score > best[0]:
                    best = (score, k)
            if best is None:
                break
            current.append(pool[best[1]])
        if len(current) == size:
            used |= {m.scene for m in current}
            yield [(m.scene, m.frame) for m in current]


class _Ahead:
    """An iterator that can be looked one item ahead."""

    def __init__(self, items: Iterator[list[tuple[int, Frame]]]) -> None:
        self.items = items
        self.head: list[tuple[int, Frame]] | None = None
        self.done = False

    def peek(self) -> list[tuple[int, Frame]] | None:
        """The next item (``None`` when there is none left)."""
        if self.head is None and not self.done:
            self.head = next(self.items, None)
            self.done = self.head is None
        return self.head

    def pop(self) -> None:
        """Drop the item ahead."""
        self.peek()
        self.head = None


def interleave_sets(by_wording: dict[str, Iterator[list[tuple[int, Frame]]]], binary: bool,
                    rng: random.Random) -> Iterator[tuple[str, list[tuple[int, Frame]]]]:
    """Sets of the largest size first; within a size, each wording's next set in turn
    (wordings in a seeded order): every wording's first set, then every second set, …"""
    keys = sorted(by_wording)
    rng.shuffle(keys)
    ahead = {k: _Ahead(by_wording[k]) for k in keys}
    for size in SIZES[binary]:
        found = True
        while found:
            found = False
            for key in keys:
                head = ahead[key].peek()
                if head is not None and len(head) == size:
                    found = True
                    ahead[key].pop()
                    yield key, head


def shown_share(members: Sequence[tuple[int, Frame]], graphs: Graphs) -> float:
    """Multiple choice: the share of (member, other option) pairs whose image shows that option
    (an object reading as it, which fails the rule there); 0 for Yes/No pairs."""
    if TASKS[members[0][1].task_type].binary:
        return 0.0
    answers = [answer_entity(f, graphs(scene)) for scene, f in members]
    hits = sum(any(same_thing(entity(o), answers[j]) for o in graphs(scene).scene.objects)
               for i, (scene, _) in enumerate(members) for j in range(len(members)) if j != i)
    return hits / (len(members) * (len(members) - 1))


def signature(members: Sequence[tuple[int, Frame]]) -> tuple[tuple[str, str], ...]:
    """What a set's members are, as slices see them: each member's graph type and outcome.
    The Yes/No polarity is balanced per signature, so that a slice by graph type, which may
    hold only some members of a pair, holds Yes and No alike."""
    return tuple(sorted((f.match.graph_type, str(f.outcome)) for _, f in members))


class Balanced:
    """Seeded balanced blocks of ``0 … size-1``, one stream per key: ``peek`` the next value,
    ``take`` it once it has been used (so failed attempts do not unbalance the stream)."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng, self.size = rng, size
        self.queues: dict[object, list[int]] = {}

    def peek(self, key: object) -> int:
        """The next value of ``key``'s stream."""
        queue = self.queues.setdefault(key, [])
        if not queue:
            queue += range(self.size)
            self.rng.shuffle(queue)
        return queue[0]

    def take(self, key: object) -> int:
        """Consume the next value of ``key``'s stream."""
        value = self.peek(key)
        self.queues[key].pop(0)
        return value


def option_kind(cg: CausalGraph, option: Entity) -> str:
    """``graph`` (an object of the image's causal graph reads as it), ``image`` (an object of
    the image outside the graph does) or ``text`` (nothing in the image does)."""
    found = [o for o in cg.scene.objects if same_thing(entity(o), option)]
    if any(o.object_id in cg.graph for o in found):
        return "graph"
    return "image" if found else "text"


def choice_question(c: FrameContext, options: Sequence[Entity], answer_index: int,
                    sources: Sequence[int]) -> Question | str:
    """A multiple-choice question with the set's options (``sources``: the image each option
    answers), or why it cannot be posed."""
    task = c.task
    assert isinstance(task, MultipleChoiceTask)
    text = render(task.templates[""], c.values)
    kinds = tuple("correct" if k == answer_index else option_kind(c.cg, e)
                  for k, e in enumerate(options))
    forbidden = tuple(e for e in options if not any(same_thing(e, n) for n in c.named))
    problems = question_problems(text, c.named, forbidden)
    if problems:
        return f"leakage: {problems[0]}"
    return c.question(text, tuple(e.name for e in options), answer_index, kinds, forbidden,
                      {"answer_nodes": list(c.frame.answer),
                       "options_answer_images": list(sources)})


WORDINGS = ("same", "one object differs")
"""How the members of a set are worded: the very same question (an exact contrast set), or
the same but for the object in one slot (a near set, ``near``)."""


def pose_set(members: Sequence[tuple[int, Frame]], graphs: Graphs, set_id: str,
             polarity: str, order: Sequence[int], wording: str = WORDINGS[0]
             ) -> list[Question] | str:
    """The questions of one contrast set, or why one member cannot be posed. Yes/No: every
    member in ``polarity``; multiple choice: the options (the members' answers) in ``order``,
    a permutation of the members; ``wording``: one of ``WORDINGS`` (recorded)."""
    contexts = [FrameContext(frame, graphs(scene)) for scene, frame in members]
    task = contexts[0].task
    made: list[Question | str]
    if isinstance(task, BinaryTask):
        made = [binary_question(c, task, polarity) for c in contexts]
    else:
        answers = [answer_entity(c.frame, c.cg) for c in contexts]
        options = [answers[k] for k in order]
        sources = [contexts[k].cg.image_id for k in order]
        made = [choice_question(c, options, list(order).index(k), sources)
                for k, c in enumerate(contexts)]
    failed = next((m for m in made if isinstance(m, str)), None)
    if failed is not None:
        return failed
    return [replace(q, contrast=set_id, provenance={
        **q.provenance, "contrast": {"set": set_id, "size": len(members),
                                     "images": [c.cg.image_id for c in contexts],
                                     "wording": wording}})
            for q in made if not isinstance(q, str)]
