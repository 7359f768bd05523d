"""Options that do not give the answer away: draw the candidates first, then the answer.

A multiple-choice question leaks its answer to a reader who never looks at the image as soon as
what the text shows depends on which option is right. Distractors drawn around the answer
(``v − 5 … v + 6``, cut at 0) make the answer the second smallest option most of the time; a
scene sampler that rejects some answers more often than others (too crowded, too small) makes
some values, shapes or words more often right than wrong; a premise chosen because of the
answer ("squashed to half its width" only for wide rectangles) names it. The
``shortcut-free`` designs of the generators avoid all of these the same way:

1. **Candidates first.** Draw the ``k`` candidate answers of a question, or of a pair of
   questions (then each candidate is a tuple: one answer per question, e.g. original and
   counterfactual count), from a distribution that does not depend on which candidate will be
   right. Everything else the text shows (a number in a premise, the premise itself) is drawn
   before them or shared by all candidates.
2. **Then the answer.** Pick the right candidate independently of the candidates: uniformly,
   or better dealt in balanced shares (``deal``, ``deal_by``), so that every value and position
   is right exactly as often as the others within a template, not only on average; deal its
   position among the options the same way.
3. **Then the scene.** Build a scene whose programs give that answer, redrawing only what the
   text does not show (positions, sizes, unnamed objects) until every check passes: never the
   candidates or the answer.

Deal within every slice a reader could learn from (per template and position, leftovers taking
turns: ``deal_by``): a deal per category leaves some template's answers at B 55 % of the time by
chance, and a probe learns exactly that. Deal the letters of the two questions of a pair
independently of each other (the same letter in about 1/k of the pairs) and give each question
its options in an order of its own (``arrange``: a full shuffle, the answer at its dealt
letter): a shared letter hands a letter-biased model the second answer with the first, and a
shared order with only the answer moved shows which option is the answer.

What a harness shows besides the text must say nothing either: file names and ids are opaque
(``scenes.opaque``), and the members of a pair or set stand in an order of their own.

Given everything a text-only reader sees, each candidate is then right with probability exactly
1/k: the answer's rank, position and value are distributed like the distractors', for any
classifier. ``near_values`` draws number candidates close to each other (gaps of 1–3), so
that the options still ask for an exact count, and the answer's values follow from the sets
(lower near the ends of a range, where fewer sets fit): that is the price of exactness.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import accumulate, permutations
from typing import Generic, TypeVar

T = TypeVar("T")
GAPS = (1, 2, 3)
"""Default gaps between neighbouring number candidates."""
TRIES = 200
"""Draws before a sampler gives up (returns ``None``; the caller draws its plan again)."""


@dataclass(frozen=True)
class Candidates(Generic[T]):
    """The candidate answers of a question (or of a pair of questions), one of them right."""

    rows: tuple[T, ...]
    """The candidates: values, or tuples with one value per question of a pair."""
    answer: int
    """Index of the right candidate (dealt, or drawn uniformly, after the candidates)."""

    @property
    def right(self) -> T:
        """The right candidate."""
        return self.rows[self.answer]

    def others(self) -> tuple[T, ...]:
        """The wrong candidates, in drawn order."""
        return self.rows[:self.answer] + self.rows[self.answer + 1:]


def candidates(rng: random.Random, draw: Callable[[random.Random], Sequence[T] | None],
               answer: int | None = None, tries: int = TRIES) -> Candidates[T] | None:
    """Draw candidates with ``draw`` (``None``: try again; a draw may reject for any reason
    that does not depend on which candidate will be right), then the right one: ``answer``
    (an index dealt in balanced shares beforehand, see ``deal``), else uniformly. ``None`` when
    ``tries`` draws failed."""
    for _ in range(tries):
        rows = draw(rng)
        if rows:
            return Candidates(tuple(rows), rng.randrange(len(rows)) if answer is None
                              else answer)
    return None


def near_values(rng: random.Random, low: int, high: int, k: int = 4,
                gaps: Sequence[int] = GAPS, exclude: Collection[int] = ()
                ) -> tuple[int, ...] | None:
    """``k`` distinct integers in ``low … high`` (none in ``exclude``), ascending: the gaps
    between neighbours drawn from ``gaps``, the whole set then shifted uniformly over the places
    where it fits. ``None`` when no draw fits."""
    for _ in range(TRIES):
        steps = [rng.choice(gaps) for _ in range(k - 1)]
        span = sum(steps)
        if high - low < span:
            if high - low < min(gaps) * (k - 1):
                return None
            continue
        start = rng.randint(low, high - span)
        values = tuple(accumulate(steps, initial=start))
        if not any(v in exclude for v in values):
            return values
    return None


def matched(rng: random.Random, first: Sequence[int], second: Sequence[int],
            accept: Callable[[int, int], bool]) -> list[tuple[int, int]] | None:
    """Rows pairing each value of ``first`` with one of ``second``, the pairing drawn uniformly
    among those where ``accept`` holds for every row (``None`` when none does). For pairs of
    questions whose answers are bound by a rule the text does not state (the counterfactual
    count below the original one ...)."""
    orders = list(permutations(range(len(second))))
    rng.shuffle(orders)
    for order in orders:
        rows = [(a, second[j]) for a, j in zip(first, order, strict=True)]
        if all(accept(a, b) for a, b in rows):
            return rows
    return None


def deal(rng: random.Random, values: Sequence[T], n: int) -> list[T]:
    """``n`` values cycling through ``values`` (each used ``n // len(values)`` or one more
    times), shuffled: balanced answer positions, premise kinds ..."""
    out = [values[i % len(values)] for i in range(n)]
    rng.shuffle(out)
    return out


def deal_by(rng: random.Random, values: Sequence[T], keys: Sequence[object]) -> list[T]:
    """One value per position, balanced overall and among the positions of each key (each
    value ``m // len(values)`` or one more times in a group of ``m``): the groups, in random
    order, take turns through one cycle of ``values`` from a random start, so that their
    leftovers do not all fall on the same values."""
    out: list[T] = [values[0]] * len(keys)
    turn = rng.randrange(len(values))
    groups = sorted(set(keys), key=repr)
    rng.shuffle(groups)  # which groups get which leftovers: at random
    for key in groups:
        where = [i for i, k in enumerate(keys) if k == key]
        dealt = [values[(turn + j) % len(values)] for j in range(len(where))]
        turn = (turn + len(where)) % len(values)
        rng.shuffle(dealt)
        for i, value in zip(where, dealt, strict=True):
            out[i] = value
    return out


def deal_pairs(rng: random.Random, values: Sequence[T], n: int) -> list[tuple[T, T]]:
    """``n`` ordered pairs of different values, each value first in ``n // len(values)`` or
    one more pairs and second in as many (the right answer and the other option of two-option
    questions: each value is right as often as it is offered wrong)."""
    first, second = deal(rng, values, n), deal(rng, values, n)
    for i in range(n):  # mend pairs of equal values by swapping second values
        if first[i] == second[i]:
            j = next((j for j in range(n) if second[j] != first[i] and first[j] != second[i]),
                     None)
            if j is not None:
                second[i], second[j] = second[j], second[i]
            else:  # too few pairs to mend by swapping
                second[i] = rng.choice([v for v in values if v != first[i]])
    return list(zip(first, second, strict=True))


def arrange(answer: T, others: Sequence[T], position: int, rng: random.Random) -> tuple[T, ...]:
    """The options: ``others`` in random order with ``answer`` inserted at ``position``."""
    rest = list(others)
    rng.shuffle(rest)
    return (*rest[:position], answer, *rest[position:])

