"""The shortcut-free design of C-VQA-Synthetic: the four options of both questions first, then
which of them is right, then the scene (``scenes.options``).

Each image gets four original options and four counterfactual options, drawn close together
(gaps of 1–3) within the release's answer ranges, and then the right one of each, dealt
(``generate.plan``: the original's rank balanced per template and letter, the counterfactual's
balanced per template, original rank and letter). Where the premise leaves the size of the
change open (templates 1, 3, 5, 6) the two sets are drawn so that *every* original option can
go with *every* counterfactual option (templates 1, 3 and 6: all counterfactual options below
all original ones, the widest gap within what the premise can remove; template 5: every
combination reachable by removing one or two of the top three circles), and the two right
ones are dealt independently: given the texts, each of the 16 pairs of answers is right with
probability 1/16, so a reader who guesses the pair jointly scores the chance of guessing each
question alone, and a reader who sees the original and answers the counterfactual with it (or
with any other option) is right a quarter of the time.

Templates 2 and 4 name N in the premise: every counterfactual option is its original minus N
(the counterfactual follows from the original: a joint guess is right a quarter of the time,
the joint chance these templates cannot go below), no counterfactual option equals N, and
neighbouring originals are less than 2N apart, so that the counterfactual option nearest to
the original answer is the right one only when the original is the largest option (a
quarter of the time). Template 5's premise says "two": no counterfactual option is 2.
Template 6 (the most dots in a circle, then without that circle) reaches up to ``T6_HIGH``
dots instead of the release's 8, so that four counterfactual options fit below four original
ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from whatifbench.scenes.options import GAPS, TRIES, near_values
from whatifbench.suites.cvqa.synthetic.templates import RANGES

K = 4
"""Options per question."""
N_MAX = {2: 18, 4: 30}
"""Largest N (flowers / dots removed) of templates 2 and 4: room for four options."""
MOST_REMOVED = 12
"""Templates 1 and 3: at most this many flowers in the region the premise empties (as the
release's region counts)."""
T5_STEP = 7
"""Template 5: at most this many dots per circle (as the release)."""


T6_HIGH = 12
"""Template 6: the most dots in a circle, at most (the release: 8)."""
RANGES_FREE = {**RANGES, 6: ((4, T6_HIGH), RANGES[6][1])}
"""(original, counterfactual) answer ranges of the shortcut-free design."""


@dataclass(frozen=True)
class Plan:
    """What one shortcut-free image is built to ask."""

    template: int
    """1 … 6."""
    originals: tuple[int, ...]
    """The four original options, ascending."""
    counterfactuals: tuple[int, ...]
    """The four counterfactual options, ascending."""
    right: tuple[int, int]
    """Index of the right original and of the right counterfactual option."""
    n: int | None
    """N of templates 2 and 4 (shown in the premise), else ``None``."""

    @property
    def answers(self) -> tuple[int, int]:
        """The right (original, counterfactual) answers."""
        return self.originals[self.right[0]], self.counterfactuals[self.right[1]]

    def distractors(self, role: int) -> tuple[int, ...]:
        """The wrong options of the original (``role`` 0) or counterfactual (1) question."""
        values = (self.originals, self.counterfactuals)[role]
        return values[:self.right[role]] + values[self.right[role] + 1:]


def _t5_possible(orig: int, cf: int) -> bool:
    """Can template 5 give these answers (one or two of the top three circles removed, 1–7
    dots per circle)?"""
    for gone in (1, 2):
        kept = 3 - gone
        low = max(kept, orig - T5_STEP * gone, cf - T5_STEP * gone)
        if low <= min(T5_STEP * kept, orig - gone, cf - gone):
            return True
    return False


def _shifted(template: int, n: int, rng: random.Random
             ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Templates 2, 4: originals less than 2N apart, none 2N; counterfactuals = originals − N."""
    (low, high), (c_low, c_high) = RANGES[template]
    gaps = [g for g in GAPS if g < 2 * n]
    values = near_values(rng, max(low, n, c_low + n), min(high, c_high + n), K, gaps,
                         exclude=(2 * n,))
    return None if values is None else (values, tuple(v - n for v in values))


def _crossed(template: int, rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Templates 1, 3, 5, 6: two sets whose every combination the premise can give."""
    (low, high), (c_low, c_high) = RANGES_FREE[template]
    cfs = near_values(rng, c_low, c_high, K, exclude=(2,) if template == 5 else ())
    if cfs is None:
        return None
    if template == 5:
        originals = near_values(rng, low, high, K)
        if originals is None or set(originals) & set(cfs) or not all(
                _t5_possible(o, c) for o in originals for c in cfs):
            return None
        return originals, cfs
    reach = MOST_REMOVED if template in (1, 3) else high
    originals = near_values(rng, max(low, cfs[-1] + 1), min(high, cfs[0] + reach), K)
    return None if originals is None else (originals, cfs)


def draw_plan(template: int, rng: random.Random, right: tuple[int, int] | None = None
              ) -> Plan:
    """The plan of one image: N (templates 2, 4), the options of both questions (ascending),
    the right ones (``right``: their indexes, dealt per template; else uniform draws; for
    templates 2 and 4 the counterfactual's index is the original's)."""
    while True:
        n = rng.randint(1, N_MAX[template]) if template in N_MAX else None
        for _ in range(TRIES):
            found = _crossed(template, rng) if n is None else _shifted(template, n, rng)
            if found is not None:
                break
        else:
            continue
        i, j = right if right is not None else (rng.randrange(K), rng.randrange(K))
        return Plan(template, found[0], found[1], (i, i if n is not None else j), n)
