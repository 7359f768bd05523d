"""Hedged calls over a fleet of servers: a call that has taken far longer than the fleet's usual
call (``Balancer.hedge_after``) is sent to another server as well, and the first answer wins.

A server that drips its reply a byte at a time, or is just much slower than its peers, thus
holds an item for a few seconds instead of up to the whole timeout. The call left behind is
cancelled; when it was the first one, its server counts a failure and rests (the balancer's
backoff), so the next calls go elsewhere. Each call is hedged at most once, and only while
another server can take it; with a single server nothing changes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from whatifbench.models.openai_compat.balancer import Balancer, Server

POLL = 0.25
"""Seconds between looks at a call while the fleet has no usual duration yet."""


@dataclass
class Track:
    """Where one line of attempts of a call stands (updated by the client as it goes)."""

    avoid: Server | None = None
    """A server its attempts should not go to (the one the first line is waiting on)."""
    server: Server | None = None
    """The server of the attempt in progress (or of the last one)."""
    started: float = 0.0
    """``time.monotonic()`` when that attempt started."""
    attempts: int = 0
    """Attempts made so far."""
    begun: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the first attempt starts (a call queued for a connection is never hedged)."""

    def begin(self, server: Server) -> None:
        """An attempt starts on ``server``."""
        self.server, self.started = server, time.monotonic()
        self.attempts += 1
        self.begun.set()


Attempts = Callable[[Track], Awaitable[tuple[Any, int]]]
"""The client's retrying call for one request, reporting its progress in a ``Track``."""


async def hedged(call: Attempts, balancer: Balancer,
                 item_error: type[Exception]) -> tuple[Any, int]:
    """``call``'s value and the attempts made (both lines counted when it was hedged).
    ``item_error`` is the exception of a call that failed for good: when one line raises it,
    the other still may answer; any other exception stops at once."""
    first_track = Track()
    first = asyncio.ensure_future(call(first_track))
    try:
        while not await _finished(first, first_track, balancer):
            due = balancer.hedge_after()
            if (due is not None and first_track.attempts
                    and time.monotonic() - first_track.started >= due
                    and balancer.other_open(first_track.server)):
                return await _race(call, first, first_track, balancer, item_error)
        return first.result()
    finally:
        await _cancel(first)


async def _finished(task: asyncio.Future[Any], track: Track, balancer: Balancer) -> bool:
    """Wait until ``task`` is done (True) or its attempt may be due for a hedge (False); a call
    still queued for a connection is waited for without polling."""
    if not track.attempts:
        begun = asyncio.ensure_future(track.begun.wait())
        try:
            await asyncio.wait({task, begun}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await _cancel(begun)
        return task.done()
    due = balancer.hedge_after()
    wait = POLL if due is None else max(0.01, track.started + due - time.monotonic())
    done, _ = await asyncio.wait({task}, timeout=wait)
    return bool(done)


async def _race(call: Attempts, first: asyncio.Future[Any], first_track: Track,
                balancer: Balancer, item_error: type[Exception]) -> tuple[Any, int]:
    """Run a second line of attempts beside ``first``; the first to answer wins."""
    second_track = Track(avoid=first_track.server)
    second = asyncio.ensure_future(call(second_track))
    pending: set[asyncio.Future[Any]] = {first, second}
    failure: BaseException | None = None
    try:
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=lambda t: t is second):  # the first line's error first
                error = task.exception()
                if error is None:
                    value, _ = task.result()
                    slow = first_track.server if task is second and first in pending else None
                    for other in pending:
                        await _cancel(other)
                    if slow is not None:
                        balancer.count_failure(slow)
                    return value, first_track.attempts + second_track.attempts
                if not isinstance(error, item_error):
                    raise error  # the run stops (bad key, unreachable fleet): not an item error
                failure = failure or error
        assert failure is not None
        raise failure
    finally:
        for task in (first, second):
            await _cancel(task)


async def _cancel(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` (if still running) and wait until its connection is given back."""
    if not task.done():
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
