"""Executors decide *where* a run's requests and a generator's jobs are computed, never *what*.

``local`` (the default) computes in this process (generators: in its worker processes); ``ray``
sends batches of requests to Ray actors that each hold one backend instance, and generator
jobs to Ray tasks (``runner.ray_executor``). Either way the driver alone writes the run store
and the output folder, so resuming, caching and byte-identical outputs hold for both.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend

EXECUTORS = ("local", "ray")
UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
AMOUNT = re.compile(r"(?i)\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*")
RESOURCE_NAME = re.compile(r"[A-Za-z_][\w.:/-]*")
J = TypeVar("J")
R = TypeVar("R")


@dataclass(frozen=True)
class Resources:
    """What one Ray actor reserves (``--ray-actor-resources gpu=1,cpu=4``)."""

    cpu: float = 1.0
    """CPUs reserved."""
    gpu: float | None = None
    """GPUs reserved; ``None``: one for backends that run a network locally (``hf:``) when the
    cluster has GPUs, otherwise none."""
    memory: int | None = None
    """Bytes of memory reserved (``memory=16G``), for Ray's scheduling."""
    custom: tuple[tuple[str, float], ...] = ()
    """Custom Ray resources (``name=amount``), e.g. to pin actors to labelled nodes."""

    @classmethod
    def parse(cls, text: str) -> Resources:
        """``cpu=4,gpu=1,memory=16G,NAME=AMOUNT``; one ``WhatifError`` names a bad entry."""
        values: dict[str, Any] = {}
        custom: list[tuple[str, float]] = []
        for entry in (e.strip() for e in text.split(",")):
            if not entry:
                continue
            name, sep, raw = entry.partition("=")
            name = name.strip()
            found = AMOUNT.fullmatch(raw)
            if not sep or not RESOURCE_NAME.fullmatch(name) or found is None:
                raise WhatifError(
                    f"--ray-actor-resources entry {entry!r} is not NAME=AMOUNT; write e.g. "
                    "--ray-actor-resources gpu=1,cpu=4,memory=16G."
                )
            amount = float(found.group(1)) * UNITS[found.group(2).lower()]
            key = name.lower()
            if found.group(2) and key != "memory":
                raise WhatifError(f"--ray-actor-resources {entry!r}: only memory takes a unit "
                                  "(K, M, G, T).")
            if key in values or any(name == c for c, _ in custom):
                raise WhatifError(f"--ray-actor-resources names {name} twice.")
            if key in ("cpu", "gpu"):
                values[key] = amount
            elif key == "memory":
                values[key] = int(amount)
            else:
                custom.append((name, amount))
        return cls(**values, custom=tuple(custom))

    def needs(self, gpus: float) -> dict[str, float]:
        """Ray resource names → amounts one actor takes (``gpus``: the GPU count to use when
        ``gpu`` is unset)."""
        out = {"CPU": self.cpu, "GPU": self.gpu if self.gpu is not None else gpus}
        if self.memory:
            out["memory"] = float(self.memory)
        out.update(self.custom)
        return {k: v for k, v in out.items() if v > 0}

    def text(self, gpus: float) -> str:
        """Short form for messages (``cpu=1,gpu=1``)."""
        names = {"CPU": "cpu", "GPU": "gpu"}
        return ",".join(f"{names.get(k, k)}={v:g}" for k, v in self.needs(gpus).items())


@dataclass(frozen=True)
class ExecutorConfig:
    """The ``--executor`` options of ``whatif run`` and ``whatif generate``."""

    kind: str = "local"
    """``local`` or ``ray``."""
    address: str | None = None
    """Ray address (``auto``, ``HOST:PORT``, ``ray://HOST:10001``); ``None``: ``$RAY_ADDRESS``,
    else a running cluster, else a local Ray started for the command."""
    actors: int | None = None
    """``run``: Ray actors (default: as many as the cluster's resources allow)."""
    resources: Resources = Resources()
    """``run``: what each actor reserves."""
    tasks: int | None = None
    """``generate``: most Ray tasks in flight (default: twice the cluster's CPUs)."""


