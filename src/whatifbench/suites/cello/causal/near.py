"""Near contrast sets: the fallback of a task short of exact contrast sets (``shortcut-free``).

An exact contrast set (``contrast``) asks the very same question about several images; its
members must name the same objects in every slot. Questions that name two or three objects
("If the street were removed but the man stayed …, would the hat drop?") rarely recur with
another answer, so on a few hundred scene graphs the tasks of the upper rungs get few or no
exact sets. A near set relaxes one thing: its members name the same objects in every slot but
one (the same template, the same polarity, the same options), and still answer differently —
one Yes and one No, or each option the answer of one member (the others failing the rule in
its image). A text-only model can then only go by the one object that differs. Two things keep
that from helping: each slot's differing objects are spread over Yes and No (and over the
options) as the sets are filled (``Spread``), and a set is made only when a reader that
answers from the names by what usually supports what (``prior.SupportPrior``: a stand-in for
world knowledge such as "a saddle rests on a horse") guesses alike for every member, so that
going by the names is right on exactly one member.
The guarantee is statistical where an exact set's is exact; ``whatif audit`` (``--by
contrast``) and ``bench/bench_blind_mucr_cello.py`` measure it.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence

from whatifbench.suites.cello.causal.contrast import SIZES, Graphs, Member
from whatifbench.suites.cello.causal.distractors import entity
from whatifbench.suites.cello.causal.prior import SupportPrior
from whatifbench.suites.cello.causal.tasks import TASKS, Frame

MAX_PER_KEY = 120
"""Candidates of one near key considered for its sets (seeded choice; keeps the search short)."""

Key = tuple[int, tuple[str, ...]]
"""A near key: the slot that may differ, and the names in the other slots."""


def slot_names(frame: Frame, graphs: Graphs, scene: int) -> tuple[str, ...]:
    """The names a frame's question gives its slots, in slot order."""
    cg = graphs(scene)
    return tuple(entity(cg.graph.nodes[node]["obj"]).name for _, node in frame.slots)


def near_keys(names: tuple[str, ...]) -> list[Key]:
    """One key per slot: the slot left free, the other slots' names."""
    return [(s, names[:s] + names[s + 1:]) for s in range(len(names))]


class Spread:
    """How often each (slot, name) stood in a member answered each way (Yes/No, or the answer's
    name): a member is preferred whose free slot's name was answered its way less often than
    other ways so far."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, str], Counter[str]] = defaultdict(Counter)

    def cost(self, slot: int, name: str, outcome: str) -> int:
        """How much adding a member (``name`` in ``slot``, answered ``outcome``) tips the
        slot's name towards that answer."""
        counts = self.seen[slot, name]
        return 2 * counts[outcome] - sum(counts.values())

    def add(self, slot: int, named: Sequence[tuple[str, str]]) -> None:
        """Count the members of a set made (``(name, outcome)`` each)."""
        for name, outcome in named:
            self.seen[slot, name][outcome] += 1


def _outcome(m: Member) -> str:
    return str(m.frame.outcome) if m.answer is None else m.answer.name


def agrees(prior: SupportPrior, members: Sequence[Member], names: dict[int, tuple[str, ...]],
           binary: bool) -> bool:
    """Whether the world-knowledge reader (``prior``) guesses alike for every member (the same
    outcome, the same option, or no guess at all): then going by the names is right on
    exactly one member of the set, as on an exact set."""
    options = () if binary else tuple(_outcome(m) for m in members)
    guesses = {prior.guess(m.frame.task_type,
                           [(slot, name) for (slot, _), name in
                            zip(m.frame.slots, names[id(m)], strict=True)], options)
               for m in members}
    return len(guesses) == 1


def near_sets(candidates: Sequence[tuple[int, Frame]], graphs: Graphs, rng: random.Random,
              taken: set[tuple[int, Frame]], learn: Callable[[], SupportPrior]
              ) -> Iterator[tuple[Key, list[tuple[int, Frame]]]]:
    """Near sets among frames of one task not in ``taken`` (frames already posed; the frames
    of the sets made are added to it), largest first (``SIZES``), keys in a seeded order
    taking turns, each set grown by the fitting member that keeps each slot's names spread
    over the answers (``Spread``; ties: the seeded order), every set one on which the
    world-knowledge reader ``learn()`` gives guesses alike (``agrees``)."""
    if not candidates:
        return
    prior = learn()
    members = [Member(scene, frame, graphs) for scene, frame in candidates
               if (scene, frame) not in taken]
    rng.shuffle(members)
    by_key: dict[Key, list[Member]] = defaultdict(list)
    names = {id(m): slot_names(m.frame, graphs, m.scene) for m in members}
    for m in members:
        for key in near_keys(names[id(m)]):
            if len(by_key[key]) < MAX_PER_KEY:
                by_key[key].append(m)
    keys = sorted((k for k, pool in by_key.items() if len(pool) > 1), key=repr)
    rng.shuffle(keys)
    spread = Spread()
    binary = TASKS[candidates[0][1].task_type].binary
    for size in SIZES[binary]:
        found = True
        while found:
            found = False
            for key in keys:
                made = _one_set(by_key[key], size, key[0], names, spread, taken,
                                lambda ms: agrees(prior, ms, names, binary))
                if made is not None:
                    found = True
                    yield key, made


def _one_set(pool: list[Member], size: int, slot: int, names: dict[int, tuple[str, ...]],
             spread: Spread, taken: set[tuple[int, Frame]],
             alike: Callable[[list[Member]], bool]) -> list[tuple[int, Frame]] | None:
    """The next set of ``size`` from a key's pool (``None`` when none is left): its members
    name different objects in the free ``slot``, and every set grown so far satisfies
    ``alike`` (the world-knowledge reader guesses alike for all members)."""
    def free(m: Member) -> tuple[str, str]:
        return names[id(m)][slot], _outcome(m)

    for first in pool:
        if (first.scene, first.frame) in taken or spread.cost(slot, *free(first)) > 0:
            continue
        current = [first]
        while len(current) < size:
            best: tuple[int, int] | None = None
            for k, m in enumerate(pool):
                if (m.scene, m.frame) in taken or m in current or not m.fits(current) \
                        or names[id(m)][slot] in {names[id(c)][slot] for c in current} \
                        or not alike([*current, m]):
                    continue
                cost = spread.cost(slot, *free(m))
                if cost <= 0 and (best is None or cost < best[0]):
                    best = (cost, k)
            if best is None:
                break
            current.append(pool[best[1]])
        if len(current) == size:
            taken |= {(m.scene, m.frame) for m in current}
            spread.add(slot, [free(m) for m in current])
            return [(m.scene, m.frame) for m in current]
    return None
