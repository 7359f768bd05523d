"""The C-VQA-Synthetic protocol: 4-option multiple choice, paired original/counterfactual."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import register
from whatifbench.core.suite import Sample
from whatifbench.metrics.paired import by_group, paired_metrics
from whatifbench.report.table import Table
from whatifbench.runner.results import RunResult
from whatifbench.suites.cvqa.prompts import PaperSuite, paper_prompt
from whatifbench.suites.cvqa.tables import code_llm_tables, paired_table

GROUPS = tuple(f"abs_counting_{k}" for k in range(1, 7))
INSTRUCTION = "Answer with the option's letter from the given choices directly."


@register("suite", "cvqa-synthetic")
class CvqaSyntheticSuite(PaperSuite):
    """C-VQA-Synthetic (C-VQA §3.3): flower and dot counting with counterfactual premises."""

    name = "cvqa-synthetic"
    prompts = ("default", "paper")

    def prompt_text(self, item: Item, protocol: Protocol) -> str:
        """Ours: the release question (options inline) + a letter instruction; or the paper's."""
        if protocol.prompt.startswith("paper"):
            return paper_prompt(item.question, protocol.prompt)
        return f"{item.question}\n{INSTRUCTION}"

    def metrics(self, samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
        """Original/counterfactual accuracy, drop, pair accuracy, unparsed; and per template."""
        out = paired_metrics(samples)
        out["by_group"] = by_group(samples)
        return out

    def tables(self, runs: Sequence[RunResult]) -> list[Table]:
        """Table 7 layout extended to the six templates, each named as its items' group
        (``abs_counting_1`` … ``abs_counting_6``, the release's types) everywhere."""
        groups = [g for g in GROUPS if any(g in r.metrics.get("by_group", {}) for r in runs)]
        title = f"C-VQA-Synthetic: {runs[0].dataset}"
        return [paired_table(runs, title, groups), *code_llm_tables(runs, title, groups)]
