"""The ``cello`` suite: prompts (ours and the release's), parsers, selection, metrics, stats."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.letters import extract_choice
from whatifbench.core.dataset import Dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import register
from whatifbench.core.suite import Sample, Suite
from whatifbench.errors import WhatifError
from whatifbench.report.table import Table
from whatifbench.runner.results import RunResult
from whatifbench.suites.cello.metrics import cello_metrics
from whatifbench.suites.cello.paper import PHRASE, paper_parse, paper_prompt, paper_sample
from whatifbench.suites.cello.stats import cello_stats
from whatifbench.suites.cello.tables import cello_tables


@register("suite", "cello")
class CelloSuite(Suite):
    """CELLO: causal questions over the four rungs of the ladder, grounded in scene graphs."""

    name = "cello"
    prompts = ("default", "paper")
    parsers = ("default", "paper")
    subsets = ("paper",)

    def check_protocol(self, protocol: Protocol) -> None:
        """Also reject ``paper:<family>``: the release has one prompt for every model."""
        super().check_protocol(protocol)
        if protocol.prompt.startswith("paper:"):
            raise WhatifError(f"CELLO's paper prompt has no model families ({protocol.prompt!r}); "
                              "use --prompt paper.")

    def prompt_text(self, item: Item, protocol: Protocol) -> str:
        """Ours: question, lettered options, a letter instruction; or the release's prompt."""
        if protocol.prompt == "paper":
            return paper_prompt(item.question, item.choices)
        return super().prompt_text(item, protocol)

    def answer_prefix(self, item: Item, protocol: Protocol) -> str:
        """The release's ``The best answer is: (`` under ``--prompt paper``."""
        return PHRASE if protocol.prompt == "paper" else ""

    def extract(self, item: Item, reply: str, protocol: Protocol) -> dict[str, Extraction]:
        """Both parsers: ours (letters, then option values) and the release's first letter."""
        if item.kind != "choice":
            raise WhatifError(f"CELLO item {item.id} is a {item.kind} item; CELLO items are "
                              "multiple choice (Yes/No included).")
        return {"default": extract_choice(reply, item.choices),
                "paper": paper_parse(reply, item.choices)}

    def select(self, items: Sequence[Item], name: str, seed: int) -> list[Item]:
        """``--subset paper``: the release's sampling (100 per task type; seed 0 by default)."""
        if name != "paper":
            return super().select(items, name, seed)
        return paper_sample(items, seed)

    def metrics(self, samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
        """Accuracy overall, by rung, task type, graph type and format; distractor errors."""
        return cello_metrics(samples, items)

    def tables(self, runs: Sequence[RunResult]) -> list[Table]:
        """Rung, task-type, graph-type and distractor tables."""
        return cello_tables(runs)

    def stats(self, dataset: Dataset, plots: Path | None = None) -> list[Table]:
        """Generic statistics plus counts per rung, task type × graph type, format, positions."""
        return [*super().stats(dataset, plots), *cello_stats(dataset)]
