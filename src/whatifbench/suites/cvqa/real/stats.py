"""C-VQA-Real dataset statistics (C-VQA §3.4, Fig. 3, Fig. 8) for ``whatif stats``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from whatifbench.core.dataset import Dataset
from whatifbench.core.datastats import answer_table, words
from whatifbench.core.item import Item
from whatifbench.core.table import Table
from whatifbench.suites.cvqa.real.lexicon import Tagger, find_tagger, pos_ratios, type_token_ratio

GROUPS = ("direct", "indirect", "boolean")
NUMERICAL = ("direct", "indirect")


def _pairs(items: Sequence[Item]) -> dict[str, dict[str, Item]]:
    out: dict[str, dict[str, Item]] = {}
    for item in items:
        if item.pair_id is not None and item.role is not None:
            out.setdefault(item.pair_id, {})[item.role] = item
    return out


def group_counts(items: Sequence[Item]) -> dict[str, int]:
    """Questions (pairs) per group, plus ``numerical`` (direct + indirect) and ``total``."""
    pairs = _pairs(items)
    groups = Counter(next(iter(p.values())).group or "-" for p in pairs.values())
    out = {g: groups.get(g, 0) for g in GROUPS}
    out.update({g: n for g, n in sorted(groups.items()) if g not in GROUPS})
    out["numerical"] = sum(out[g] for g in NUMERICAL)
    out["total"] = len(pairs)
    return out


def count_table(dataset: Dataset) -> Table:
    """Questions per group with shares (paper: 3,144 = 1,150 + 864 + 1,130), distinct images."""
    counts = group_counts(dataset.items)
    total = counts["total"] or 1
    images: dict[str, set[str]] = {}
    for item in dataset.items:
        images.setdefault(item.group or "-", set()).update(item.images)
    rows = []
    for g, n in counts.items():
        members = (images.get(g, set()) if g not in ("numerical", "total") else
                   set().union(*(images.get(x, set()) for x in
                                 (NUMERICAL if g == "numerical" else images))))
        rows.append((g, str(n), f"{100 * n / total:.1f}", str(len(members))))
    return Table(f"{dataset.card.name}: questions per group (C-VQA §3.4)",
                 ("group", "questions", "share %", "images"), tuple(rows),
                 notes=("A question is one original + counterfactual pair.",))


def length_table(dataset: Dataset) -> Table:
    """Mean question length in words, original vs counterfactual, per group and overall."""
    lengths: dict[tuple[str, str], list[int]] = {}
    for item in dataset.items:
        n = len(words(item.question))
        for g in (item.group or "-", "all"):
            lengths.setdefault((g, item.role or "-"), []).append(n)

    def mean(key: tuple[str, str]) -> str:
        values = lengths.get(key, [])
        return f"{sum(values) / len(values):.2f}" if values else "–"

    groups = [g for g in (*GROUPS, "all") if (g, "original") in lengths or (g, "counterfactual")
              in lengths]
    rows = tuple((g, mean((g, "original")), mean((g, "counterfactual"))) for g in groups)
    return Table(f"{dataset.card.name}: mean question length (words)",
                 ("group", "original", "counterfactual"), rows,
                 notes=("Words are runs of letters, digits and apostrophes.",))


def yes_no_table(dataset: Dataset) -> Table:
    """Yes/no shares per role for boolean questions, and how answers change within pairs."""
    boolean = [i for i in dataset.items if i.kind == "yes-no"]
    rows = []
    for role in ("original", "counterfactual"):
        answers = Counter(i.target for i in boolean if i.role == role)
        n = sum(answers.values())
        if n:
            rows.append((role, str(n), f"{100 * answers['yes'] / n:.2f}",
                         f"{100 * answers['no'] / n:.2f}"))
    changes = Counter(f"{p['original'].target}→{p['counterfactual'].target}"
                      for p in _pairs(boolean).values() if len(p) == 2)
    notes = ("Pairs by answer change: " + ", ".join(f"{k} {v}" for k, v in sorted(changes.items()))
             + ".",) if changes else ()
    return Table(f"{dataset.card.name}: yes/no balance (boolean group)",
                 ("role", "questions", "yes %", "no %"), tuple(rows), notes=notes)


def lexicon_table(dataset: Dataset, tagger: tuple[str, Tagger] | None) -> Table:
    """Type-token ratio (C-VQA Fig. 8) and, with a tagger, noun and verb ratios."""
    every = [i.question for i in dataset.items]
    cf = [i.question for i in dataset.items if i.role == "counterfactual"]
    rows = [("type-token ratio (all questions)", f"{type_token_ratio(every):.4f}"),
            ("type-token ratio (counterfactual questions)", f"{type_token_ratio(cf):.4f}")]
    notes: tuple[str, ...]
    if tagger is None:
        notes = (("Noun/verb ratios need an offline POS tagger: install spaCy with its "
                  "en_core_web_sm pipeline, or NLTK with its perceptron tagger data."),)
    else:
        r = pos_ratios(every, tagger[1], tagger[0])
        rows += [("noun types / noun tokens", f"{r.noun_types_per_noun_token:.4f}"),
                 ("noun types / all types", f"{r.noun_types_per_type:.4f}"),
                 ("verb types / verb tokens", f"{r.verb_types_per_verb_token:.4f}"),
                 ("verb types / all types", f"{r.verb_types_per_type:.4f}")]
        notes = (f"POS tags from {r.tagger} (lower-cased tokens).",)
    return Table(f"{dataset.card.name}: lexicon (C-VQA Fig. 8)", ("statistic", "value"),
                 tuple(rows), notes=notes)


def real_stats(dataset: Dataset, plots: Path | None = None,
               tagger: tuple[str, Tagger] | None | bool = True) -> list[Table]:
    """All C-VQA-Real statistics tables; ``plots``: answer histograms per group (Fig. 3).

    ``tagger``: ``True`` finds an installed one, ``None``/``False`` skips noun/verb ratios, or
    a ``(name, function)`` pair to use.
    """
    chosen = find_tagger() if tagger is True else (tagger if isinstance(tagger, tuple) else None)
    tables = [count_table(dataset), length_table(dataset),
              answer_table(dataset.items, f"{dataset.card.name}: answer distribution (Fig. 3)",
                           top=15),
              yes_no_table(dataset), lexicon_table(dataset, chosen)]
    if plots is not None:
        from whatifbench.report.plots import answer_histograms

        written = answer_histograms(dataset.items, plots, dataset.card.name)
        tables.append(Table("plots", ("file",), tuple((str(p),) for p in written)))
    return tables
