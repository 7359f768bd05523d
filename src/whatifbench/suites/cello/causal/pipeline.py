"""Scene graphs → questions: collect frames, select per task (stratified, balanced), assemble.

Deterministic for a seed: scenes are visited in a seeded order until every task has
``OVERSAMPLE × per_task`` candidate frames (at most ``PER_IMAGE`` per image, task and graph
type); each task then takes candidates round-robin over its strata (graph type, and for Yes/No
tasks whether the asked-about change happens; strata in a seeded order) and keeps the first
``per_task`` that assemble.
Correct-option positions and Yes/No answers follow seeded balanced blocks.

``design="shortcut-free"`` gathers many more candidates (``SF_OVERSAMPLE``, ``SF_PER_IMAGE``)
and poses only contrast sets (``causal.contrast``): about ``per_task`` questions per task, in
whole sets, one set per wording first (wordings in a seeded order), then second sets; a task
still short of ``per_task`` is filled with near sets (``causal.near``: the same question but
for the object in one slot), so that every task is posed on a few hundred scene graphs.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from whatifbench.core.design import PAPER, SHORTCUT_FREE, check_design
from whatifbench.suites.cello.causal.assemble import Question, assemble
from whatifbench.suites.cello.causal.contrast import (
    WORDINGS,
    Balanced,
    contrast_sets,
    interleave_sets,
    pose_set,
    shown_share,
    signature,
    wording,
)
from whatifbench.suites.cello.causal.distractors import NameIndex, entity
from whatifbench.suites.cello.causal.entities import same_thing
from whatifbench.suites.cello.causal.graph import CausalGraph, build_causal_graph
from whatifbench.suites.cello.causal.near import near_sets
from whatifbench.suites.cello.causal.prior import SupportPrior
from whatifbench.suites.cello.causal.scene_graph import SceneGraph
from whatifbench.suites.cello.causal.tasks import TASKS, Frame
from whatifbench.suites.cello.causal.templates import Match, find_matches

OVERSAMPLE = 10
"""Candidate frames gathered per requested question, before selection."""
PER_IMAGE = 2
"""At most this many frames per image, task and graph type enter the pool."""
SF_OVERSAMPLE = 100
"""``shortcut-free``: candidate frames gathered per requested question (contrasts are rare)."""
SF_PER_IMAGE = 6
"""``shortcut-free``: frames per image, task and graph type."""
SF_CHOICE = 3
"""``shortcut-free``: contrast sets gathered per question wanted, to prefer those whose
distractors are in the pictures."""


@dataclass(frozen=True)
class Candidate:
    """A frame on one scene, waiting for selection."""

    scene: int
    """Index of the scene graph in the input."""
    frame: Frame
    """The task instance."""

    @property
    def stratum(self) -> tuple[str, str]:
        """Selection stratum: graph type, and the structural outcome of Yes/No frames."""
        outcome = "" if self.frame.outcome is None else str(self.frame.outcome)
        return (self.frame.match.graph_type, outcome)


@dataclass(frozen=True)
class PipelineResult:
    """The questions and the counts of everything left out."""

    questions: tuple[Question, ...]
    """Selected questions, task by task in the paper's order."""
    scenes: dict[str, int]
    """Scene counts: ``visited``, ``no causal edge``, ``cyclic``, ``with frames``."""
    candidates: dict[str, int]
    """Candidate frames per task."""
    skipped: dict[str, int]
    """Candidates that could not be posed, by ``task: reason``."""
    contrast: dict[str, dict[str, int]] = field(default_factory=dict)
    """``shortcut-free``: per task, the ``items`` posed (``near_items`` of them in near sets),
    ``wordings`` among the candidates, contrast ``sets`` posed, how many of each size
    (``sets_of_4`` …) and how many are ``near_sets`` (``causal.near``)."""


def distinct_names(match: Match, cg: CausalGraph) -> bool:
    """True when no two matched objects read as the same thing (``man`` and ``men``)."""
    ents = [entity(cg.graph.nodes[n]["obj"]) for n in match.nodes]
    return not any(same_thing(a, b) for i, a in enumerate(ents) for b in ents[i + 1:])


