"""The release's own evaluation protocol (``evaluate_cello.py`` / ``utils.py`` of the release).

* Prompt: ``f"Question: {q}\\nChoose from the following options:\\n{opts}\\n"`` with options
  written ``(A). Yes``, then ``The best answer is: (`` — sent and parsed as the model family's
  path of the release does (``families.py``).
* Sampling: ``random.seed(0)``, then per ``task_type`` in order of first appearance, all items
  when fewer than 100, else ``random.sample(items, 100)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from whatifbench.answers.letters import letter_for
from whatifbench.core.item import Item

SAMPLE_SIZE = 100
PAPER_SEED = 0


def paper_prompt(question: str, choices: Sequence[str]) -> str:
    """The release's prompt text (without the answer phrase)."""
    options = "\n".join(f"({letter_for(i)}). {c}" for i, c in enumerate(choices))
    return f"Question: {question}\nChoose from the following options:\n{options}\n"


def task_of(item: Item) -> str:
    """An item's task type."""
    return str(item.meta.get("task_type", item.group or ""))


def paper_sample(items: Sequence[Item], seed: int = PAPER_SEED,
                 size: int = SAMPLE_SIZE) -> list[Item]:
    """The release's sampling: up to ``size`` items per task type, seeded."""
    rng = random.Random(seed)
    groups: dict[str, list[Item]] = {}
    for item in items:
        groups.setdefault(task_of(item), []).append(item)
    chosen: list[Item] = []
    for members in groups.values():
        chosen += members if len(members) < size else rng.sample(members, size)
    return chosen
