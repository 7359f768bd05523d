"""The shortcut-free design of C-VQA-Synthetic: the four options of both questions first, then
which of them is right, then the scene (``scenes.options``).

Each image gets four candidates ``(original answer, counterfactual answer)``: the original
options are their first values, the counterfactual options their second values. The numbers
are drawn close together (gaps of 1–3) within the release's answer ranges, and rows are paired
only as a scene could give them (the counterfactual below the original where the premise can
only remove). Templates 2 and 4 name N in the premise: every candidate then has
``counterfactual = original − N``, so N points to none of them, and no counterfactual option
equals N (the premise would name it). Template 5's premise says "two": no counterfactual
option is 2. Which candidate is right is dealt (``generate.plan``: its rank among the original
options, balanced per template and letter); the scene is built to give it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import partial

from whatifbench.scenes.options import Candidates, candidates, matched, near_values
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


@dataclass(frozen=True)
class Plan:
    """What one shortcut-free image is built to ask."""

    template: int
    """1 … 6."""
    candidates: Candidates[tuple[int, int]]
    """Four ``(original, counterfactual)`` candidates, one of them right."""
    n: int | None
    """N of templates 2 and 4 (shown in the premise), else ``None``."""

    @property
    def answers(self) -> tuple[int, int]:
        """The right (original, counterfactual) answers."""
        return self.candidates.right

    def distractors(self, role: int) -> tuple[int, ...]:
        """The wrong options of the original (``role`` 0) or counterfactual (1) question."""
        return tuple(row[role] for row in self.candidates.others())


def _t5_possible(orig: int, cf: int) -> bool:
    """Can template 5 give these answers (one or two of the top three circles removed, 1–7
    dots per circle)?"""
    for gone in (1, 2):
        kept = 3 - gone
        low = max(kept, orig - T5_STEP * gone, cf - T5_STEP * gone)
        if low <= min(T5_STEP * kept, orig - gone, cf - gone):
            return True
    return False


RULES = {
    1: lambda o, c: 1 <= o - c <= MOST_REMOVED,
    3: lambda o, c: 1 <= o - c <= MOST_REMOVED,
    5: lambda o, c: o != c and _t5_possible(o, c),
    6: lambda o, c: c < o,
}
"""How the original and counterfactual answer of one candidate must relate."""


def _rows(template: int, n: int | None, rng: random.Random) -> list[tuple[int, int]] | None:
    (low, high), (c_low, c_high) = RANGES[template]  # the release's answer ranges
    if n is not None:  # every counterfactual = original − N, none equal to N
        values = near_values(rng, max(low, n, c_low + n), min(high, c_high + n), K,
                             exclude=(2 * n,))
        return None if values is None else [(v, v - n) for v in values]
    originals = near_values(rng, low, high, K)
    counterfactuals = near_values(rng, c_low, c_high, K, exclude=(2,) if template == 5 else ())
    if originals is None or counterfactuals is None:
        return None
    return matched(rng, originals, counterfactuals, RULES[template])


def draw_plan(template: int, rng: random.Random, answer: int | None = None) -> Plan:
    """The plan of one image: N (templates 2, 4), the candidates (ascending by original
    answer), the right one (``answer``: its index, dealt per template; else a uniform draw)."""
    while True:
        n = rng.randint(1, N_MAX[template]) if template in N_MAX else None
        found = candidates(rng, partial(_rows, template, n), answer)
        if found is not None:
            return Plan(template, found, n)
