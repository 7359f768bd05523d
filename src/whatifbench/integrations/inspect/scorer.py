"""The inspect scorer and metrics: whatifbench's own scoring, so inspect's numbers are ours.

``whatif_answer`` extracts and scores each reply with the suite's parsers (and grades free-text
answers with the suite's judge, through the run store); it keeps the whatifbench sample in the
score's metadata. Each metric rebuilds those samples and reads one value of the suite's own
``metrics`` (original/counterfactual accuracy, drop, pair accuracy; CFMM's acc_b/acc_c/acc+;
as ``Suite.reported_metrics`` names them), so the pair stays the unit.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import fields
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item, item_from_json
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Part, Request, Response, Turn
from whatifbench.core.suite import Sample
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.runner.cached import generate_cached
from whatifbench.runner.evaluate import get_suite, score_item
from whatifbench.runner.judge import JudgeRuntime
from whatifbench.runner.store import RunStore

SAMPLE_FIELDS = {f.name for f in fields(Sample)}


def _item(obj: dict[str, Any]) -> Item:
    item, problems = item_from_json(obj)
    if item is None:
        raise ValueError(f"sample metadata holds no valid item: {'; '.join(problems)}")
    return item


def _judge_fetch(backend: Backend, mode: str, requests: Sequence[Request]) -> list[Response]:
    with closing(RunStore()) as store:
        return list(generate_cached(backend, requests, store, mode=mode, progress=False)
                    .responses)


def _items(dataset: str, items_sha256: str) -> dict[str, Item]:
    """The dataset's items by id, checked to be the ones the task was made from."""
    data = load_dataset(dataset, check_images=False)
    if data.items_sha256 != items_sha256:
        raise WhatifError(f"The dataset {dataset} changed since the task was made (items "
                          f"{data.items_sha256[:12]}, expected {items_sha256[:12]}); make the "
                          "task again.")
    return {item.id: item for item in data.items}


@scorer(metrics=[])
def whatif_answer(suite: str, protocol: dict[str, Any], dataset: str,
                  items_sha256: str) -> Scorer:
    """Score a reply as ``whatif run`` does (the task adds the suite's metrics). The items come
    from the dataset folder, never from the sample (where a solver could read them); each
    score's metadata holds its item and sample for the metrics."""
    the_suite = get_suite(suite)
    the_protocol = Protocol(**protocol)
    items = _items(dataset, items_sha256)
    # The suite's judge (MuCR: the offline embedding model), loaded once for the whole eval.
    judge = JudgeRuntime(the_suite.default_judge, {}, _judge_fetch)

    async def score(state: TaskState, target: Target) -> Score:
        item = items[str(state.sample_id)]
        request = Request(item.id, (Turn("user", (Part(text=state.metadata["prompt"]),)),))
        reply = Response(text=state.output.completion)
        sample = score_item(the_suite, the_protocol, item, request, reply, "generate")
        if item.kind == "text":
            sample = the_suite.judge([sample], [item], judge)[0]
        value = float(sample.score or 0.0) if item.kind == "text" else float(bool(sample.correct))
        return Score(value=value, answer=sample.prediction, explanation=sample.flag,
                     metadata={"sample": sample.to_json(), "item": item.to_json(),
                               "suite": suite})

    return score


_CACHE: dict[str, dict[str, Any]] = {}


def suite_metrics(scores: list[SampleScore]) -> dict[str, Any]:
    """The suite's ``metrics`` over the scored samples (memoised: every metric reads them)."""
    rows = [s.score.metadata or {} for s in scores]
    key = hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()
    if key not in _CACHE:
        scored = [row for row in rows if row.get("sample") and row.get("item")]
        samples = [Sample(**{k: v for k, v in row["sample"].items() if k in SAMPLE_FIELDS})
                   for row in scored]
        items = [_item(row["item"]) for row in scored]
        suite = get_suite(scored[0]["suite"]) if scored else None
        _CACHE.clear()
        _CACHE[key] = suite.metrics(samples, items) if suite and samples else {}
    return _CACHE[key]


def _reader(key: str) -> Callable[[], Metric]:
    def factory() -> Metric:
        def compute(scores: list[SampleScore]) -> float:
            value = suite_metrics(scores).get(key)
            return float(value) if isinstance(value, int | float) else math.nan
        return compute
    factory.__name__ = key
    factory.__doc__ = f"whatifbench's ``{key}`` of the suite's metrics."
    return metric(key)(factory)


_METRICS: dict[str, Callable[[], Metric]] = {}


def suite_metric(key: str) -> Callable[[], Metric]:
    """The inspect metric that reads ``key`` of the suite's own ``metrics`` (registered with
    inspect once per key; a suite's keys are ``Suite.reported_metrics``)."""
    if key not in _METRICS:
        _METRICS[key] = _reader(key)
    return _METRICS[key]
