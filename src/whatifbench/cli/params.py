"""A tool's command-line options from its entry function's declared parameters
(``core.params``): the plain ones are expanded there, ``Executor`` and ``Model`` here (their
options and values belong to the runner and the backends)."""

from __future__ import annotations

import argparse
import contextlib
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
    values_from,
)


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
