"""The MuCR protocol: four questions per cause/effect pair (C2E, E2C, Cue, Exp)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.letters import extract_choice
from whatifbench.answers.think import strip_think
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import register
from whatifbench.core.suite import Sample, Suite
from whatifbench.models.embedding import BUNDLED
from whatifbench.report.table import Table
from whatifbench.runner.results import RunResult
from whatifbench.suites.mucr.judging import grade
from whatifbench.suites.mucr.metrics import mucr_metrics, slices
from whatifbench.suites.mucr.prompts import IMAGE_INSTRUCTION, LETTERS, image_option
from whatifbench.suites.mucr.records import CATEGORIES, STYLES
from whatifbench.suites.mucr.tables import breakdown_table, layout_table, main_table

if TYPE_CHECKING:
    from whatifbench.core.dataset import Dataset
    from whatifbench.runner.judge import JudgeRuntime

IMAGE_METRICS = ("c2e", "e2c")


@register("suite", "mucr")
class MucrSuite(Suite):
    """MuCR: choose the effect (C2E), the cause (E2C), the cue phrase (Cue); explain (Exp)."""

    name = "mucr"
    default_max_new_tokens = 256
    default_judge = f"embedding:{BUNDLED}"

    def prompt_text(self, item: Item, protocol: Protocol) -> str:
        """C2E/E2C: the question + a letter instruction (the images are the options); Cue:
        the phrases as lettered options; Exp: the question as is."""
        if item.group in IMAGE_METRICS:
            return f"{item.question}\n{IMAGE_INSTRUCTION}"
        if item.kind == "text":
            return item.question
        return super().prompt_text(item, protocol)

    def may_demonstrate(self, demo: Item, item: Item) -> bool:
        """Never a pair of the item's own group of four: its images are the item's distractors."""
        return super().may_demonstrate(demo, item) and not (
            set(demo.meta.get("group_of_four", ())) & set(item.meta.get("group_of_four", ())))

    def extract(self, item: Item, reply: str, protocol: Protocol) -> dict[str, Extraction]:
        """Image questions: a letter, or ``image B`` in words; Cue: a letter or the phrase;
        Exp: the reply itself (split into its three parts when judged)."""
        if item.group in IMAGE_METRICS:
            names = [image_option(x) for x in LETTERS]
            found = extract_choice(reply, names)
            value = None if found.value is None else LETTERS[names.index(found.value)]
            return {"default": Extraction(value, found.flag)}
        if item.kind == "text":
            text, cut = strip_think(reply)
            if cut:
                return {"default": Extraction(None, "truncated-think")}
            return {"default": Extraction(text.strip() or None, None if text.strip() else "empty")}
        return super().extract(item, reply, protocol)

    def is_correct(self, item: Item, value: str | None) -> bool:
        """Choice items: the right option; Exp items are graded by ``Sample.score`` instead."""
        return item.kind == "choice" and super().is_correct(item, value)

    def judge(self, samples: Sequence[Sample], items: Sequence[Item],
              judge: JudgeRuntime) -> list[Sample]:
        """Exp: three judged explanation scores combined with λ = 0.25, 0.25, 0.5."""
        return grade(samples, items, judge)

    def metrics(self, samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
        """``c2e``, ``e2c``, ``cue`` (%), ``exp`` (0–10), ``by_category``, ``by_style``, CIs."""
        return mucr_metrics(samples)

    def tables(self, runs: Sequence[RunResult]) -> list[Table]:
        """Table 1 layout, the category/style breakdown, and the layout comparison if any."""
        tables = [main_table(runs), breakdown_table(runs)]
        layouts = layout_table(runs)
        return tables + [layouts] if layouts is not None else tables

    def stats(self, dataset: Dataset, plots: Path | None = None) -> list[Table]:
        """Pairs per category and style (MuCR Fig. 5), items per metric, question lengths and
        the correct letter's share per choice metric; ``plots``: pairs per category chart."""
        from whatifbench.report.datastats import count_table, length_table

        pairs = {i.pair_id: i.meta for i in dataset.items if i.pair_id is not None}
        by = Counter((m.get("category"), m.get("style")) for m in pairs.values())
        categories = slices([m.get("category") for m in pairs.values()], CATEGORIES)
        styles = slices([m.get("style") for m in pairs.values()], STYLES)
        rows = [(c, *(str(by[(c, s)]) for s in styles), str(sum(by[(c, s)] for s in styles)))
                for c in categories]
        rows.append(("total", *(str(sum(by[(c, s)] for c in categories)) for s in styles),
                     str(len(pairs))))
        tables = [Table(f"{dataset.card.name}: pairs per category and style",
                        ("category", *styles, "total"), tuple(rows)),
                  count_table(dataset), length_table(dataset)]
        letters = []
        for metric in ("c2e", "e2c", "cue"):
            found = Counter(LETTERS[i.target_index] for i in dataset.items if i.group == metric)
            n = sum(found.values()) or 1
            letters.append((metric, *(f"{100 * found[x] / n:.1f}" for x in LETTERS)))
        tables.append(Table(f"{dataset.card.name}: correct option's letter (% of items)",
                            ("metric", *LETTERS), tuple(letters)))
        if plots is not None:
            from whatifbench.report.plots import bar_chart

            path = bar_chart(categories,
                             {s: [float(by[(c, s)]) for c in categories] for s in styles},
                             f"{dataset.card.name}: pairs per category", "pairs",
                             plots / "pairs_by_category.png")
            tables.append(Table("plots", ("file",), ((str(path),),)))
        return tables
