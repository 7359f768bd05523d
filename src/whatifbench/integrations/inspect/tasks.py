"""One inspect ``@task`` per registered suite (``cvqa-synthetic`` → ``cvqa_synthetic``), made
from the registry, so a new suite gets its task without an edit here. ``dataset``: a whatifbench
dataset folder; without it a suite with a generator uses its small generated dataset
(``Suite.demo``, made once under ``$WHATIF_HOME``); ``prompt`` and ``strategy`` are those of
``whatif run`` (answers are generated)."""

from __future__ import annotations

import re
from collections.abc import Callable

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import listing
from whatifbench.core.suite import suite_for
from whatifbench.errors import WhatifError
from whatifbench.integrations.inspect.samples import inspect_samples, resolved
from whatifbench.integrations.inspect.scorer import suite_metric, whatif_answer


def suite_task(suite: str, dataset: str | None, prompt: str, strategy: str,
               with_answers: bool = False) -> Task:
    """The inspect task of ``suite`` over a dataset folder (or the suite's small generated
    dataset, ``Suite.demo``); no answer where a solver can read it unless ``with_answers``
    (``samples``)."""
    the_suite = suite_for(suite)
    demo = the_suite.demo
    if dataset is not None:
        data = load_dataset(dataset)
    elif demo is not None:
        data = api.generated_dataset(demo.generator, demo.params, demo.seed)
    else:
        raise WhatifError(
            f"The {suite} task needs a dataset: pass -T dataset=DIR (a folder made by "
            f"'whatif import {suite}' or 'whatif build').")
    if data.suite != suite:
        raise WhatifError(f"{dataset} is a {data.suite} dataset; run it with the task "
                          f"whatifbench/{task_name(data.suite)}.")
    protocol = resolved(data, Protocol(prompt=prompt, strategy=strategy).validate())
    return Task(
        dataset=MemoryDataset(inspect_samples(data, protocol, with_answers),
                              name=data.card.name),
        solver=generate(),
        scorer=whatif_answer(suite, protocol.to_json(), str(data.root), data.items_sha256),
        metrics=[suite_metric(key)() for key in the_suite.reported_metrics(data.items)],
        config=GenerateConfig(temperature=0.0, max_tokens=protocol.max_new_tokens),
        metadata={"whatifbench_dataset": data.card.name, "suite": suite,
                  "items_sha256": data.items_sha256, "protocol": protocol.to_json()},
    )


def task_name(suite: str) -> str:
    """The inspect task's name of a suite (``cvqa-synthetic`` → ``cvqa_synthetic``)."""
    return re.sub(r"\W", "_", suite)


def task_for(suite: str) -> Callable[..., Task]:
    """The registered inspect task of ``suite`` (made on first use): ``inspect eval
    whatifbench/<task_name>``, with ``-T dataset=DIR``, ``-T prompt=...``, ``-T strategy=...``,
    ``-T with_answers=true`` (targets and items in the samples, where solvers can read them)."""
    name = task_name(suite)
    found = _TASKS.get(name)
    if found is None:
        def made(dataset: str | None = None, prompt: str = "default",
                 strategy: str = "zero-shot", with_answers: bool = False) -> Task:
            return suite_task(suite, dataset, prompt, strategy, with_answers)

        made.__name__ = made.__qualname__ = name
        summary = next((s.summary for s in listing("suite") if s.name == suite), suite)
        made.__doc__ = summary + ("" if suite_for(suite).demo is None else
                                  " (default: a small generated dataset).")
        found = _TASKS[name] = task(name=name)(made)
    return found


_TASKS: dict[str, Callable[..., Task]] = {}
for _listed in listing("suite"):
    globals()[task_name(_listed.name)] = task_for(_listed.name)
