"""Leakage checks: a question must name what it is about and nothing that gives the answer away.

``required`` entities (the ones the question is about) must each be mentioned; ``forbidden``
ones (the correct option, the distractors, graph objects the question must not hint at) must
not be, in any word form, once the required mentions are masked (so ``tennis racket`` may
be required while ``racket`` is forbidden). It must also read as one question.
"""

from __future__ import annotations

from collections.abc import Sequence

from whatifbench.suites.cello.causal.entities import Entity, mask, mentions

MAX_WORDS = 60
"""Longer texts are not a single question (an LLM rewrite that rambles is rejected)."""


def question_problems(text: str, required: Sequence[Entity],
                      forbidden: Sequence[Entity]) -> list[str]:
    """Every reason why ``text`` is not an acceptable question (empty when it is)."""
    problems: list[str] = []
    stripped = text.strip()
    if not stripped.endswith("?"):
        problems.append("it does not end with a question mark")
    elif stripped.count("?") > 1:
        problems.append("it asks more than one question")
    if len(stripped.split()) > MAX_WORDS:
        problems.append(f"it is longer than {MAX_WORDS} words")
    for entity in required:
        if not mentions(stripped, entity):
            problems.append(f"it does not mention the {entity.name}")
    masked = mask(stripped, required)
    for entity in forbidden:
        if mentions(masked, entity):
            problems.append(f"it names the {entity.name}, which would leak the answer")
    return problems