def collect(scenes: Sequence[SceneGraph], per_task: int, rng: random.Random,
            tasks: Sequence[str], oversample: int = OVERSAMPLE, per_image: int = PER_IMAGE
            ) -> tuple[dict[str, list[Candidate]], Counter[str]]:
    """Candidate frames per task, from scenes visited in a seeded order."""
    order = list(range(len(scenes)))
    rng.shuffle(order)
    target = per_task * oversample
    pools: dict[str, list[Candidate]] = {t: [] for t in tasks}
    counts: Counter[str] = Counter()
    for index in order:
        if all(len(pool) >= target for pool in pools.values()):
            break
        counts["visited"] += 1
        cg = build_causal_graph(scenes[index])
        if cg.graph.number_of_edges() == 0:
            counts["no causal edge"] += 1
            continue
        if not cg.is_dag:
            counts["cyclic"] += 1
            continue
        matches = [m for m in find_matches(cg.graph) if distinct_names(m, cg)]
        added = False
        for name in tasks:
            if len(pools[name]) >= target:
                continue
            for graph_type in TASKS[name].graph_types:
                frames = [f for m in matches if m.graph_type == graph_type
                          for f in TASKS[name].frames(m, cg.graph)]
                if len(frames) > per_image:
                    frames = rng.sample(frames, per_image)
                pools[name] += [Candidate(index, f) for f in frames]
                added = added or bool(frames)
        counts["with frames"] += added
    return pools, counts


def interleave(pool: Sequence[Candidate], rng: random.Random) -> Iterator[Candidate]:
    """Round-robin over strata (in a seeded order), each stratum in pool order."""
    strata: dict[tuple[str, str], list[Candidate]] = {}
    for cand in pool:
        strata.setdefault(cand.stratum, []).append(cand)
    keys = sorted(strata)
    rng.shuffle(keys)
    queues = [strata[k] for k in keys]
    for depth in range(max((len(q) for q in queues), default=0)):
        for queue in queues:
            if depth < len(queue):
                yield queue[depth]


def balanced(rng: random.Random, size: int) -> Iterator[int]:
    """An endless sequence of 0 … size-1 in shuffled blocks (every prefix nearly balanced)."""
    while True:
        block = list(range(size))
        rng.shuffle(block)
        yield from block


def run_pipeline(scenes: Sequence[SceneGraph], per_task: int, seed: int,
                 tasks: Sequence[str] | None = None,
                 vocabulary: Sequence[SceneGraph] | None = None,
                 design: str = SHORTCUT_FREE) -> PipelineResult:
    """Build up to ``per_task`` questions of each task from the scene graphs; ``vocabulary``:
    the scene graphs whose object names feed the text distractors (default ``scenes``;
    ``shortcut-free`` has none: its options are the answers of a contrast set)."""
    tasks = list(tasks or TASKS)
    rng = random.Random(seed)
    if check_design(design) != PAPER:
        return shortcut_free(scenes, per_task, rng, tasks)
    pools, scene_counts = collect(scenes, per_task, rng, tasks)
    names = NameIndex(vocabulary if vocabulary is not None else scenes)
    graphs: dict[int, CausalGraph] = {}
    questions: list[Question] = []
    skipped: Counter[str] = Counter()
    for name in tasks:
        positions = balanced(rng, 2 if TASKS[name].binary else 4)
        chosen: list[Question] = []
        seen: set[tuple[int, str]] = set()
        position = next(positions)
        for cand in interleave(pools[name], rng):
            if len(chosen) >= per_task:
                break
            if cand.scene not in graphs:
                graphs[cand.scene] = build_causal_graph(scenes[cand.scene])
            made = assemble(cand.frame, graphs[cand.scene], names, rng,
                            position=position, want_yes=position == 0)
            if isinstance(made, str):
                skipped[f"{name}: {made}"] += 1
                continue
            if (made.image_id, made.text) in seen:
                skipped[f"{name}: duplicate question"] += 1
                continue
            seen.add((made.image_id, made.text))
            chosen.append(made)
            position = next(positions)
        questions += chosen
    return PipelineResult(tuple(questions), dict(scene_counts),
                          {t: len(pools[t]) for t in tasks}, dict(sorted(skipped.items())))


