"""Ray actors that each hold one backend, and the dispatch of request batches to them.

Requests are cut into batches of consecutive requests (never splitting requests that show the
same images, so an actor's image caches stay useful); each actor has at most ``IN_FLIGHT``
batches queued, so it never waits for the driver. A batch comes back whole and its responses
are yielded at once (the caller stores them). When an actor dies (killed, crashed, node lost),
its unfinished batches go back to the queue for the other actors; Ray restarts the actor (up to
``MAX_RESTARTS`` times) and it rejoins when it answers again. A batch whose actor died
``MAX_ATTEMPTS`` times is answered with errors (retried on the next run) so that one poisonous
request cannot stop the run.
"""

from __future__ import annotations

import math
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from whatifbench import __version__
from whatifbench.core.requests import Request, Response
from whatifbench.errors import WhatifError
from whatifbench.runner.executors.config import Resources
from whatifbench.runner.executors.ray.session import RaySession, alive_nodes, cluster_gpus, fitting
from whatifbench.runner.executors.ray.worker import (
    Answered,
    BackendWorker,
    Batch,
    Missing,
    Refused,
    map_images,
    ship,
)
from whatifbench.runner.requests import ImageHasher

IN_FLIGHT = 2
"""Batches queued per actor."""
MAX_BATCH = 64
"""Most requests per batch."""
MAX_ATTEMPTS = 3
"""Times a batch is dispatched to actors that die before it is answered with errors."""
MAX_RESTARTS = 3
"""Times Ray restarts one actor."""
NOTICE_SECONDS = 30.0
"""Say so when no actor has been able to work for this long."""
STALL_SECONDS = 900.0
"""Give up when no actor has been able to work for this long."""


