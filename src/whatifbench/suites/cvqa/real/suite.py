"""The C-VQA-Real protocol: free-form count and yes/no answers, paired original/counterfactual.

Prompts: ``--prompt paper[:family]`` uses the release's per-family prompts
(``suites/cvqa/prompts.py``); the default (ours) appends ``Answer with a single number.`` or
``Answer with yes or no.`` to the question. Two parsers run on every reply: ``paper`` (the
release's ``format_response``) and ``default`` (ours: ``answers/numbers.py``,
``answers/yesno.py``); ``--parser`` picks the one that is scored, both are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.numbers import extract_number
from whatifbench.answers.yesno import extract_yes_no
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import register
from whatifbench.core.suite import Sample
from whatifbench.core.table import Table, fmt
from whatifbench.errors import WhatifError
from whatifbench.metrics.paired import by_group, paired_metrics
from whatifbench.metrics.stats import percent
from whatifbench.report.figures import FigureSpec, paired_figures
from whatifbench.report.labels import labeller
from whatifbench.runner.results import RunResult
from whatifbench.suites.cvqa.metrics_schema import CvqaRealMetrics
from whatifbench.suites.cvqa.prompts import PaperSuite, paper_prompt
from whatifbench.suites.cvqa.real.paper_parser import paper_boolean, paper_number
from whatifbench.suites.cvqa.tables import code_llm_tables, paired_table

if TYPE_CHECKING:
    from whatifbench.core.dataset import Dataset

GROUPS = ("direct", "indirect", "boolean")
"""The release's ``type`` values, in the paper's column order."""
LABELS = {"direct": "Numerical Direct", "indirect": "Numerical Indirect", "boolean": "Boolean"}
PARSERS = ("default", "paper")
INSTRUCTIONS = {"number": "Answer with a single number.", "yes-no": "Answer with yes or no."}
"""Our default prompt: the question, a new line, then this instruction."""


@register("suite", "cvqa-real")
class CvqaRealSuite(PaperSuite):
    """C-VQA-Real (C-VQA §3.1–3.2): VQAv2 questions with counterfactual presuppositions."""

    name = "cvqa-real"
    facts = replace(PaperSuite.facts, metrics_schema=CvqaRealMetrics)
    """C-VQA's facts (``PaperSuite``), with this suite's metrics."""
    prompts = ("default", "paper")
    parsers = PARSERS

    def figures(self, runs: Sequence[RunResult]) -> list[FigureSpec]:
        """Original vs counterfactual accuracy per question type, and the change Δ."""
        return paired_figures(runs, LABELS, GROUPS)

    def example(self, out: Path, seed: int = 0) -> None:
        """A small dataset in the release's form (direct, indirect and boolean pairs) over
        procedural pictures whose answers are counted (``suites.cvqa.real.example``)."""
        from whatifbench.suites.cvqa.real.example import write_example

        write_example(out, seed)

    def prompt_text(self, item: Item, protocol: Protocol) -> str:
        """The release's prompt for the family, or ours (question + answer-format line)."""
        if protocol.prompt.startswith("paper"):
            return paper_prompt(item.question, protocol.prompt)
        return f"{item.question}\n{INSTRUCTIONS.get(item.kind, '')}".rstrip()

    def extract(self, item: Item, reply: str, protocol: Protocol) -> dict[str, Extraction]:
        """Both parsers on every reply: ``default`` (ours) and ``paper`` (the release's)."""
        if item.kind == "number":
            return {"default": extract_number(reply), "paper": paper_number(reply)}
        if item.kind == "yes-no":
            return {"default": extract_yes_no(reply), "paper": paper_boolean(reply)}
        raise WhatifError(
            f"Item {item.id} is a {item.kind} question; C-VQA-Real items are 'number' or 'yes-no'."
        )

    def metrics(self, samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
        """Table 3 metrics (scored parser) overall and per group, each parser's own, agreement."""
        out = paired_metrics(samples)
        out["by_group"] = by_group(samples)
        if any(s.parses for s in samples):
            out["parsers"] = {name: parser_metrics(samples, name) for name in PARSERS}
        else:  # nothing was parsed (a reference row's pseudo-run): every parser scores alike
            alike = parser_metrics(samples, PARSERS[0])
            out["parsers"] = {name: alike for name in PARSERS}
        out.update(disagreement(samples))
        return out

    def tables(self, runs: Sequence[RunResult]) -> list[Table]:
        """The Table 3 layout (Table 4 with ``--strategy cot``), then the parser comparison."""
        groups = [g for g in GROUPS if any(g in r.metrics.get("by_group", {}) for r in runs)]
        title = f"C-VQA-Real: {runs[0].dataset} (Table 3 layout)"
        return [paired_table(runs, title, groups, LABELS), parser_table(runs),
                *code_llm_tables(runs, f"C-VQA-Real: {runs[0].dataset}", groups, LABELS)]

    def stats(self, dataset: Dataset, plots: Path | None = None) -> list[Table]:
        """§3.4 statistics: counts, lengths, answer distributions, yes/no balance, lexicon."""
        from whatifbench.suites.cvqa.real.stats import real_stats

        return real_stats(dataset, plots)


def rescored(samples: Sequence[Sample], parser: str) -> list[Sample]:
    """The samples as if ``parser`` had been the scored one (exact match on its value)."""
    out = []
    for s in samples:
        if not s.parses:
            out.append(s)
            continue
        value = s.parses.get(parser)
        out.append(replace(s, prediction=value, correct=value is not None and value == s.target,
                           unparsed=s.error is None and value is None))
    return out


def parser_metrics(samples: Sequence[Sample], parser: str) -> dict[str, Any]:
    """Original/counterfactual accuracy, drop, pair accuracy and unparsed under one parser."""
    again = rescored(samples, parser)
    out = paired_metrics(again, with_stats=False)
    out["by_group"] = by_group(again, with_stats=False)
    return out


def disagreement(samples: Sequence[Sample]) -> dict[str, Any]:
    """How often the two parsers extract different values from the same reply."""
    replies = [s for s in samples if s.error is None and s.parses]
    differ = [s for s in replies if s.parses.get("default") != s.parses.get("paper")]
    groups = sorted({s.group or "" for s in replies})
    return {
        "parser_disagreement": percent(len(differ), len(replies)),
        "n_parser_disagreements": len(differ),
        "parser_disagreement_by_group": {
            g: percent(sum((s.group or "") == g for s in differ),
                       sum((s.group or "") == g for s in replies))
            for g in groups
        },
    }


def parser_table(runs: Sequence[RunResult]) -> Table:
    """Per run: each parser's original and counterfactual accuracy, and their disagreement."""
    rows = []
    label = labeller(runs, ("parser",))
    for run in runs:
        m = run.metrics
        row = [label(run), run.spec.protocol.parser if run.spec.protocol else "default"]
        for name in PARSERS:
            pm = m.get("parsers", {}).get(name)
            row += ([fmt(pm["original_accuracy"]), fmt(pm["counterfactual_accuracy"]),
                     fmt(pm["unparsed"])] if pm else ["–", "–", "–"])
        row.append(fmt(m.get("parser_disagreement")))
        rows.append(tuple(row))
    columns = ("model", "scored", "orig", "cf", "unparsed %", "orig", "cf", "unparsed %",
               "differ %")
    spans = (("", 2), ("default parser (ours)", 3), ("paper parser (release)", 3), ("", 1))
    return Table("C-VQA-Real: answer parsers compared", columns, tuple(rows), spans,
                 ("differ % = replies for which the two parsers extract different answers.",))