class Executor(Protocol):
    """Where a run's requests are answered."""

    one_at_a_time: bool
    """Its backends hold resources while they exist (Ray: actors), so a run creates each one
    just before its model runs, after closing the one before."""

    def make_backend(self, spec: str, args: Mapping[str, Any], *,
                     shared: bool = False) -> Backend:
        """The backend that answers requests for ``spec`` (``shared``: see
        ``runner.backends.backend_args``)."""
        ...

    def close(self) -> None:
        """Release what the executor holds."""
        ...


class JobMap(Protocol):
    """Where a generator's jobs are computed when they leave this machine."""

    def map(self, fn: Callable[[J], R], jobs: Sequence[J],
            setup: Callable[[], None] | None = None) -> Iterator[R]:
        """``fn(job)`` for each job, results in job order (``setup`` runs first in each
        worker process, e.g. to tune the image library)."""
        ...


class LocalExecutor:
    """Backends live in this process."""

    one_at_a_time = False
    """Creating a backend loads nothing (models load on first use)."""

    def make_backend(self, spec: str, args: Mapping[str, Any], *,
                     shared: bool = False) -> Backend:
        """The backend itself."""
        from whatifbench.runner.backends import make_backend

        return make_backend(spec, args, shared=shared)

    def close(self) -> None:
        """Nothing to release."""


@contextlib.contextmanager
def open_executor(config: ExecutorConfig,
                  log: Callable[[str], None] | None = None) -> Iterator[Executor]:
    """The executor for ``config``, closed (Ray disconnected) when the block ends."""
    executor: Executor
    if config.kind == "ray":
        from whatifbench.runner.ray_executor import RayExecutor

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
    from whatifbench.runner.ray_executor import RayExecutor

    executor = RayExecutor(config, log)
    try:
        yield executor
    finally:
        executor.close()


def stderr(message: str) -> None:
    """Print an executor's progress message on stderr."""
    print(message, file=sys.stderr)


def generator_jobs(args: argparse.Namespace) -> contextlib.AbstractContextManager[JobMap | None]:
    """``open_job_map`` for a generator's parsed options (``--executor``, ``--ray-*``)."""
    if getattr(args, "workers", None) is not None and getattr(args, "executor", None) == "ray":
        raise WhatifError("--workers sets local processes; with --executor ray use --ray-tasks.")
    return open_job_map(executor_config(args), log=stderr)


def add_executor_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    """``--executor`` and the ``--ray-*`` options (``command``: ``run`` or ``generate``)."""
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="where the work runs: this machine (default) or a Ray cluster "
                             '(pip install "whatifbench[ray]")')
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="Ray cluster to use (auto, HOST:PORT, ray://HOST:10001; default: "
                             "$RAY_ADDRESS, else a running cluster, else a local Ray)")
    if command == "run":
        parser.add_argument("--ray-actors", type=int, metavar="N",
                            help="Ray actors, each holding one model instance (default: as "
                                 "many as the cluster's resources allow)")
        parser.add_argument("--ray-actor-resources", metavar="SPEC", default="",
                            help="what each actor reserves, e.g. gpu=1,cpu=4,memory=16G "
                                 "(default cpu=1, plus gpu=1 for hf: models on GPU clusters)")
    else:
        parser.add_argument("--ray-tasks", type=int, metavar="N",
                            help="most Ray tasks in flight (default: twice the cluster's CPUs; "
                                 "the output does not change)")


def executor_config(args: argparse.Namespace) -> ExecutorConfig:
    """The ``ExecutorConfig`` of parsed options; ``--ray-*`` options need ``--executor ray``."""
    kind = getattr(args, "executor", None) or "local"
    given = {name: getattr(args, dest, None) for name, dest in (
        ("--ray-address", "ray_address"), ("--ray-actors", "ray_actors"),
        ("--ray-actor-resources", "ray_actor_resources"), ("--ray-tasks", "ray_tasks"))}
    if kind != "ray":
        used = [name for name, value in given.items() if value]
        if used:
            raise WhatifError(f"{', '.join(used)} only apply with --executor ray.")
        return ExecutorConfig()
    for name in ("--ray-actors", "--ray-tasks"):
        value = given[name]
        if value is not None and value < 1:
            raise WhatifError(f"{name} must be at least 1, got {value}.")
    return ExecutorConfig(kind="ray", address=given["--ray-address"] or None,
                          actors=given["--ray-actors"],
                          resources=Resources.parse(given["--ray-actor-resources"] or ""),
                          tasks=given["--ray-tasks"])
