"""The public Python API; the CLI is a thin layer over these functions.

>>> from whatifbench import api
>>> runs = api.run_all([api.default_suite()], ["builtin:random"])   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import lookup
from whatifbench.errors import WhatifError
from whatifbench.report.render import tables_for, write_outputs
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.naming import named_models
from whatifbench.runner.results import RunResult
from whatifbench.runner.store import RunStore, whatif_home

__all__ = [
    "DEFAULT_MODELS",
    "Protocol",
    "RunOptions",
    "RunStore",
    "default_suite",
    "evaluate",
    "load_dataset",
    "run_all",
    "tables_for",
    "write_outputs",
]

DEFAULT_MODELS = ("builtin:random", "builtin:constant", "builtin:ignore-premise",
                  "builtin:scene-reader")
"""The built-in models evaluated by ``whatif run`` with no arguments."""

DEFAULT_SUITE = ("cvqa-synthetic", {"per_template": 50}, 0)
"""(generator, parameters, seed) of the small suite ``whatif run`` uses by default."""


def default_suite(log: Callable[[str], None] | None = None, progress: bool = False) -> Path:
    """The small default C-VQA-Synthetic suite, generated once under ``$WHATIF_HOME``
    (``progress``: a bar of images drawn while it is generated)."""
    name, params, seed = DEFAULT_SUITE
    generator = lookup("generator", name).obj
    tag = "-".join(f"{k}{v}" for k, v in sorted(params.items()))
    folder = whatif_home() / "suites" / f"{name}-{tag}-seed{seed}-v{generator.version}"
    if (folder / "items.jsonl").is_file():
        try:
            load_dataset(folder)
            return folder
        except WhatifError:
            pass
    if log:
        log(f"Generating the default suite into {folder} (once) ...")
    generator.generate(folder, seed=seed, overwrite=True, progress=progress, **params)
    return folder


def run_all(datasets: Sequence[str | Path | Dataset], models: Sequence[str],
            model_args: Mapping[str, Any] | None = None, protocol: Protocol | None = None,
            options: RunOptions | None = None, store: RunStore | None = None,
            on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Evaluate every dataset with every model; datasets are validated before any model loads.

    A model given as ``NAME=SPEC`` is shown as NAME; the spec records it as ``model_name``.
    """
    named = named_models(models)
    loaded = [d if isinstance(d, Dataset) else load_dataset(d) for d in datasets]
    protocol = (protocol or Protocol()).validate()
    options = options or RunOptions()
    own_store = store is None
    store = store or RunStore()
    results: list[RunResult] = []
    try:
        for name, spec in named:
            backend = make_backend(spec, model_args or {})
            try:
                for dataset in loaded:
                    result = evaluate(dataset, backend, protocol, store, options)
                    if name:
                        result = replace(result, spec={**result.spec, "model_name": name})
                    results.append(result)
                    if on_result:
                        on_result(result)
            finally:
                backend.close()
    finally:
        if own_store:
            store.close()
    return results
