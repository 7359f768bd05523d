"""The Ray executor: runs answer requests on Ray actors, generators compute jobs in Ray tasks.

The driver (this process) builds the requests, keeps the run store and writes every output;
Ray only computes. ``RayBackend`` stands in for the backend on the driver: it has the real
backend's identity (asked from an actor, so cache keys are those of a local run) and answers
``generate``/``score`` by dispatching batches to an ``ActorPool``.
"""

from __future__ import annotations

import copy
import itertools
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from whatifbench.core.item import Item
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend, public_args
from whatifbench.models.make import backend_args
from whatifbench.runner.executors.config import ExecutorConfig
from whatifbench.runner.executors.ray.pool import ActorPool
from whatifbench.runner.executors.ray.session import RaySession, connect, disconnect, require_ray

J = TypeVar("J")
R = TypeVar("R")


def _call(fn: Callable[[Any], Any], job: Any, setup: Callable[[], None] | None) -> Any:
    """A generator job inside a Ray task."""
    if setup is not None:
        setup()
    return fn(job)


class RayBackend(Backend):
    """The driver's stand-in for a backend whose instances live in Ray actors."""

    def __init__(self, spec: str, args: Mapping[str, Any], pool: ActorPool) -> None:
        super().__init__(spec, public_args(args))
        self.pool = pool
        identity = pool.identity
        self.capabilities = Capabilities(**identity["capabilities"])
        self.execution_args = frozenset(identity["execution_args"])
        self.model_type = str(identity.get("model_type") or "")  # for models.family.model_hint
        self.text_model_type = str(identity.get("text_model_type") or "")
        self._prepared: tuple[int, list[Any]] | None = None

    @property
    def version(self) -> str:
        """The real backend's version."""
        return str(self.pool.identity["describe"].get("version", "1"))

    def describe(self) -> dict[str, Any]:
        """The real backend's public description."""
        described: dict[str, Any] = copy.deepcopy(self.pool.identity["describe"])
        return described

    def cache_identity(self) -> dict[str, Any]:
        """The real backend's cache identity (keys equal those of a local run)."""
        identity: dict[str, Any] = copy.deepcopy(self.pool.identity["cache_identity"])
        return identity

    def prepare(self, items: Sequence[Item]) -> None:
        """Every actor prepares these items before its next batch."""
        import ray

        token = (self._prepared[0] + 1) if self._prepared else 1
        self._prepared = (token, [ray.put(list(items))])

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Replies computed by the actors, batch by batch."""
        return self.pool.run("generate", requests, self._prepared)

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Candidate scores computed by the actors; the backend's own refusal when it cannot
        rank."""
        if not self.capabilities.rank:
            message = self.pool.explain("rank")
            raise WhatifError(message or f"The backend {self.spec} cannot rank answers; use "
                                         "--answer-mode generate.")
        return self.pool.run("rank", requests, self._prepared)

    def inapplicable(self, suite: str, generator: str | None = None) -> str | None:
        """The real backend's answer (it may depend on its arguments), asked of an actor."""
        return self.pool.inapplicable(suite, generator)

    def ablation_refusal(self, kind: str) -> str | None:
        """The real backend's answer, as an actor reported it."""
        found = self.pool.identity.get("ablation_refusals") or {}
        return found.get(kind)

    def close(self) -> None:
        """End the actors."""
        self.pool.close()


class RayExecutor:
    """Connects to Ray on first use; backends become actor pools, generator jobs Ray tasks."""

    one_at_a_time = True
    """A pool's actors hold their resources until it closes."""

    def __init__(self, config: ExecutorConfig,
                 log: Callable[[str], None] | None = None) -> None:
        require_ray()  # fail before any work when Ray is missing
        self.config = config
        self.log = log or (lambda message: None)
        self.session: RaySession | None = None

    def _connect(self) -> RaySession:
        if self.session is None:
            self.session = connect(self.config.address)
            self.log(self.session.describe())
        return self.session

    def make_backend(self, spec: str, args: Mapping[str, Any], *,
                     shared: bool = False) -> Backend:
        """A ``RayBackend`` whose actors hold ``spec`` (``--ray-actors``,
        ``--ray-actor-resources``); its arguments are checked here, before any actor starts."""
        cls, args = backend_args(spec, args, shared=shared)
        session = self._connect()
        pool = ActorPool(session, spec, dict(args), self.config.actors, self.config.resources,
                         bool(getattr(cls, "uses_gpu", False)), self.log)
        return RayBackend(spec, args, pool)

    def map(self, fn: Callable[[J], R], jobs: Sequence[J],
            setup: Callable[[], None] | None = None) -> Iterator[R]:
        """``fn(job)`` for every job in Ray tasks (one CPU each; retried by Ray when a worker
        or node is lost), results yielded in job order while later jobs still run."""
        self._connect()
        import ray

        window = self.config.tasks or max(2, int(2 * ray.cluster_resources().get("CPU", 1)))
        task = ray.remote(_call).options(num_cpus=1, max_retries=3)
        self.log(f"Ray: {len(jobs)} jobs, at most {window} tasks in flight.")
        pending: deque[Any] = deque()
        upcoming = iter(jobs)

        def submit() -> None:
            for job in itertools.islice(upcoming, 1):
                pending.append(task.remote(fn, job, setup))

        try:
            for _ in range(window):
                submit()
            while pending:
                result: R = ray.get(pending.popleft())
                submit()
                yield result
        finally:
            for ref in pending:
                ray.cancel(ref)

    def close(self) -> None:
        """Disconnect (and stop a local Ray started for this command)."""
        if self.session is not None:
            disconnect(self.session)
            self.session = None
