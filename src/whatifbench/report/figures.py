"""The papers' kinds of figures as data: per suite, bars of accuracy per group with 95 % interval
whiskers for each model (C-VQA groups and the change Δ per group, CFMM categories, MuCR metrics,
categories and styles, CELLO rungs, tasks, graph types and distractor kinds).

A ``FigureSpec`` holds only numbers and labels; ``report.draw`` turns it into SVG (memoised),
PDF or PNG, so nothing here imports matplotlib.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from whatifbench.metrics.stats import wilson_ci, wilson_of_percent
from whatifbench.report.labels import labeller, shown_together
from whatifbench.report.table import interval, negated
from whatifbench.runner.results import RunResult

Interval = tuple[float, float] | None


@dataclass(frozen=True)
class Series:
    """One bar colour: a value (and interval) per category."""

    name: str
    """Legend entry."""
    values: tuple[float | None, ...]
    """Bar heights (``None``: no bar)."""
    intervals: tuple[Interval, ...]
    """95 % interval per bar (``None``: no whisker)."""


@dataclass(frozen=True)
class Panel:
    """One set of axes: categories along x, one bar per series at each."""

    title: str
    """Panel title (a model, or empty for a single panel)."""
    categories: tuple[str, ...]
    """x tick labels."""
    series: tuple[Series, ...]
    """Bars."""


@dataclass(frozen=True)
class FigureSpec:
    """A figure: one or more panels sharing the y axis."""

    name: str
    """File stem for ``--figures DIR`` (``cvqa-synthetic-accuracy-by-group``)."""
    title: str
    """Caption."""
    ylabel: str
    """y axis label."""
    panels: tuple[Panel, ...]
    """The axes, left to right, top to bottom."""
    ylim: tuple[float, float] | None = (0.0, 100.0)
    """Fixed y range (``None``: fit the data, with a zero line)."""


def _wilson(entry: dict[str, Any] | None) -> Interval:
    if not entry or entry.get("n") in (None, 0) or entry.get("accuracy") is None:
        return None
    return wilson_of_percent(entry["accuracy"], int(entry["n"]))


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def _paired(runs: Sequence[RunResult], group_labels: dict[str, str],
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
        FigureSpec(f"{suite}-{_slug(dataset)}-accuracy-by-group",
                   f"{dataset}: original vs counterfactual accuracy by group",
                   "accuracy (%)", tuple(panels)),
        FigureSpec(f"{suite}-{_slug(dataset)}-change-by-group",
                   f"{dataset}: change Δ = counterfactual − original by group",
                   "Δ accuracy (points)", (Panel("", names, tuple(deltas)),), None),
    ]


def _per_run(runs: Sequence[RunResult], name: str, title: str, ylabel: str,
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


def _per_model(runs: Sequence[RunResult], name: str, title: str, ylabel: str,
               categories: Sequence[str], labels: Sequence[str],
               cell: Callable[[RunResult, str], tuple[float | None, Interval]]) -> FigureSpec:
    """One panel; categories along x; one bar per model."""
    label = labeller(runs)
    series = []
    for run in runs:
        cells = [cell(run, c) for c in categories]
        series.append(Series(label(run), tuple(v for v, _ in cells), tuple(i for _, i in cells)))
    return FigureSpec(name, title, ylabel, (Panel("", tuple(labels), tuple(series)),))


def _keys(runs: Sequence[RunResult], field: str) -> list[str]:
    return list(dict.fromkeys(k for r in runs for k in r.metrics.get(field, {})))


def _slice(field: str) -> Callable[[RunResult, str], dict[str, Any]]:
    """``metrics[field][key]`` of a run (empty when absent)."""
    return lambda r, key: r.metrics.get(field, {}).get(key, {})


def _accuracy(field: str) -> Callable[[RunResult, str], tuple[float | None, Interval]]:
    """CELLO: ``metrics[field][key]``'s accuracy and its Wilson interval."""
    def cell(r: RunResult, key: str) -> tuple[float | None, Interval]:
        entry = r.metrics.get(field, {}).get(key)
        return (entry or {}).get("accuracy"), _wilson(entry)
    return cell


