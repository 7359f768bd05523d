"""A tool's command-line options from its entry function's declared parameters
(``core.params``): the plain ones are expanded there, ``Executor`` and ``Model`` here (their
options and values belong to the runner and the backends); tools written against the API
before parameters were declared (``add_arguments`` and ``run``) keep working, with a
deprecation warning that names the new way."""

from __future__ import annotations

import argparse
import contextlib
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from whatifbench.cli.options import (
    add_executor_arguments,
    add_model_arguments,
    generator_jobs,
    model_args_from,
)
from whatifbench.core.params import (
    NO_DEFAULT,
    Executor,
    Model,
    add_options,
    declared_params,
    entry_of,
    values_from,
)
from whatifbench.errors import WhatifDeprecationWarning

ENTRY_NAMES = {"generator": "generate"}
"""The entry function's name by kind (``entry`` for the others)."""


def add_tool_options(parser: argparse.ArgumentParser | Any, fn: Callable[..., Any],
                     command: str, skip: Sequence[str] = ()) -> None:
    """Every option of ``fn``'s declared parameters but ``skip`` (``command``: ``generate``
    for the Ray task options, else the tool's verb)."""
    for d in add_options(parser, fn, skip):
        if isinstance(d.marker, Executor):
            add_executor_arguments(parser, "run" if command == "run" else "generate")
        elif isinstance(d.marker, Model):
            add_model_arguments(parser, required=d.default is NO_DEFAULT, help=d.marker.help,
                                option=d.marker.option, short=d.marker.short,
                                base_url=d.marker.base_url)


@contextlib.contextmanager
def tool_values(args: argparse.Namespace, fn: Callable[..., Any],
                skip: Sequence[str] = ()) -> Iterator[dict[str, Any]]:
    """The keyword arguments of ``fn`` from parsed options, checked; an ``Executor``'s job
    map is open while the block runs."""
    values = values_from(args, fn, skip)
    with contextlib.ExitStack() as stack:
        for d in declared_params(fn):
            if d.name in skip:
                continue
            if isinstance(d.marker, Model):
                dest = d.marker.option.replace("-", "_")
                values[d.name] = getattr(args, dest)
                values[d.marker.args] = model_args_from(args, d.marker.option)
            elif isinstance(d.marker, Executor):
                values[d.name] = stack.enter_context(generator_jobs(args))
        yield values


def entry_or_warn(tool: Any, kind: str) -> Callable[..., Any] | None:
    """The tool's entry function; ``None`` (warned once, for a tool outside ``cli``) when it
    declares its options with ``add_arguments`` and ``run``, the API before issue 39."""
    fn = entry_of(tool, kind)
    if fn is None and not str(getattr(tool, "__module__", "")).startswith("whatifbench.cli"):
        name = ENTRY_NAMES.get(kind, "entry")
        warnings.warn(
            f"{tool.__module__}.{getattr(tool, '__qualname__', tool)} declares its options with "
            "add_arguments and run, the API before issue 39 (it still works): declare each "
            f"parameter once, in the typed signature of its {name} (Annotated[T, Param(help, "
            "...)] from whatifbench.core.params), and drop add_arguments and run "
            "(docs/adding-a-suite.md).", WhatifDeprecationWarning, stacklevel=2)
    return fn
