"""The local executor (backends in this process) and ``open_executor``, which picks the
executor a configuration names."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from whatifbench.models.base import Backend
from whatifbench.runner.executors.config import Executor, ExecutorConfig, JobMap


class LocalExecutor:
    """Backends live in this process."""

    one_at_a_time = False
    """Creating a backend loads nothing (models load on first use)."""

    def make_backend(self, spec: str, args: Mapping[str, Any], *,
                     shared: bool = False) -> Backend:
        """The backend itself."""
        from whatifbench.models.make import make_backend

        return make_backend(spec, args, shared=shared)

    def close(self) -> None:
        """Nothing to release."""


@contextlib.contextmanager
def open_executor(config: ExecutorConfig,
                  log: Callable[[str], None] | None = None) -> Iterator[Executor]:
    """The executor for ``config``, closed (Ray disconnected) when the block ends."""
    executor: Executor
    if config.kind == "ray":
        from whatifbench.runner.executors.ray.executor import RayExecutor

        executor = RayExecutor(config, log)
    else:
        executor = LocalExecutor()
    try:
        yield executor
    finally:
        executor.close()


@contextlib.contextmanager
def open_job_map(config: ExecutorConfig,
                 log: Callable[[str], None] | None = None) -> Iterator[JobMap | None]:
    """For generators: Ray tasks with ``--executor ray`` (closed when the block ends), else
    ``None`` (the generator's own local worker processes)."""
    if config.kind != "ray":
        yield None
        return
    from whatifbench.runner.executors.ray.executor import RayExecutor

    executor = RayExecutor(config, log)
    try:
        yield executor
    finally:
        executor.close()


def stderr(message: str) -> None:
    """Print an executor's progress message on stderr."""
    print(message, file=sys.stderr)
