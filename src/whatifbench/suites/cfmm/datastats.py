"""``whatif stats`` for CFMM datasets: per category the pair count, question and answer
lengths (the paper's Fig. 3: 9.47 / 18.39 / 1.17 words), changed answers and option balance."""

from __future__ import annotations

from whatifbench.core.dataset import Dataset
from whatifbench.core.datastats import words
from whatifbench.core.item import Item
from whatifbench.core.table import Table
from whatifbench.suites.cfmm.pairs import complete_pairs, ordered_categories, pair_facts


def _mean_words(texts: list[str]) -> str:
    return f"{sum(len(words(t)) for t in texts) / len(texts):.2f}" if texts else "–"


def _row(label: str, pairs: list[tuple[Item, Item]]) -> tuple[str, ...]:
    facts = pair_facts([i for pair in pairs for i in pair])
    return (label, str(len(pairs)),
            _mean_words([b.question for b, _ in pairs]),
            _mean_words([c.question for _, c in pairs]),
            _mean_words([i.target for pair in pairs for i in pair]),
            f"{facts['answer_changed_percent']:.1f}",
            f"{facts['correct_option_percent']['A']:.1f}")


def pair_table(dataset: Dataset) -> Table:
    """One row per category and a total row."""
    pairs = complete_pairs(dataset.items)
    by_cat: dict[str, list[tuple[Item, Item]]] = {}
    for pair in pairs:
        by_cat.setdefault(pair[0].group or "", []).append(pair)
    rows = [_row(cat, by_cat[cat]) for cat in ordered_categories(by_cat)]
    rows.append(_row("total", pairs))
    return Table(f"{dataset.card.name}: CFMM pairs per category",
                 ("category", "pairs", "basic q words", "cf q words", "answer words",
                  "answer changed %", "correct = A %"), tuple(rows),
                 notes=(("answer changed = the counterfactual's answer differs from the basic "
                        "one; correct = A = the correct option is listed first."),))

