"""CELLO metrics: accuracy overall, per rung, task type, graph type and format, which kind of
distractor a model picks when it is wrong on a multiple-choice question, and, for contrast sets
(``--design shortcut-free``), how often a model answers every member of a set right."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from whatifbench.core.item import CONTRAST_ROLE, Item
from whatifbench.core.suite import Sample
from whatifbench.metrics import intervals
from whatifbench.metrics.stats import percent
from whatifbench.suites.cello.causal.tasks import RUNGS, TASKS
from whatifbench.suites.cello.causal.templates import GRAPH_TYPES
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


def contrast_sets(samples: Sequence[Sample]) -> dict[str, Any] | None:
    """Contrast sets (items sharing a ``pair_id`` with role ``contrast``): ``sets``, and
    ``all_right`` (% of sets whose every member is answered right, with its Wilson interval),
    overall and per task type; ``None`` when the items have none. A model that answers from
    the text alone gives every member the same answer and is right on exactly one: 0 %."""
    sets: dict[str, list[Sample]] = {}
    for s in samples:
        if s.pair_id is not None and s.role == CONTRAST_ROLE:
            sets.setdefault(s.pair_id, []).append(s)
    if not sets:
        return None

    def block(members: list[list[Sample]]) -> dict[str, Any]:
        right = sum(all(s.correct for s in m) for m in members)
        return {"sets": len(members), "all_right": percent(right, len(members)),
                "ci95": intervals.share(right, len(members)), "ci95_method": intervals.WILSON}

    tasks: dict[str, list[list[Sample]]] = {}
    for members in sets.values():
        tasks.setdefault(str(members[0].meta.get("task_type")), []).append(members)
    order = [t for t in TASKS if t in tasks]
    return {**block(list(sets.values())), "by_task_type": {t: block(tasks[t]) for t in order}}


def cello_metrics(samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
    """Everything ``results.json`` reports for a CELLO run."""
    hits = sum(bool(s.correct) for s in samples)
    agree = [s for s in samples if "default" in s.parses and "paper" in s.parses]
    return {
        "accuracy": percent(hits, len(samples)),
        "ci95": {"accuracy": intervals.share(hits, len(samples))},
        "ci95_method": {"accuracy": intervals.WILSON},
        "n_items": len(samples),
        "unparsed": percent(sum(s.unparsed for s in samples), len(samples)),
        "n_unparsed": sum(s.unparsed for s in samples),
        "n_errors": sum(s.error is not None for s in samples),
        "by_rung": by_key(samples, "rung", RUNGS),
        "by_task_type": by_key(samples, "task_type", TASKS),
        "by_graph_type": by_key(samples, "graph_type", GRAPH_TYPES),
        "by_format": by_key(samples, "format", FORMATS),
        "distractor_errors": distractor_errors(samples, items),
        "contrast_sets": contrast_sets(samples),
        "parser_agreement": percent(
            sum(s.parses["default"] == s.parses["paper"] for s in agree), len(agree))
        if agree else None,
    }
