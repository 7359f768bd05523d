"""The papers' kinds of figures as data: bars of accuracy per group with 95 % interval whiskers
for each model. Each suite says which figures it draws (``Suite.figures``, built from the pieces
here: paired original/counterfactual bars with the change Δ, one panel per model, one bar per
model); this module names no suite.

A ``FigureSpec`` holds only numbers and labels; ``report.draw`` turns it into SVG (memoised),
PDF or PNG, so nothing here imports matplotlib.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from whatifbench.core.figure import FigureSpec, Panel, Series
from whatifbench.core.table import interval, negated
from whatifbench.metrics.stats import wilson_of_percent
from whatifbench.report.labels import labeller, shown_together
from whatifbench.runner.results import RunResult

Interval = tuple[float, float] | None


def wilson_entry(entry: dict[str, Any] | None) -> Interval:
    if not entry or entry.get("n") in (None, 0) or entry.get("accuracy") is None:
        return None
    return wilson_of_percent(entry["accuracy"], int(entry["n"]))


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def paired_figures(runs: Sequence[RunResult], group_labels: dict[str, str],
            order: Sequence[str]) -> list[FigureSpec]:
    """C-VQA: original vs counterfactual per group for each model; Δ per group."""
    label = labeller(runs)
    present = {g for r in runs for g in r.metrics.get("by_group", {})}
    groups = [g for g in order if g in present] + sorted(present - set(order))
    names: tuple[str, ...] = (*(str(group_labels.get(g, g)) for g in groups), "all")

    def block(m: dict[str, Any], g: str | None) -> dict[str, Any]:
        return m if g is None else m.get("by_group", {}).get(g, {})

    panels = []
    deltas = []
    for run in runs:
        blocks = [block(run.metrics, g) for g in [*groups, None]]
        series = tuple(
            Series(role, tuple(b.get(key) for b in blocks),
                   tuple(interval(b.get("ci95", {}).get(key)) for b in blocks))
            for role, key in (("original", "original_accuracy"),
                              ("counterfactual", "counterfactual_accuracy")))
        panels.append(Panel(label(run), names, series))
        deltas.append(Series(
            label(run), tuple(None if b.get("drop") is None else -b["drop"] for b in blocks),
            tuple(negated(interval(b.get("ci95", {}).get("drop"))) for b in blocks)))
    suite, dataset = runs[0].suite, runs[0].dataset
    return [
        FigureSpec(f"{suite}-{slug(dataset)}-accuracy-by-group",
                   f"{dataset}: original vs counterfactual accuracy by group",
                   "accuracy (%)", tuple(panels)),
        FigureSpec(f"{suite}-{slug(dataset)}-change-by-group",
                   f"{dataset}: change Δ = counterfactual − original by group",
                   "Δ accuracy (points)", (Panel("", names, tuple(deltas)),), None),
    ]


def per_run(runs: Sequence[RunResult], name: str, title: str, ylabel: str,
             categories: Sequence[str], metrics: Sequence[tuple[str, str]],
             block: Callable[[RunResult, str], dict[str, Any]]) -> FigureSpec:
    """One panel per model; categories along x; one bar per metric."""
    label = labeller(runs)
    panels = []
    for run in runs:
        blocks = [block(run, c) for c in categories]
        panels.append(Panel(label(run), tuple(categories), tuple(
            Series(shown, tuple(b.get(key) for b in blocks),
                   tuple(interval(b.get("ci95", {}).get(key)) for b in blocks))
            for shown, key in metrics)))
    return FigureSpec(name, title, ylabel, tuple(panels))


def per_model(runs: Sequence[RunResult], name: str, title: str, ylabel: str,
               categories: Sequence[str], labels: Sequence[str],
               cell: Callable[[RunResult, str], tuple[float | None, Interval]]) -> FigureSpec:
    """One panel; categories along x; one bar per model."""
    label = labeller(runs)
    series = []
    for run in runs:
        cells = [cell(run, c) for c in categories]
        series.append(Series(label(run), tuple(v for v, _ in cells), tuple(i for _, i in cells)))
    return FigureSpec(name, title, ylabel, (Panel("", tuple(labels), tuple(series)),))


def metric_keys(runs: Sequence[RunResult], field: str) -> list[str]:
    return list(dict.fromkeys(k for r in runs for k in r.metrics.get(field, {})))


def metric_block(field: str) -> Callable[[RunResult, str], dict[str, Any]]:
    """``metrics[field][key]`` of a run (empty when absent)."""
    return lambda r, key: r.metrics.get(field, {}).get(key, {})


def accuracy_cell(field: str) -> Callable[[RunResult, str], tuple[float | None, Interval]]:
    """CELLO: ``metrics[field][key]``'s accuracy and its Wilson interval."""
    def cell(r: RunResult, key: str) -> tuple[float | None, Interval]:
        entry = r.metrics.get(field, {}).get(key)
        return (entry or {}).get("accuracy"), wilson_entry(entry)
    return cell


def group_accuracy(runs: Sequence[RunResult]) -> list[FigureSpec]:
    """The default figure of a suite: accuracy per group (``metrics["by_group"][g]
    ["accuracy"]``, with a Wilson interval over its ``n``), one bar per model; none when the
    metrics have no groups."""
    groups = [g for g in metric_keys(runs, "by_group")
              if any(isinstance(r.metrics.get("by_group", {}).get(g), dict)
                     and "accuracy" in r.metrics["by_group"][g] for r in runs)]
    if not groups:
        return []
    d = slug(runs[0].dataset)
    return [per_model(runs, f"{slug(runs[0].suite)}-{d}-accuracy-by-group",
                      f"{runs[0].dataset}: accuracy by group (95% Wilson intervals)",
                      "accuracy (%)", groups, groups, accuracy_cell("by_group"))]


FIGURE_PEOPLE = 8
"""Annotators (``whatif human``) drawn one by one at most; with more, figures show only their
majority row (a crowd sheet of 1,000 workers would be 1,000 panels)."""


def few_people(runs: Sequence[RunResult]) -> list[RunResult]:
    """``runs`` without the single annotators' runs when there are more than
    ``FIGURE_PEOPLE`` of them (their majority run stays)."""
    people = {id(r) for r in runs
              if r.spec.human is not None and not r.spec.human.majority}
    return [r for r in runs if id(r) not in people] if len(people) > FIGURE_PEOPLE else list(runs)


def figures_for(runs: Sequence[RunResult]) -> list[FigureSpec]:
    """Every suite's figures over the runs of one dataset (``labels.shown_together``), as the
    suite draws them (``Suite.figures``); many annotators only as their majority
    (``few_people``)."""
    from whatifbench.core.suite import suite_for

    out: list[FigureSpec] = []
    for group in shown_together(few_people(runs)):
        drawn = suite_for(group[0].suite).figures(group)
        out += group_accuracy(group) if drawn is None else drawn
    return out
