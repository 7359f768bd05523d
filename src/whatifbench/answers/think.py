"""Reasoning-model replies: drop ``<think>…</think>`` before extraction."""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_OPEN = re.compile(r"<think>", re.IGNORECASE)


def strip_think(text: str) -> tuple[str, bool]:
    """Return the reply without thinking blocks, and whether a block was left unclosed.

    A reply cut off inside ``<think>`` has no answer: the caller must count it as unparsed.
    """
    without = _BLOCK.sub(" ", text)
    match = _OPEN.search(without)
    if match:
        return without[: match.start()].strip(), True
    return without.strip(), False