def plan_batches(requests: Sequence[Request], actors: int) -> list[list[int]]:
    """Consecutive index ranges: at least four batches per actor, at most ``MAX_BATCH``
    requests each, smaller ones at the end (so actors finish together); a cut never separates
    two requests that show the same images."""
    n = len(requests)
    size = max(1, min(MAX_BATCH, math.ceil(n / (4 * actors))))
    small = max(1, size // 4)
    cut = max(0, n - 2 * actors * size) // size * size
    out: list[list[int]] = []
    start = 0
    for end in [*range(size, cut + 1, size), *range(cut + small, n, small), n]:
        if end <= start:
            continue
        while end < n and requests[end].images and requests[end].images == requests[end - 1].images:
            end += 1
        out.append(list(range(start, end)))
        start = end
    return out


@dataclass
class Slot:
    """One actor as the driver sees it."""

    handle: Any
    """The Ray actor handle."""
    number: int
    """1-based, for messages."""
    node: str = ""
    """Its Ray node."""
    pid: int = 0
    """Its process id on that node."""
    alive: bool = False
    """Answering (joined, not known to be dead or restarting)."""
    dead: bool = False
    """Died for good (restarts exhausted)."""
    busy: int = 0
    """Batches in flight."""
    sent: set[str] = field(default_factory=set)
    """Content names of images it has received."""


@dataclass
class Job:
    """A batch of request indices and how often it was lost with its actor."""

    indices: list[int]
    """Positions in the caller's request list."""
    lost: int = 0
    """Times its actor died before answering."""
    resend: bool = False
    """Send all image bytes (the actor reported missing images)."""


LOST = ("RayActorError", "ObjectLostError", "WorkerCrashedError", "NodeDiedError",
        "ActorUnschedulableError")
"""Ray exceptions that mean the actor or its result is gone (the batch is dispatched again)."""


class ActorPool:
    """``count`` actors holding ``spec`` built with ``args`` (``count`` ``None``: as many as
    the cluster's resources allow)."""

    def __init__(self, session: RaySession, spec: str, args: dict[str, Any], count: int | None,
                 resources: Resources, accelerator: bool,
                 log: Callable[[str], None] | None = None) -> None:
        import ray

        self.ray = ray
        self.session = session
        self.spec = spec
        self.log = log or (lambda message: None)
        self.hasher = ImageHasher()
        nodes = alive_nodes()
        gpus = 1.0 if accelerator and cluster_gpus(nodes) > 0 else 0.0
        need = resources.needs(gpus)
        fits = fitting(need, nodes) if need else int(sum(n.get("CPU", 0) for n in nodes))
        if fits < 1:
            raise WhatifError(
                f"No node of the Ray cluster has the resources one actor of {spec} asks for "
                f"({resources.text(gpus)}); the nodes have "
                f"{'; '.join(_node_text(n) for n in nodes) or 'nothing'}. Change "
                "--ray-actor-resources."
            )
        count = count or fits
        if count > fits:
            self.log(f"Ray: {count} actors asked for, but the cluster holds {fits} at once "
                     f"({resources.text(gpus)} each); the others start when resources free up.")
        options: dict[str, Any] = {"num_cpus": need.get("CPU", 0), "num_gpus": need.get("GPU", 0),
                                   "max_restarts": MAX_RESTARTS, "max_task_retries": 0,
                                   "scheduling_strategy": "SPREAD"}
        if "memory" in need:
            options["memory"] = need["memory"]
        custom = {k: v for k, v in need.items() if k not in ("CPU", "GPU", "memory")}
        if custom:
            options["resources"] = custom
        actor_class = ray.remote(BackendWorker).options(**options)
        self.slots = [Slot(actor_class.remote(spec, args), k + 1) for k in range(count)]
        self.joining: dict[Any, Slot] = {_ping(s): s for s in self.slots}
        self.identity: dict[str, Any] = {}
        self.needs_text = resources.text(gpus)
        self.redispatched = 0
        """Batches dispatched again because their actor died."""
        self.shipped = 0
        """Image bytes sent to actors on other nodes."""
        self.interrupted = False
        """A run stopped before all its batches came back."""
        try:
            self._first()
        except BaseException:  # a refusal, a disagreement, Ctrl-C: end the actors first
            self.close()
            raise
        self.log(f"Ray: {count} actor{'s' if count != 1 else ''} of {spec} "
                 f"({self.needs_text} each).")

    # -- joining ---------------------------------------------------------------------------
    def _first(self) -> None:
        """Wait until one actor answers; its identity is the backend's."""
        waited = 0.0
        while not self.identity:
            ready, _ = self.ray.wait(list(self.joining), num_returns=1, timeout=NOTICE_SECONDS)
            if not ready:
                waited += NOTICE_SECONDS
                self._stalled(waited, "started")
                continue
            self._joined(ready[0])

    def _joined(self, ref: Any) -> None:
        """An identity call came back: the actor works (or is dead for good)."""
        slot = self.joining.pop(ref)
        try:
            found = self.ray.get(ref)
        except self._lost_types() as exc:
            slot.dead = True
            self.log(f"Ray: actor {slot.number} of {self.spec} is gone ({_short(exc)}).")
            if all(s.dead for s in self.slots):
                raise WhatifError(
                    f"Every Ray actor of {self.spec} died ({_short(exc)}); check the workers' "
                    "logs (ray logs / the Ray dashboard) and the resources they need."
                ) from None
            return
        if found.get("refusal"):
            raise WhatifError(str(found["refusal"]))
        if found["whatifbench"] != __version__:
            raise WhatifError(
                f"A Ray worker has whatifbench {found['whatifbench']} and this driver "
                f"{__version__}; install the same version on every node."
            )
        mine = {k: found[k] for k in ("describe", "cache_identity", "capabilities",
                                      "execution_args", "ablation_refusals", "model_type",
                                      "text_model_type")}
        if not self.identity:
            self.identity = mine
        elif mine != self.identity:
            raise WhatifError(
                f"The Ray actors of {self.spec} disagree on what the model is ({mine['describe']} "
                f"versus {self.identity['describe']}): install the same model files and library "
                "versions on every node."
            )
        slot.node, slot.pid, slot.alive = str(found["node"]), int(found["pid"]), True

    def _lost_types(self) -> tuple[type[BaseException], ...]:
        exceptions = self.ray.exceptions
        return tuple(getattr(exceptions, name) for name in LOST if hasattr(exceptions, name))

    def _lose(self, slot: Slot, exc: BaseException) -> None:
        """An actor failed: it leaves the pool until it answers again (Ray restarts it)."""
        if slot.alive:
            self.log(f"Ray: actor {slot.number} of {self.spec} (pid {slot.pid}) failed "
                     f"({_short(exc)}); its batches go to the other actors.")
        slot.alive = False
        slot.sent.clear()
        if not any(s is slot for s in self.joining.values()):
            self.joining[_ping(slot)] = slot

    def _stalled(self, waited: float, what: str) -> None:
        if waited >= STALL_SECONDS:
            raise WhatifError(
                f"No Ray actor of {self.spec} has {what} for {waited:.0f} s; the cluster may "
                f"lack the resources each actor needs ({self.needs_text}). Check 'ray status'."
            )
        self.log(f"Ray: waiting for an actor of {self.spec} ({waited:.0f} s; each needs "
                 f"{self.needs_text}; see 'ray status').")

    # -- dispatch --------------------------------------------------------------------------
    def run(self, mode: str, requests: Sequence[Request],
            prepared: tuple[int, list[Any]] | None) -> Iterator[tuple[int, Response]]:
        """Yield ``(index, response)`` for every request, batch by batch as they finish."""
        if not requests:
            return
        if self.joining:  # actors that came up since the last call work from the start
            ready, _ = self.ray.wait(list(self.joining), num_returns=len(self.joining),
                                     timeout=0)
            for ref in ready:
                self._joined(ref)
        queue = deque(Job(ix) for ix in plan_batches(requests, max(1, len(self.slots))))
        waiting: dict[Any, tuple[Slot, Job]] = {}
        remaining = len(queue)
        idle_since = time.monotonic()
        try:
            while remaining:
                self._dispatch(queue, waiting, mode, requests, prepared)
                refs = [*waiting, *self.joining]
                if not refs:
                    raise WhatifError(f"Every Ray actor of {self.spec} died; see the messages "
                                      "above.")
                ready, _ = self.ray.wait(refs, num_returns=1, timeout=NOTICE_SECONDS)
                if not ready:
                    if not any(s.alive for s in self.slots):
                        self._stalled(time.monotonic() - idle_since, "been able to work")
                    continue
                idle_since = time.monotonic()
                for ref in ready:
                    if ref in self.joining:
                        self._joined(ref)
                        continue
                    slot, job = waiting.pop(ref)
                    slot.busy -= 1
                    answered = self._collect(ref, slot, job, queue)
                    if answered is not None:
                        remaining -= 1
                        yield from answered
        finally:
            if waiting:  # stopped early (an error, Ctrl-C): those batches are abandoned
                self.interrupted = True
                for slot, _job in waiting.values():
                    slot.busy -= 1

    def _collect(self, ref: Any, slot: Slot, job: Job,
                 queue: deque[Job]) -> list[tuple[int, Response]] | None:
        """A batch's responses (by request index), or ``None`` when it went back to the
        queue."""
        try:
            outcome = self.ray.get(ref)
        except self._lost_types() as exc:
            self._lose(slot, exc)
            job.lost += 1
            self.redispatched += 1
            if job.lost < MAX_ATTEMPTS:
                queue.appendleft(job)
                return None
            why = (f"the Ray worker answering this request died {job.lost} times "
                   f"({_short(exc)})")
            return [(i, Response(error=why)) for i in job.indices]
        if isinstance(outcome, Refused):
            raise WhatifError(outcome.message)
        if isinstance(outcome, Missing):
            slot.sent.difference_update(outcome.names)
            job.resend = True
            queue.appendleft(job)
            return None
        assert isinstance(outcome, Answered)
        return [(job.indices[j], response) for j, response in outcome.results]

    def _dispatch(self, queue: deque[Job], waiting: dict[Any, tuple[Slot, Job]], mode: str,
                  requests: Sequence[Request], prepared: tuple[int, list[Any]] | None) -> None:
        """Give queued batches to the least busy alive actors."""
        while queue:
            free = [s for s in self.slots if s.alive and s.busy < IN_FLIGHT]
            if not free:
                return
            slot = min(free, key=lambda s: (s.busy, s.number))
            job = queue.popleft()
            batch = self._batch(slot, job, mode, [requests[i] for i in job.indices], prepared)
            waiting[slot.handle.run.remote(batch)] = (slot, job)
            slot.busy += 1

    def _batch(self, slot: Slot, job: Job, mode: str, chosen: list[Request],
               prepared: tuple[int, list[Any]] | None) -> Batch:
        """The batch as this actor gets it: paths on the driver's node, bytes elsewhere."""
        if slot.node == self.session.node_id and not self.session.client:
            absolute = {p: os.path.abspath(p) for r in chosen for p in r.images}
            shipped = tuple(map_images(r, absolute) if r.images else r for r in chosen)
            return Batch(mode, shipped, {}, prepared)
        if job.resend:
            slot.sent.clear()
            job.resend = False
        shipped, images = ship(chosen, self.hasher, slot.sent)
        self.shipped += sum(len(data) for data in images.values())
        return Batch(mode, shipped, images, prepared)

    def explain(self, mode: str) -> str | None:
        """An actor's backend's message when it cannot work in ``mode`` at all."""
        slot = next((s for s in self.slots if s.alive), self.slots[0])
        message: str | None = self.ray.get(slot.handle.explain.remote(mode))
        return message

    def inapplicable(self, suite: str, generator: str | None) -> str | None:
        """An actor's backend's reason for not answering items of ``suite`` (``None``: it
        can; see ``Backend.inapplicable``)."""
        slot = next((s for s in self.slots if s.alive), self.slots[0])
        reason: str | None = self.ray.get(slot.handle.inapplicable.remote(suite, generator))
        return reason

    def close(self) -> None:
        """Release the backends and end the actors (they free their resources). After a run
        that stopped early the actors are ended at once, without waiting for their batches."""
        closing = [] if self.interrupted else [s.handle.close.remote() for s in self.slots
                                               if s.alive]
        if closing:
            self.ray.wait(closing, num_returns=len(closing), timeout=10)
        for slot in self.slots:
            self.ray.kill(slot.handle, no_restart=True)


def _ping(slot: Slot) -> Any:
    """Ask an actor who it is; Ray retries the call until the actor is up or dead for good."""
    return slot.handle.identity.options(max_task_retries=-1).remote()


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:160]}"


def _node_text(node: dict[str, float]) -> str:
    """A node's resources as ``--ray-actor-resources`` would name them."""
    shown = {k: v for k, v in node.items()
             if not k.startswith("node:") and k != "object_store_memory"}
    return ", ".join(f"{k}={v / 2**30:.1f}G" if k == "memory" else f"{k}={v:g}"
                     for k, v in sorted(shown.items()))
