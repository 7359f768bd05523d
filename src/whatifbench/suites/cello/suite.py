"""The ``cello`` suite: prompts (ours and the release's per model family), parsers, selection,
metrics, stats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.letters import extract_choice
from whatifbench.core.dataset import Dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol, paper_family
from whatifbench.core.registry import register
from whatifbench.core.requests import Part, Turn
from whatifbench.core.suite import Sample, Suite
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.family import model_hint
from whatifbench.report.figures import FigureSpec
from whatifbench.report.table import Table
from whatifbench.runner.results import RunResult
from whatifbench.suites.cello.families import MAX_NEW_TOKENS, auto_family, family
from whatifbench.suites.cello.figures import cello_figures
from whatifbench.suites.cello.identity import BUILDER
from whatifbench.suites.cello.metrics import cello_metrics
from whatifbench.suites.cello.paper import paper_prompt, paper_sample
from whatifbench.suites.cello.stats import cello_stats
from whatifbench.suites.cello.tables import cello_tables


@register("suite", "cello")
class CelloSuite(Suite):
    """CELLO: causal questions over the four rungs of the ladder, grounded in scene graphs."""

    name = "cello"
    prompts = ("default", "paper")
    parsers = ("default", "paper")
    subsets = ("paper",)
    private_meta = ("answer_index", "option_kinds")
    """The answer's position and which option is the answer or which kind of distractor:
    exports leave them out (the cello-jsonl release format writes ``answer_index`` itself)."""

    def how_answers(self, generator: str | None) -> str | None:
        """``whatif build cello`` computes every answer from the causal graph."""
        if generator != BUILDER:
            return None
        return ("built from Visual Genome scene graphs: relations become a causal graph and "
                "every question and answer of the twelve CELLO tasks is computed from that graph")

    def figures(self, runs: Sequence[RunResult]) -> list[FigureSpec]:
        """Accuracy by rung, task type and graph type; the kind of option chosen when wrong."""
        return cello_figures(runs)

    def source_stats(self, path: Path) -> list[Table] | None:
        """A Visual Genome ``scene_graphs.json``: its predicates' coverage by the causal
        mapping and the graph types found."""
        if path.suffix.lower() != ".json":
            return None
        from whatifbench.suites.cello.causal.coverage import scene_graph_stats

        return scene_graph_stats(path)

    def example(self, out: Path, seed: int = 0) -> None:
        """A small CELLO built from a procedural Visual-Genome-format world
        (``suites.cello.example``)."""
        from whatifbench.suites.cello.example import write_example

        write_example(out, seed)

    def bind(self, protocol: Protocol, backend: Backend) -> Protocol:
        """Choose the release's model family from the backend (``openai:`` → ``api``, an
        ``hf:`` LLaVA → ``llava`` …) unless ``--prompt paper:FAMILY`` names it; under
        ``--prompt paper`` the request is that family's, with the release's 30-token budget."""
        hint = model_hint(backend)
        paper, named = paper_family(protocol.prompt)
        chosen = family(named or auto_family(hint))
        if not paper:
            return replace(protocol, family=chosen.name)
        if chosen.plain and hint.kind == "openai":
            raise WhatifError(
                f"--prompt paper:{chosen.name} is the raw text the release gives a local model "
                f"({chosen.release}); {backend.spec} is a chat server, which the release asks "
                "through its API path: use --prompt paper (paper:api, paper:claude or "
                "paper:gemini).")
        if protocol.strategy != "zero-shot":
            raise WhatifError(
                f"CELLO's paper protocol is zero-shot: its prompt ends with 'The best answer is: "
                f"(' for an immediate answer, so --strategy {protocol.strategy} cannot follow "
                "it; use --prompt default with that strategy.")
        return replace(protocol, prompt=f"paper:{chosen.name}", family=chosen.name,
                       max_new_tokens=protocol.max_new_tokens or MAX_NEW_TOKENS)

    def prompt_text(self, item: Item, protocol: Protocol) -> str:
        """Ours: question, lettered options, a letter instruction; or the release's prompt
        (the family adds the answer phrase and its own frame)."""
        if protocol.prompt.startswith("paper"):
            return paper_prompt(item.question, item.choices)
        return super().prompt_text(item, protocol)

    def user_turns(self, item: Item, protocol: Protocol, images: tuple[Part, ...],
                   text: str) -> tuple[Turn, ...]:
        """The release's request of the protocol's family under ``--prompt paper``."""
        if protocol.prompt.startswith("paper"):
            return family(protocol.family or "other").turns(images, text)
        return super().user_turns(item, protocol, images, text)

    def plain_prompt(self, protocol: Protocol) -> bool:
        """The LLaVA, BLIP-2 and Qwen families give the model the release's own text."""
        return protocol.prompt.startswith("paper") and family(protocol.family or "other").plain

    def extract(self, item: Item, reply: str, protocol: Protocol) -> dict[str, Extraction]:
        """Both parsers: ours (letters, then option values) and the release's, as the path of
        the protocol's model family reads the reply."""
        if item.kind != "choice":
            raise WhatifError(f"CELLO item {item.id} is a {item.kind} item; CELLO items are "
                              "multiple choice (Yes/No included).")
        return {"default": extract_choice(reply, item.choices),
                "paper": family(protocol.family or "other").parse(reply, item.choices)}

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
