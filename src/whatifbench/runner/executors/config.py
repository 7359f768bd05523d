"""What an executor is configured with (``--executor``, ``--ray-*``) and the two protocols
executors implement; the executors themselves import these, never the other way round."""

from __future__ import annotations

import re
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
