"""People's answers → run results: one run per annotator and a ``human (majority)`` run, scored
by the suite's own parser, judge and metrics exactly as a model's replies are (through
``integrations.replay``), plus what only people have: agreement (Krippendorff's alpha, overall
and per slice; agreement per item) and time per item (``metrics["human"]``)."""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.answers.letters import letter_for
from whatifbench.core.dataset import Dataset
from whatifbench.core.item import Item
from whatifbench.core.records.spec import HumanRef
from whatifbench.core.suite import Sample
from whatifbench.errors import WhatifError
from whatifbench.human.alpha import alpha
from whatifbench.human.present import PROTOCOL
from whatifbench.human.records import Answer
from whatifbench.integrations.replay import ReplayBackend, replay
from whatifbench.runner.results import RunResult
from whatifbench.runner.store import RunStore

MAJORITY = "human:majority"
"""The backend spec of the majority row (its display name is ``human (majority)``)."""
MIN_VOTES = 3
"""Readable answers an item needs for a majority (with two, any disagreement is a tie), and
annotators a sheet needs for a majority row; with two, each person is shown with their
agreement."""
SLICES = ("group", "role")
"""Item fields agreement is also computed per value of."""


def human_runs(dataset: Dataset, answers: Sequence[Answer], source: dict[str, Any],
               store: str | Path | None = None) -> list[RunResult]:
    """One run per annotator (in order of first answer), then ``human (majority)`` when
    ``MIN_VOTES`` or more annotators answered (over the items with that many readable answers
    and a strict majority). With two annotators there is no majority: their agreement is kept
    on the first one's run (``metrics["human"]["group"]``). ``source`` (app or sheet) goes into
    each run spec."""
    if not answers:
        raise WhatifError(f"No answers were collected for {dataset.root} yet.")
    by_name: dict[str, dict[str, Answer]] = {}
    for a in answers:
        by_name.setdefault(a.annotator, {})[a.item_id] = a
    run_store = RunStore(store)  # one connection for every annotator's replay
    try:
        runs = [_annotator_run(dataset, name, mine, source, run_store)
                for name, mine in by_name.items()]
        majority = (_majority_run(dataset, runs, source, run_store)
                    if len(runs) >= MIN_VOTES else None)
        if majority is not None:
            runs.append(majority)
        elif len(runs) >= 2:
            runs[0] = _with_group(dataset, runs)
    finally:
        run_store.close()
    return runs


def _backend(spec: str, replies: dict[str, str]) -> ReplayBackend:
    blob = json.dumps(sorted(replies.items()), ensure_ascii=False).encode("utf-8")
    return ReplayBackend(spec, {}, replies, hashlib.sha256(blob).hexdigest())


def _seconds(values: Sequence[float | None]) -> dict[str, float | None]:
    known = [v for v in values if v is not None]
    if not known:
        return {"median": None, "mean": None, "total": None, "n": 0}
    return {"median": round(statistics.median(known), 2),
            "mean": round(statistics.fmean(known), 2), "total": round(sum(known), 2),
            "n": len(known)}


def _annotator_run(dataset: Dataset, name: str, mine: dict[str, Answer], source: dict[str, Any],
                   store: RunStore) -> RunResult:
    replies = {item_id: a.reply for item_id, a in mine.items()}
    run = replay(dataset, _backend(f"human:{name}", replies), {**source, "annotator": name},
                 store, protocol=PROTOCOL)
    samples = []
    for s in run.samples:
        a = mine[s.item_id]
        extra = {"annotator": name, "seconds": a.seconds, "unsure": a.unsure}
        samples.append(replace(s, meta={**s.meta, "human": extra},
                               flag="unsure" if a.unsure else s.flag))
    summary = {"annotator": name, "answers": len(samples),
               "unsure": sum(a.unsure for a in mine.values()),
               "seconds": _seconds([mine[s.item_id].seconds for s in samples])}
    spec = replace(run.spec, model_name=f"human: {name}",
                   human=HumanRef(name, details=_source(source)))
    return replace(run, samples=samples, metrics={**run.metrics, "human": summary}, spec=spec)


def _value(sample: Sample, item: Item) -> Any:
    """The parsed answer agreement counts (``None``: missing): the chosen option's letter for
    choice items (one category set, A-D, over items whose options differ), yes/no as given, a
    number for number items."""
    if sample.prediction is None or sample.flag == "unsure" or item.kind == "text":
        return None
    if item.kind == "number":
        try:
            return float(sample.prediction)
        except ValueError:
            return None
    if item.kind == "choice" and sample.prediction in item.choices:
        return letter_for(item.choices.index(sample.prediction))
    return sample.prediction


Votes = dict[str, list[tuple[Any, Sample]]]