def _preferred(found: Iterator[tuple[str, list[tuple[int, Frame]]]], per_task: int,
               graphs: Callable[[int], CausalGraph]) -> list[list[tuple[int, Frame]]]:
    """Up to ``SF_CHOICE`` × ``per_task`` items' worth of contrast sets, in the order found
    (largest first, one per wording first), then reordered: larger sets first, and among sets
    of one size those whose images show more of their distractors (stable: ties keep the
    order found)."""
    gathered: list[list[tuple[int, Frame]]] = []
    items = 0
    for _, members in found:
        gathered.append(members)
        items += len(members)
        if items >= SF_CHOICE * per_task:
            break
    shown = [shown_share(m, graphs) for m in gathered]
    order = sorted(range(len(gathered)), key=lambda k: (-len(gathered[k]), -shown[k]))
    return [gathered[k] for k in order]


def member_order(made: list[Question], order: Balanced, task: str) -> list[Question]:
    """The members of a set in the order they are written (and numbered): a Yes/No pair's Yes
    member first in exactly every other pair of a task (dealt, ``order``), so neither the
    order nor the ids tell which is which; a multiple-choice set as posed (its members' answers
    stand at the positions of a random permutation)."""
    if len(made) != 2 or set(made[0].options) != {"Yes", "No"}:
        return made
    yes_first = order.take(task) == 0
    first_yes = made[0].options[made[0].answer_index] == "Yes"
    return made if first_yes == yes_first else made[::-1]


def shortcut_free(scenes: Sequence[SceneGraph], per_task: int, rng: random.Random,
                  tasks: Sequence[str]) -> PipelineResult:
    """About ``per_task`` questions per task in whole contrast sets (``causal.contrast``)."""
    pools, scene_counts = collect(scenes, per_task, rng, tasks, SF_OVERSAMPLE, SF_PER_IMAGE)
    cache: dict[int, CausalGraph] = {}

    def graphs(index: int) -> CausalGraph:
        if index not in cache:
            cache[index] = build_causal_graph(scenes[index])
        return cache[index]

    learnt: list[SupportPrior] = []

    def prior() -> SupportPrior:  # learnt once, when a task first needs near sets
        if not learnt:
            seen = sorted({c.scene for pool in pools.values() for c in pool})
            learnt.append(SupportPrior(graphs(k) for k in seen))
        return learnt[0]

    questions: list[Question] = []
    skipped: Counter[str] = Counter()
    stats: dict[str, dict[str, int]] = {}
    set_ids = (f"cello-set-{k}" for k in range(1, 1 << 62))
    set_id = next(set_ids)
    order = Balanced(random.Random(rng.getrandbits(64)), 2)
    for name in tasks:
        by_wording: dict[str, list[tuple[int, Frame]]] = defaultdict(list)
        for cand in pools[name]:
            by_wording[wording(cand.frame, graphs(cand.scene))].append((cand.scene, cand.frame))
        binary = TASKS[name].binary
        sets = {w: contrast_sets(by_wording[w], graphs, rng) for w in sorted(by_wording)}
        polarity = Balanced(rng, 2)
        posed = items = 0
        sizes: Counter[int] = Counter()
        taken: set[tuple[int, Frame]] = set()
        made_by: Counter[str] = Counter()
        found = ((WORDINGS[0], members) for members in
                 _preferred(interleave_sets(sets, binary, rng), per_task, graphs))
        near = ((WORDINGS[1], members) for _, members in
                near_sets([(c.scene, c.frame) for c in pools[name]], graphs, rng, taken,
                          prior))
        for how, members in itertools.chain(found, near):
            if items >= per_task:
                break
            kind = signature(members)
            made = pose_set(members, graphs, set_id, ("fall", "stay")[polarity.peek(kind)],
                            rng.sample(range(len(members)), len(members)), how)
            if isinstance(made, str):
                skipped[f"{name}: {made}"] += 1
                continue
            polarity.take(kind)
            questions += member_order(made, order, name)
            taken |= set(members)
            posed, items = posed + 1, items + len(made)
            sizes[len(made)] += 1
            made_by[how] += 1
            set_id = next(set_ids)
        near_items = sum(1 for q in questions[len(questions) - items:]
                         if q.provenance["contrast"]["wording"] == WORDINGS[1])
        stats[name] = {"items": items, "near_items": near_items, "wordings": len(by_wording),
                       "sets": posed,
                       **{f"sets_of_{k}": sizes[k] for k in sorted(sizes, reverse=True)},
                       "near_sets": made_by[WORDINGS[1]]}
    return PipelineResult(tuple(questions), dict(scene_counts),
                          {t: len(pools[t]) for t in tasks}, dict(sorted(skipped.items())),
                          stats)
