"""Generic dataset statistics: counts, question lengths, answer distributions, balance."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from whatifbench.core.dataset import Dataset
from whatifbench.core.item import Item
from whatifbench.core.table import Table

WORD = re.compile(r"[A-Za-z0-9']+")


def words(text: str) -> list[str]:
    """Word tokens of a question (letters, digits, apostrophes)."""
    return WORD.findall(text)


def count_table(dataset: Dataset) -> Table:
    """Items per group and role."""
    roles = sorted({i.role or "-" for i in dataset.items})
    groups = sorted({i.group or "-" for i in dataset.items})
    counts = Counter((i.group or "-", i.role or "-") for i in dataset.items)
    rows = [(g, *(str(counts[(g, r)]) for r in roles), str(sum(counts[(g, r)] for r in roles)))
            for g in groups]
    rows.append(("total", *(str(sum(counts[(g, r)] for g in groups)) for r in roles),
                 str(len(dataset.items))))
    return Table(f"{dataset.card.name}: items per group and role", ("group", *roles, "total"),
                 tuple(rows))


def length_table(dataset: Dataset) -> Table:
    """Mean question length in words per role, and the type-token ratio."""
    by_role: dict[str, list[int]] = {}
    tokens: list[str] = []
    for item in dataset.items:
        w = words(item.question)
        by_role.setdefault(item.role or "-", []).append(len(w))
        tokens += [t.lower() for t in w]
    rows = tuple((role, str(len(n)), f"{sum(n) / len(n):.2f}")
                 for role, n in sorted(by_role.items()))
    ttr = len(set(tokens)) / len(tokens) if tokens else 0.0
    return Table(f"{dataset.card.name}: question length (words)", ("role", "items", "mean words"),
                 rows, notes=(f"type-token ratio over all questions: {ttr:.4f}",))


def answer_table(items: Sequence[Item], title: str, top: int = 12) -> Table:
    """Most frequent answers per group and role (share in percent)."""
    rows = []
    keys = sorted({(i.group or "-", i.role or "-") for i in items})
    for g, r in keys:
        answers = Counter(i.target for i in items if (i.group or "-", i.role or "-") == (g, r))
        n = sum(answers.values())
        common = ", ".join(f"{a}: {100 * c / n:.1f}%" for a, c in answers.most_common(top))
        rows.append((g, r, str(n), common))
    return Table(title, ("group", "role", "n", "answers (share)"), tuple(rows))


def basic_stats(dataset: Dataset) -> list[Table]:
    """Counts, lengths and answer distributions (``whatif stats --plots`` adds the answer
    histograms: ``report.datastats.plot_table``)."""
    return [count_table(dataset), length_table(dataset),
            answer_table(dataset.items, f"{dataset.card.name}: answer distribution")]
