"""CELLO metrics: accuracy overall, per rung, task type, graph type and format, and which kind of
distractor a model picks when it is wrong on a multiple-choice question."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from whatifbench.causal.tasks import RUNGS, TASKS
from whatifbench.causal.templates import GRAPH_TYPES
from whatifbench.core.item import Item
from whatifbench.core.suite import Sample
from whatifbench.metrics.stats import percent, wilson_ci
from whatifbench.suites.cello.records import KINDS

FORMATS = ("binary", "multiple_choice")
ERROR_KINDS = (*[k for k in KINDS if k != "correct"], "unparsed")
"""What a wrong multiple-choice answer can be: a distractor of some kind, or no answer."""


def accuracy(samples: Sequence[Sample]) -> dict[str, Any]:
    """``{"accuracy": %, "n": count}``."""
    hits = sum(bool(s.correct) for s in samples)
    return {"accuracy": percent(hits, len(samples)), "n": len(samples)}


def by_key(samples: Sequence[Sample], key: str, order: Iterable[str]) -> dict[str, Any]:
    """Accuracy per value of ``meta[key]``, in ``order`` (values outside it sorted after)."""
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(str(s.meta.get(key)), []).append(s)
    order = [k for k in order if k in groups]
    return {k: accuracy(groups[k]) for k in [*order, *sorted(set(groups) - set(order))]}


def chosen_kind(sample: Sample, item: Item) -> str | None:
    """The kind of option a wrong multiple-choice answer picked (``None`` when right or binary)."""
    kinds = item.meta.get("option_kinds")
    if sample.correct or not kinds:
        return None
    if sample.prediction is None or sample.prediction not in item.choices:
        return "unparsed"
    return str(kinds[item.choices.index(sample.prediction)])


def distractor_errors(samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
    """Per kind: wrong answers that chose it (``count``), their share of all errors on
    multiple-choice items with known kinds (``share_of_errors``) and per such item (``rate``)."""
    by_id = {i.id: i for i in items}
    labelled = [(s, by_id[s.item_id]) for s in samples
                if s.item_id in by_id and by_id[s.item_id].meta.get("option_kinds")]
    chosen = Counter(k for s, i in labelled if (k := chosen_kind(s, i)) is not None)
    errors = sum(chosen.values())
    return {"n_items": len(labelled), "n_errors": errors, "by_kind": {
        k: {"count": chosen[k], "share_of_errors": percent(chosen[k], errors),
            "rate": percent(chosen[k], len(labelled))} for k in ERROR_KINDS}}


def cello_metrics(samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
    """Everything ``results.json`` reports for a CELLO run."""
    hits = sum(bool(s.correct) for s in samples)
    agree = [s for s in samples if "default" in s.parses and "paper" in s.parses]
    return {
        "accuracy": percent(hits, len(samples)),
        "ci95": {"accuracy": wilson_ci(hits, len(samples))},
        "n_items": len(samples),
        "unparsed": percent(sum(s.unparsed for s in samples), len(samples)),
        "n_unparsed": sum(s.unparsed for s in samples),
        "n_errors": sum(s.error is not None for s in samples),
        "by_rung": by_key(samples, "rung", RUNGS),
        "by_task_type": by_key(samples, "task_type", TASKS),
        "by_graph_type": by_key(samples, "graph_type", GRAPH_TYPES),
        "by_format": by_key(samples, "format", FORMATS),
        "distractor_errors": distractor_errors(samples, items),
        "parser_agreement": percent(
            sum(s.parses["default"] == s.parses["paper"] for s in agree), len(agree))
        if agree else None,
    }