def _votes(runs: Sequence[RunResult], items: dict[str, Item]) -> Votes:
    """Per item (in dataset order): each annotator's (value, sample)."""
    found: dict[str, list[tuple[Any, Sample]]] = {i: [] for i in items}
    for run in runs:
        for s in run.samples:
            found[s.item_id].append((_value(s, items[s.item_id]), s))
    return {i: v for i, v in found.items() if v}


def agreement(items: dict[str, Item], votes: Votes) -> dict[str, Any]:
    """Krippendorff's alpha over the annotators' ``votes`` (nominal over categorical answers,
    interval over numbers), overall and per slice (group, role), and the mean agreement per
    item (the share of an item's answers that give its most frequent answer)."""

    def alphas(ids: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for level, kinds in (("nominal", ("choice", "yes-no")), ("interval", ("number",))):
            units = [[v for v, _ in votes[i]] for i in ids if items[i].kind in kinds]
            pairable = sum(1 for u in units if sum(v is not None for v in u) >= 2)
            if pairable:
                value = alpha(units, level)
                out[level] = {"alpha": None if value is None else round(value, 4),
                              "items": pairable}
        return out

    ids = list(votes)
    shares = []
    for i in ids:
        given = [v for v, _ in votes[i] if v is not None]
        if len(given) >= 2:
            shares.append(Counter(given).most_common(1)[0][1] / len(given))
    by_slice: dict[str, dict[str, Any]] = {}
    for field in SLICES:
        values = sorted({str(getattr(items[i], field)) for i in ids
                         if getattr(items[i], field) is not None})
        found = {v: alphas([i for i in ids if str(getattr(items[i], field)) == v])
                 for v in values}
        found = {v: a for v, a in found.items() if a}
        if found:
            by_slice[field] = found
    return {"alpha": alphas(ids), "by_slice": by_slice,
            "item_agreement": {"mean": round(statistics.fmean(shares), 4) if shares else None,
                               "items": len(shares),
                               "unanimous": sum(1 for s in shares if s == 1.0)}}


def _with_group(dataset: Dataset, runs: Sequence[RunResult]) -> RunResult:
    """The first annotator's run with every person's agreement recorded (no majority)."""
    items = {i.id: i for i in dataset.items}
    names = [_annotator(r) for r in runs]
    group = {"annotators": names, **agreement(items, _votes(runs, items))}
    first = runs[0]
    return replace(first, metrics={**first.metrics,
                                   "human": {**first.metrics["human"], "group": group}})


def _majority_run(dataset: Dataset, runs: Sequence[RunResult], source: dict[str, Any],
                  store: RunStore) -> RunResult | None:
    """The most frequent answer of each item that has ``MIN_VOTES`` readable answers and a
    strict majority; items with fewer answers or a tie have no majority answer and are left out
    of this run (never counted as parse failures); free-text items have no majority. ``None``
    when no item has one."""
    items = {i.id: i for i in dataset.items}
    every = _votes(runs, items)
    votes = {i: v for i, v in every.items() if items[i].kind != "text"}
    if not votes:
        raise WhatifError("The annotators answered only free-text items; a majority needs "
                          "items with a choice, yes/no or a number.")
    replies: dict[str, str] = {}
    detail: dict[str, dict[str, Any]] = {}
    ties = few = 0
    for item_id, found in votes.items():
        given = Counter(v for v, _ in found if v is not None)
        top = given.most_common(2)
        if sum(given.values()) < MIN_VOTES:
            few += 1
            continue
        if len(top) > 1 and top[0][1] == top[1][1]:
            ties += 1
            continue
        winner = top[0][0]
        # the reply of the first annotator who gave the winning answer: a real reply that the
        # suite's parser reads as that answer
        replies[item_id] = next(s.response or "" for v, s in found if v == winner)
        detail[item_id] = {"answers": len(found), "votes": {str(k): n for k, n in given.items()},
                           "agreement": round(top[0][1] / sum(given.values()), 4)}
    if not replies:
        return None
    run = replay(dataset, _backend(MAJORITY, replies), {**source, "annotator": "majority"},
                 store, protocol=PROTOCOL)
    samples = [replace(s, meta={**s.meta, "human": detail[s.item_id]}) for s in run.samples]
    names = [_annotator(r) for r in runs]
    seconds = [(s.meta.get("human") or {}).get("seconds") for r in runs for s in r.samples]
    summary = {"annotators": names, "ties": ties, "too_few_answers": few,
               "seconds": _seconds(seconds), **agreement(items, every)}
    spec = replace(run.spec, model_name="human (majority)",
                   human=HumanRef("majority", tuple(names), _source(source)))
    return replace(run, samples=samples, metrics={**run.metrics, "human": summary}, spec=spec)


def _annotator(run: RunResult) -> str:
    """The annotator of a person's run."""
    assert run.spec.human is not None, "a person's run records its annotator"
    return run.spec.human.annotator


def _source(source: dict[str, Any]) -> dict[str, Any]:
    """Where the answers came from, as the human record's details."""
    return {k: v for k, v in source.items() if k not in ("annotator", "annotators")}
