"""The CFMM protocol ("Eyes Can Deceive" §3.4): two-option basic/counterfactual pairs in six
categories, answered by likelihood ranking of the option texts (SEED-Bench-2 style) or by
generating an option letter.

Rank mode (the default) poses ``<question>\\nAnswer the question using a single word or
phrase.`` with the image and scores each option's text as the reply; options are not listed,
so their order cannot matter. Generate mode lists them as ``A. …``/``B. …`` and parses the
letter (or the option's text) from the reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.answers.letters import letter_for
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import register
from whatifbench.core.suite import Sample, Suite
from whatifbench.report.table import Table
from whatifbench.runner.results import RunResult
from whatifbench.suites.cfmm.metrics import cfmm_metrics
from whatifbench.suites.cfmm.tables import category_table, total_table

if TYPE_CHECKING:
    from whatifbench.core.dataset import Dataset

RANK_INSTRUCTION = "Answer the question using a single word or phrase."
"""Rank mode: appended to the question; each option's text is then scored as the reply."""

LETTER_INSTRUCTION = "Answer with the option's letter from the given choices directly."
"""Generate mode: appended after the lettered options."""


@register("suite", "cfmm")
class CfmmSuite(Suite):
    """CFMM: basic/counterfactual two-option pairs in six categories, ranked by likelihood."""

    name = "cfmm"
    default_answer_mode = "rank"
    default_score_by = "mean"
    """SEED-Bench-2 style: the option with the lowest generation loss (mean token NLL)."""

    def prompt_text(self, item: Item, protocol: Protocol) -> str:
        """Rank: the question + a short-answer instruction; generate: the lettered options."""
        if protocol.answer_mode == "rank":
            return f"{item.question}\n{RANK_INSTRUCTION}"
        options = "\n".join(f"{letter_for(i)}. {c}" for i, c in enumerate(item.choices))
        return f"{item.question}\n{options}\n{LETTER_INSTRUCTION}"

    def candidates(self, item: Item, protocol: Protocol) -> tuple[str, ...]:
        """The option texts themselves (scored as continuations after the prompt)."""
        return item.choices

    def metrics(self, samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
        """acc_b, acc_c, acc_plus, by_category, total, phi, cf_errors_chose_basic (+ CIs)."""
        return cfmm_metrics(samples, items)

    def tables(self, runs: Sequence[RunResult]) -> list[Table]:
        """CFMM Table 2 (per category) and Table 3 (total scores)."""
        return [category_table(runs), total_table(runs)]

    def stats(self, dataset: Dataset, plots: Path | None = None) -> list[Table]:
        """The generic statistics plus the pair facts per category."""
        from whatifbench.suites.cfmm.datastats import pair_table

        return [pair_table(dataset), *super().stats(dataset, plots)]
