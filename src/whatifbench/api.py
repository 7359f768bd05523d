"""The public Python API; the CLI is a thin layer over these functions.

>>> from whatifbench import api
>>> runs = api.run_all([api.default_suite()], ["builtin:random"])   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.registry import lookup
from whatifbench.errors import WhatifError
from whatifbench.report.render import tables_for, write_outputs
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.results import RunResult
from whatifbench.runner.store import RunStore, whatif_home
from whatifbench.suites.cvqa_synthetic.identity import GENERATOR
from whatifbench.suites.cvqa_synthetic.identity import VERSION as GENERATOR_VERSION

__all__ = [
    "DEFAULT_MODELS",
    "Protocol",
    "RunOptions",
    "RunStore",
    "default_dataset",
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

DEFAULT_SUITE = (GENERATOR, {"per_template": 50}, 0)
"""(generator, parameters, seed) of the small suite ``whatif run`` uses by default."""


def default_dataset(log: Callable[[str], None] | None = None) -> Dataset:
    """The small default C-VQA-Synthetic suite, generated once under ``$WHATIF_HOME`` (the
    generator is imported only to generate it), loaded and validated."""
    name, params, seed = DEFAULT_SUITE
    tag = "-".join(f"{k}{v}" for k, v in sorted(params.items()))
    folder = whatif_home() / "suites" / f"{name}-{tag}-seed{seed}-v{GENERATOR_VERSION}"
    if (folder / "items.jsonl").is_file():
        try:
            return load_dataset(folder)
        except WhatifError:
            pass
    if log:
        log(f"Generating the default suite into {folder} (once) ...")
    lookup("generator", name).obj.generate(folder, seed=seed, overwrite=True, **params)
    return load_dataset(folder)


def default_suite(log: Callable[[str], None] | None = None) -> Path:
    """The folder of the small default suite (see ``default_dataset``)."""
    return default_dataset(log).root


def run_all(datasets: Sequence[str | Path | Dataset], models: Sequence[str],
            model_args: Mapping[str, Any] | None = None, protocol: Protocol | None = None,
            options: RunOptions | None = None, store: RunStore | None = None,
            on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Evaluate every dataset with every model; datasets are validated before any model loads."""
    loaded = [d if isinstance(d, Dataset) else load_dataset(d) for d in datasets]
    protocol = (protocol or Protocol()).validate()
    options = options or RunOptions()
    own_store = store is None
    store = store or RunStore()
    results: list[RunResult] = []
    try:
        for spec in models:
            backend = make_backend(spec, model_args or {})
            try:
                for dataset in loaded:
                    result = evaluate(dataset, backend, protocol, store, options)
                    results.append(result)
                    if on_result:
                        on_result(result)
            finally:
                backend.close()
    finally:
        if own_store:
            store.close()
    return results
