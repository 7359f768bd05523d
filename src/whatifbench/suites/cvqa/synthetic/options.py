"""The release's multiple-choice options: four distinct non-negative integers, A–D."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from whatifbench.scenes.options import deal

LETTERS = "ABCD"
DISTRACTOR_SPAN = (-5, 6)
"""Distractors lie within these offsets of the correct value (as in the release)."""
PROMPT = " Select the correct answer:"
"""What precedes the options in every release question."""
OPTIONS_RE = re.compile(r" Select the correct answer:A:(\S+)  B:(\S+)  C:(\S+)  D:(\S+)\Z")
"""The options suffix of a release question (two spaces between options)."""


def make_options(value: int, letter: int, rng: random.Random,
                 balanced_values: bool = False) -> tuple[int, ...]:
    """Four distinct non-negative options with ``value`` at position ``letter`` (0–3).

    As in the release, the three distractors are drawn from ``value - 5 … value + 6``, which
    makes the correct value most often the second smallest option (a text-only shortcut).
    ``balanced_values`` first draws how many distractors lie below the value (uniformly among
    what is possible), so that the value's rank among the options carries no information.
    """
    low, high = DISTRACTOR_SPAN
    below = [v for v in range(value + low, value) if v >= 0]
    above = list(range(value + 1, value + high + 1))
    if balanced_values:
        under = rng.choice([r for r in range(4) if r <= len(below)])
        distractors = rng.sample(below, under) + rng.sample(above, 3 - under)
        rng.shuffle(distractors)
    else:
        distractors = rng.sample(below + above, 3)
    return (*distractors[:letter], value, *distractors[letter:])


def options_text(options: tuple[int, ...] | tuple[str, ...]) -> str:
    """`` Select the correct answer:A:18  B:23  C:21  D:19`` for four options."""
    return PROMPT + "  ".join(f"{LETTERS[i]}:{v}" for i, v in enumerate(options))


def balanced_letters(n: int, rng: random.Random) -> list[int]:
    """``n`` letter positions, each used ``n // 4`` or ``n // 4 + 1`` times, shuffled."""
    return deal(rng, range(4), n)


def window_ambiguous(options: Sequence[int]) -> bool:
    """Whether the options alone leave the release's distractor rule nothing to go by: each
    lies within ``DISTRACTOR_SPAN`` of every other (so each could be the value the distractors
    were drawn around) and no window is cut at 0 (so the distractors are equally likely under
    each). On such counterfactuals a text-only model is near chance (about 28 % where chance is
    25 %, against about 61 % on all counterfactuals of the default design)."""
    low, high = DISTRACTOR_SPAN
    return min(options) + low >= 0 and all(v + low <= w <= v + high
                                           for v in options for w in options)
