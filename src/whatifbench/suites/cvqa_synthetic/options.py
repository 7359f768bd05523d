"""The release's multiple-choice options: four distinct non-negative integers, A–D."""

from __future__ import annotations

import random
import re

LETTERS = "ABCD"
DISTRACTOR_SPAN = (-5, 6)
"""Distractors lie within these offsets of the correct value (as in the release)."""
PROMPT = " Select the correct answer:"
"""What precedes the options in every release question."""
OPTIONS_RE = re.compile(r" Select the correct answer:A:(\S+)  B:(\S+)  C:(\S+)  D:(\S+)\Z")
"""The options suffix of a release question (two spaces between options)."""


def make_options(value: int, letter: int, rng: random.Random) -> tuple[int, ...]:
    """Four distinct non-negative options with ``value`` at position ``letter`` (0–3)."""
    low, high = DISTRACTOR_SPAN
    pool = [v for v in range(value + low, value + high + 1) if v >= 0 and v != value]
    distractors = rng.sample(pool, 3)
    return (*distractors[:letter], value, *distractors[letter:])


def options_text(options: tuple[int, ...] | tuple[str, ...]) -> str:
    """`` Select the correct answer:A:18  B:23  C:21  D:19`` for four options."""
    return PROMPT + "  ".join(f"{LETTERS[i]}:{v}" for i, v in enumerate(options))


def balanced_letters(n: int, rng: random.Random) -> list[int]:
    """``n`` letter positions, each used ``n // 4`` or ``n // 4 + 1`` times, shuffled."""
    letters = [i % 4 for i in range(n)]
    rng.shuffle(letters)
    return letters
