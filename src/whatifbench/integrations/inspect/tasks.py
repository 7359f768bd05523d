"""One inspect ``@task`` per suite. ``dataset``: a whatifbench dataset folder; without it the
generated suites use a small default suite (made once under ``$WHATIF_HOME``); ``prompt`` and
``strategy`` are those of ``whatif run`` (answers are generated)."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.errors import WhatifError
from whatifbench.integrations.inspect.samples import inspect_samples, resolved
from whatifbench.integrations.inspect.scorer import METRICS, SUITE_METRICS, whatif_answer

DEFAULTS: dict[str, tuple[str, dict[str, Any], int] | None] = {
    "cvqa-synthetic": api.DEFAULT_SUITE,
    "cfmm": ("cfmm-synthetic", {"per_category": 20}, 0),
    "mucr": ("mucr-synthetic", {"groups": 5}, 0),
    "cvqa-real": None,
    "cello": None,
}
"""The default suite of each task without ``-T dataset`` (generator, parameters, seed)."""


def suite_task(suite: str, dataset: str | None, prompt: str, strategy: str) -> Task:
    """The inspect task of ``suite`` over a dataset folder (or the suite's default)."""
    default = DEFAULTS[suite]
    if dataset is not None:
        data = load_dataset(dataset)
    elif default is not None:
        data = api.generated_dataset(*default)
    else:
        raise WhatifError(
            f"The {suite} task needs a dataset: pass -T dataset=DIR (a folder made by "
            f"'whatif import {suite}' or 'whatif build').")
    if data.suite != suite:
        name = data.suite.replace("-", "_")
        raise WhatifError(f"{dataset} is a {data.suite} dataset; run it with the task "
                          f"whatifbench/{name}.")
    protocol = resolved(data, Protocol(prompt=prompt, strategy=strategy).validate())
    return Task(
        dataset=MemoryDataset(inspect_samples(data, protocol), name=data.card.name),
        solver=generate(),
        scorer=whatif_answer(suite, protocol.to_json()),
        metrics=[METRICS[key]() for key in SUITE_METRICS[suite]],
        config=GenerateConfig(temperature=0.0, max_tokens=protocol.max_new_tokens),
        metadata={"whatifbench_dataset": data.card.name, "suite": suite,
                  "items_sha256": data.items_sha256, "protocol": protocol.to_json()},
    )


@task
def cvqa_synthetic(dataset: str | None = None, prompt: str = "default",
                   strategy: str = "zero-shot") -> Task:
    """C-VQA-Synthetic: counting with counterfactual premises (default: the small suite)."""
    return suite_task("cvqa-synthetic", dataset, prompt, strategy)


@task
def cvqa_real(dataset: str | None = None, prompt: str = "default",
              strategy: str = "zero-shot") -> Task:
    """C-VQA-Real: VQAv2 questions with counterfactual premises (needs -T dataset)."""
    return suite_task("cvqa-real", dataset, prompt, strategy)


@task
def cfmm(dataset: str | None = None, prompt: str = "default",
         strategy: str = "zero-shot") -> Task:
    """CFMM: basic/counterfactual pairs, options as letters (default: 100 generated pairs)."""
    return suite_task("cfmm", dataset, prompt, strategy)


@task
def mucr(dataset: str | None = None, prompt: str = "default",
         strategy: str = "zero-shot") -> Task:
    """MuCR: cause/effect images; C2E, E2C, Cue, Exp (default: 20 generated pairs)."""
    return suite_task("mucr", dataset, prompt, strategy)


@task
def cello(dataset: str | None = None, prompt: str = "default",
          strategy: str = "zero-shot") -> Task:
    """CELLO: causal questions over four rungs (needs -T dataset)."""
    return suite_task("cello", dataset, prompt, strategy)
