"""The public Python API; the CLI is a thin layer over these functions.

>>> from whatifbench import api
>>> runs = api.run_all([api.default_suite()], ["builtin:random"])   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.design import DEFAULT_DESIGN
from whatifbench.core.fsutil import can_write, scratch_dir
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import lookup
from whatifbench.core.suite import suite_for
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.make import backend_args, check_shared_args
from whatifbench.report.render import tables_for, write_outputs
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.executors.config import Executor, ExecutorConfig
from whatifbench.runner.executors.local import LocalExecutor, open_executor
from whatifbench.runner.naming import named_models
from whatifbench.runner.results import RunResult
from whatifbench.runner.store import RunStore, whatif_home
from whatifbench.suites.cvqa.synthetic.identity import GENERATOR
from whatifbench.suites.cvqa.synthetic.identity import VERSION as GENERATOR_VERSION

__all__ = [
    "DEFAULT_MODELS",
    "ExecutorConfig",
    "Protocol",
    "RunOptions",
    "RunStore",
    "applicable",
    "default_dataset",
    "default_suite",
    "ensure_audit",
    "evaluate",
    "load_dataset",
    "open_executor",
    "run_all",
    "tables_for",
    "write_outputs",
]

DEFAULT_MODELS = ("builtin:random", "builtin:constant", "builtin:ignore-premise",
                  "builtin:scene-reader")
"""The built-in models evaluated by ``whatif run`` with no arguments."""

DEFAULT_SUITE = (GENERATOR, {"per_template": 50, "design": DEFAULT_DESIGN}, 0)
"""(generator, parameters, seed) of the small suite ``whatif run`` uses by default."""


def default_dataset(log: Callable[[str], None] | None = None,
                    progress: bool = False) -> Dataset:
    """The small default C-VQA-Synthetic suite, generated once under ``$WHATIF_HOME`` (the
    generator is imported only to generate it; ``progress``: a bar of images drawn meanwhile),
    loaded and verified."""
    name, params, seed = DEFAULT_SUITE
    return generated_dataset(name, params, seed, log, version=GENERATOR_VERSION,
                             progress=progress)


def generated_dataset(name: str, params: Mapping[str, Any], seed: int,
                      log: Callable[[str], None] | None = None,
                      version: str | None = None, progress: bool = False) -> Dataset:
    """The suite the generator ``name`` makes with ``params`` and ``seed``, generated once under
    ``$WHATIF_HOME/suites`` (again when the folder does not load or verify), loaded and
    verified. ``version``: the generator's version when known without importing it;
    ``progress``: a bar of images drawn while it is generated (generators that offer one)."""
    if version is None:
        version = lookup("generator", name).obj.version
    tag = "-".join(f"{k}{v}" for k, v in sorted(params.items()))
    folder = whatif_home() / "suites" / f"{name}-{tag}-seed{seed}-v{version}"
    if (folder / "items.jsonl").is_file():
        try:
            return load_dataset(folder, verify=True)
        except WhatifError:
            pass
    extra = {"progress": True} if progress else {}
    if can_write(folder.parent):
        if log:
            log(f"Generating {name} into {folder} (once) ...")
        try:
            lookup("generator", name).obj.generate(folder, seed=seed, overwrite=True, **params,
                                                   **extra)
            return load_dataset(folder, verify=True)
        except WhatifError as exc:  # the home filled up: a cached suite is best-effort
            if log:
                log(f"{exc} Generating it again in a temporary folder for this run.")
    spare = scratch_dir() / folder.name
    if log:
        log(f"Generating {name} into {spare} for this run ($WHATIF_HOME cannot keep it) ...")
    lookup("generator", name).obj.generate(spare, seed=seed, overwrite=True, **params, **extra)
    return load_dataset(spare, verify=True)


def ensure_audit(dataset: Dataset, log: Callable[[str], None] | None = None) -> bool:
    """Audit ``dataset`` once (``whatif audit``, cached by its items' hash), so that its
    tables get the blind rows; ``False`` (said to ``log``) when it cannot be audited."""
    from whatifbench.analysis.audit.store import load_audit

    if load_audit(dataset.items_sha256) is not None:
        return True
    from whatifbench.analysis.audit.audit import audit_dataset

    if log:
        log(f"Auditing {dataset.root} (once): the blind rows of its tables ...")
    try:
        audit_dataset(dataset.root)
    except WhatifError as exc:
        if log:
            log(f"No blind row: {exc}")
        return False
    return True


def default_suite(log: Callable[[str], None] | None = None, progress: bool = False) -> Path:
    """The folder of the small default suite (see ``default_dataset``)."""
    return default_dataset(log, progress).root


def run_all(datasets: Sequence[str | Path | Dataset], models: Sequence[str],
            model_args: Mapping[str, Any] | None = None, protocol: Protocol | None = None,
            options: RunOptions | None = None, store: RunStore | None = None,
            on_result: Callable[[RunResult], None] | None = None, *, defaults: bool = False,
            on_skip: Callable[[str], None] | None = None,
            executor: Executor | None = None) -> list[RunResult]:
    """Evaluate every dataset with every model.

    Before any model is called: the datasets are validated and every model's ``-M`` arguments
    checked. In this process every backend is then created (which checks its credentials) and
    every model is checked to apply to every dataset (``Backend.inapplicable``: an inapplicable
    pairing is refused with the reason, or, with ``defaults`` — the models were not chosen by
    the user — left out and reported to ``on_skip``). An ``executor`` whose backends hold
    resources while they exist (``Executor.one_at_a_time``: Ray's actors) creates and checks
    each backend just before its model runs, once the one before it has been closed. The run
    store is written here either way. A model given as ``NAME=SPEC`` is shown as NAME; the spec
    records it as ``model_name``.
    """
    named = named_models(models)
    specs = [spec for _, spec in named]
    left_out: list[str] = []

    def skipped(message: str) -> None:
        left_out.append(message)
        if on_skip:
            on_skip(message)

    loaded = [d if isinstance(d, Dataset) else load_dataset(d, verify=True) for d in datasets]
    protocol = (protocol or Protocol()).validate()
    options = options or RunOptions()
    if options.budget is not None:  # the bank against every dataset, before any model call
        from whatifbench.analysis.items.budget import full_run, prepare

        for dataset in loaded:
            if not full_run(dataset, options.budget):
                prepare(dataset, options.budget)
    args = dict(model_args or {})
    shared = len(models) > 1
    if shared:
        check_shared_args(args, specs)
    executor = executor or LocalExecutor()
    open_backends: list[Backend] = []
    names: dict[int, str | None] = {}

    def create(name: str | None, spec: str) -> Backend:
        backend = executor.make_backend(spec, args, shared=shared)
        open_backends.append(backend)
        names[id(backend)] = name
        return backend

    def close(backend: Backend) -> None:
        open_backends.remove(backend)
        backend.close()  # free its memory (Ray: its actors) before the next model loads

    def checked(backends: list[Backend]) -> list[tuple[Backend, list[Dataset]]]:
        """``applicable``; backends left with no dataset are closed at once."""
        chosen = applicable(loaded, backends, defaults, skipped, options.image_ablation)
        for backend in set(backends) - {b for b, _ in chosen}:
            close(backend)
        return chosen

    def plan() -> Iterator[tuple[Backend, list[Dataset]]]:
        if not executor.one_at_a_time:
            yield from checked([create(*model) for model in named])
            return
        for spec in specs:  # every model's arguments, before the first one's actors start
            backend_args(spec, args, shared=shared)
        for model in named:
            yield from checked([create(*model)])

    own_store = store is None
    results: list[RunResult] = []
    try:
        for backend, chosen in plan():
            store = store or RunStore()
            for dataset in chosen:
                result = (evaluate if options.budget is None else _budgeted)(
                    dataset, backend, protocol, store, options)
                if names[id(backend)]:
                    result = replace(result, spec=replace(result.spec,
                                                          model_name=names[id(backend)]))
                results.append(result)
                if on_result:
                    on_result(result)
            close(backend)
    finally:
        for backend in open_backends:
            backend.close()
        if own_store and store is not None:
            store.close()
    if not results and left_out:
        why = (f"each of the {len(left_out)} was left out (said above)" if on_skip else
               " ".join(left_out))
        raise WhatifError(
            f"No model is left to run: {why}. Name a --model that applies ('whatif models' "
            "lists them), or change the --image-ablation or the dataset that ruled them out.")
    return results


def applicable(datasets: Sequence[Dataset], backends: Sequence[Backend], defaults: bool = False,
               on_skip: Callable[[str], None] | None = None, ablation: str | None = None
               ) -> list[tuple[Backend, list[Dataset]]]:
    """Each backend with the datasets it can answer (``Backend.inapplicable``), and able to run
    the image ``ablation`` if one is asked (``Backend.ablation_refusal``). A pairing that does
    not apply raises a ``WhatifError`` naming the reason, unless ``defaults``: then it is left
    out (``on_skip`` hears why) and backends left with no dataset are dropped."""
    plan: list[tuple[Backend, list[Dataset]]] = []
    for dataset in datasets:
        why = (suite_for(dataset.suite).ablation_refusal(ablation, dataset.items)
               if ablation else None)
        if why:
            raise WhatifError(f"--image-ablation {ablation} cannot be applied to the dataset "
                              f"{dataset.root} (suite {dataset.suite}): {why}. Leave "
                              "--image-ablation out for it.")
    for backend in backends:
        refused = backend.ablation_refusal(ablation) if ablation else None
        if refused and defaults:
            if on_skip:
                on_skip(f"{backend.spec} is left out: --image-ablation {ablation}: {refused}.")
            continue
        if refused:
            raise WhatifError(
                f"--image-ablation {ablation} cannot be used with the model {backend.spec}: "
                f"{refused}. Choose another --model, or another --image-ablation.")
        chosen = []
        for dataset in datasets:
            why = backend.inapplicable(dataset.suite, dataset.card.generator.get("name"))
            if why is None:
                chosen.append(dataset)
            elif defaults:
                if on_skip:
                    on_skip(f"{backend.spec} is left out on {dataset.card.name} "
                            f"({dataset.root}): {why}.")
            else:
                raise WhatifError(
                    f"The model {backend.spec} does not apply to the dataset {dataset.root} "
                    f"(suite {dataset.suite}): {why}. Choose another --model ('whatif models' "
                    "lists them), or leave --model out to run the built-in models that apply."
                )
        if chosen:
            plan.append((backend, chosen))
    return plan


def _budgeted(dataset: Dataset, backend: Backend, protocol: Protocol, store: RunStore,
              options: RunOptions) -> RunResult:
    """``whatif run --budget``: items chosen from a bank, the full score estimated."""
    from whatifbench.analysis.items.budget import run_budget

    return run_budget(dataset, backend, protocol, store, options)
