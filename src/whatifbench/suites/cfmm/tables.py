"""The CFMM tables: Table 2 (model × prompt strategy rows; category × acc_b/acc_c/acc+ columns)
and Table 3 (total scores), with Observation 1's statistics beside the totals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.protocol import Protocol
from whatifbench.core.records.spec import RunSpec
from whatifbench.core.table import Cell, Table, fmt, interval
from whatifbench.metrics.intervals import SHARES_NOTE
from whatifbench.report.labels import labeller
from whatifbench.runner.results import RunResult
from whatifbench.suites.cfmm.pairs import ordered_categories

STRATEGY_LABELS = {"zero-shot": "0-shot", "one-shot": "1-shot", "one-shot-cot": "1-shot CoT",
                   "cot": "CoT", "ccot": "CCoT"}
"""The paper's names for the prompt strategies."""

SCORE_COLUMNS = ("acc_b", "acc_c", "acc+")
SCORE_KEYS = ("acc_b", "acc_c", "acc_plus")
SHOWN = ("strategy", "answer_mode", "score_by", "prompt")
"""Protocol facts the "prompt" column already shows (left out of the row labels)."""


def prompt_label(spec: RunSpec) -> str:
    """The "Prompt" cell: the strategy, plus whatever else departs from the defaults (answer
    mode other than ranking, mean scoring, a non-default prompt)."""
    protocol = spec.protocol or Protocol(answer_mode="rank", score_by="mean")
    strategy = protocol.strategy
    extras = []
    if protocol.answer_mode not in (None, "rank"):
        extras.append(str(protocol.answer_mode))
    elif protocol.score_by not in (None, "mean"):
        extras.append(f"rank by {protocol.score_by}")
    if protocol.prompt != "default":
        extras.append(f"prompt {protocol.prompt}")
    label = STRATEGY_LABELS.get(strategy, strategy)
    return f"{label} ({', '.join(extras)})" if extras else label


def _cells(scores: dict[str, Any] | None, n: int | None = None) -> list[str | Cell]:
    """acc_b, acc_c (each over the items of its role) and acc+ (over pairs)."""
    if scores is None:
        return ["–"] * len(SCORE_KEYS)
    ci = scores.get("ci95", {})
    per_role = list((scores.get("n_by_role") or {}).values())
    counts = (*per_role, n) if len(per_role) == 2 else (n, n, n)
    return [Cell(scores.get(key), 2, interval(ci.get(key)), count)
            for key, count in zip(SCORE_KEYS, counts, strict=True)]


def category_table(runs: Sequence[RunResult]) -> Table:
    """CFMM Table 2: per category acc_b, acc_c, acc+ (%)."""
    cats = ordered_categories({c for r in runs for c in r.metrics.get("by_category", {})})
    columns = ["model", "prompt"]
    spans: list[tuple[str, int]] = [("", 2)]
    for cat in cats:
        columns += SCORE_COLUMNS
        spans.append((cat.capitalize(), 3))
    rows = []
    label = labeller(runs, SHOWN)
    for run in runs:
        by_cat = run.metrics.get("by_category", {})
        row: list[str | Cell] = [label(run), prompt_label(run.spec)]
        for cat in cats:
            scores = by_cat.get(cat)
            row += _cells(scores, scores.get("n_pairs") if scores else None)
        rows.append(tuple(row))
    notes: tuple[str, ...] = ()
    if runs:
        counts = ", ".join(f"{c} {m.get('n_pairs', 0)}"
                           for c, m in runs[0].metrics.get("by_category", {}).items())
        notes = ((f"Accuracy in % (pairs per category: {counts}); acc+ = both questions of "
                  "a pair right. ± in report.md and report.html: " + SHARES_NOTE),)
    return Table(f"CFMM (Table 2 layout): {runs[0].dataset if runs else ''}", tuple(columns),
                 tuple(rows), tuple(spans), notes, unit="pairs")


def total_table(runs: Sequence[RunResult]) -> Table:
    """CFMM Table 3: total scores (sums over the categories), then phi and, where it carries
    information (counterfactual questions with more than two options, or free-form), the share
    of counterfactual errors that picked the basic answer."""
    informative = any(r.metrics.get("cf_errors_chose_basic") is not None for r in runs)
    columns = ("model", "prompt", *SCORE_COLUMNS, "phi",
               *(("cf err = basic %",) if informative else ()))
    spans = (("", 2), ("Total score", 3), ("Observation 1", 2 if informative else 1))
    rows = []
    label = labeller(runs, SHOWN)
    for run in runs:
        m = run.metrics
        phi = m.get("phi")
        extra = (fmt(m.get("cf_errors_chose_basic"), 1),) if informative else ()
        rows.append((label(run), prompt_label(run.spec), *_cells(m.get("total")),
                     "–" if phi is None else f"{phi:+.3f}", *extra))
    notes: tuple[str, ...] = ()
    if runs:
        total = runs[0].metrics.get("total", {})
        six = "" if total.get("categories") == 6 else "; the paper's six give 600"
        choice = (("cf err = basic = share of counterfactual errors that chose the basic "
                   "question's answer, over questions with more than two options or free-form "
                   "answers.") if informative else _uninformative(runs))
        notes = (
            (f"Total score = sum of the per-category accuracies over the "
             f"{total.get('categories')} categories present (max {total.get('max')} each{six}); "
             "± = the MOVER sum of the categories' Wilson intervals."),
            "phi = correlation of basic and counterfactual correctness over pairs.",
            choice,
        )
    return Table(f"CFMM (Table 3 layout): {runs[0].dataset if runs else ''}", columns,
                 tuple(rows), spans, notes)


def _uninformative(runs: Sequence[RunResult]) -> str:
    """Why no counterfactual error here can tell whether the basic answer was repeated, from
    the dataset's counterfactual questions (``metrics["cf_questions"]``)."""
    kinds: dict[str, int] = next((r.metrics["cf_questions"] for r in runs
                                  if r.metrics.get("cf_questions")), {})
    parts = [f"{kinds[k]} {text}" for k, text in (
        ("two_options_with_basic", ("offer two options one of which is the basic answer (a "
                                    "wrong answer is the basic one by construction)")),
        ("basic_not_offered", "do not offer the basic answer (a wrong answer cannot be it)"),
        ("same_answer", "share the basic answer")) if kinds.get(k)]
    n = sum(kinds.values())
    detail = f": of its {n} counterfactual questions, {'; '.join(parts)}" if parts else ""
    return ("cf err = basic (the share of counterfactual errors that chose the basic answer) "
            f"is not shown: no question here can tell it{detail}.")