def _cfmm(runs: Sequence[RunResult]) -> list[FigureSpec]:
    cats = _keys(runs, "by_category")
    d = _slug(runs[0].dataset)
    return [_per_run(runs, f"cfmm-{d}-accuracy-by-category",
                     f"{runs[0].dataset}: accuracy by category", "accuracy (%)", cats,
                     (("acc_b", "acc_b"), ("acc_c", "acc_c"), ("acc+", "acc_plus")),
                     _slice("by_category"))]


def _mucr(runs: Sequence[RunResult]) -> list[FigureSpec]:
    d = _slug(runs[0].dataset)
    metrics = (("C2E", "c2e"), ("E2C", "e2c"), ("Cue", "cue"))
    out = [_per_model(runs, f"mucr-{d}-accuracy-by-metric",
                      f"{runs[0].dataset}: accuracy by metric (Exp is scored 0–10, see tables)",
                      "accuracy (%)", [k for _, k in metrics], [s for s, _ in metrics],
                      lambda r, k: (r.metrics.get(k), interval(r.metrics.get("ci95", {}).get(k))))]
    for field, kind in (("by_category", "category"), ("by_style", "style")):
        values = _keys(runs, field)
        if values:
            out.append(_per_run(runs, f"mucr-{d}-accuracy-by-{kind}",
                                f"{runs[0].dataset}: accuracy by {kind}", "accuracy (%)",
                                values, metrics, _slice(field)))
    return out


def _cello(runs: Sequence[RunResult]) -> list[FigureSpec]:
    d = _slug(runs[0].dataset)
    out = []
    for field, kind in (("by_rung", "rung"), ("by_task_type", "task type"),
                        ("by_graph_type", "graph type")):
        keys = _keys(runs, field)
        if keys:
            out.append(_per_model(
                runs, f"cello-{d}-accuracy-by-{_slug(kind)}",
                f"{runs[0].dataset}: accuracy by {kind} (95% Wilson intervals)", "accuracy (%)",
                keys, keys, _accuracy(field)))
    first = next((r for r in runs if "distractor_errors" in r.metrics), None)
    if first is not None:
        kinds = list(first.metrics["distractor_errors"].get("by_kind", {}))

        def share(r: RunResult, k: str) -> tuple[float | None, Interval]:
            block = r.metrics.get("distractor_errors", {})
            entry = block.get("by_kind", {}).get(k)
            if not entry:
                return None, None
            n = int(block.get("n_errors", 0))
            return entry["share_of_errors"], wilson_ci(int(entry["count"]), n) if n else None

        out.append(_per_model(runs, f"cello-{d}-distractor-errors",
                              f"{runs[0].dataset}: kind of option chosen when wrong",
                              "% of multiple-choice errors", kinds, kinds, share))
    return out


def figures_for(runs: Sequence[RunResult]) -> list[FigureSpec]:
    """Every suite's figures over the runs of one dataset (``labels.shown_together``)."""
    from whatifbench.suites.cvqa.real.suite import GROUPS as REAL_GROUPS
    from whatifbench.suites.cvqa.real.suite import LABELS as REAL_LABELS
    from whatifbench.suites.cvqa.synthetic.suite import GROUPS as SYN_GROUPS

    out: list[FigureSpec] = []
    for group in shown_together(runs):
        suite = group[0].suite
        if suite == "cvqa-synthetic":
            out += _paired(group, {g: g for g in SYN_GROUPS}, SYN_GROUPS)
        elif suite == "cvqa-real":
            out += _paired(group, REAL_LABELS, REAL_GROUPS)
        elif suite == "cfmm":
            out += _cfmm(group)
        elif suite == "mucr":
            out += _mucr(group)
        elif suite == "cello":
            out += _cello(group)
    return out
