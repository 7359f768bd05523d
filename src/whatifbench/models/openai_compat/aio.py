"""Run many coroutines on a private event loop and yield their results as they complete."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

# anyio (4.x) wraps each task it spawns in a coroutine of its own; when the task is cancelled
# before its first step, the wrapped coroutine is dropped without being closed. Stopping a run
# whose server cannot be reached cancels connections being opened (httpx → anyio's
# happy-eyeballs ``connect_tcp``), so Python would warn, at exit, about a connection attempt
# that never started. Nothing was lost; the warning is only noise, silenced for that coroutine.
warnings.filterwarnings("ignore", message=r"coroutine 'connect_tcp\.<locals>\.try_connect' "
                        "was never awaited", category=RuntimeWarning)


def as_completed(count: int, work: Callable[[int], Coroutine[Any, Any, T]],
                 close: Callable[[], Awaitable[None]]) -> Iterator[tuple[int, T]]:
    """Yield ``(i, result of work(i))`` for ``i < count`` in completion order.

    The loop runs while we wait for the next result; the consumer's own work between results
    (storing a response) is short, and requests in flight keep going on the server meanwhile.
    If a task raises, the results that completed before it are yielded first and its exception
    is raised; then (or when the consumer stops early, or on Ctrl-C) every task still on the
    loop is cancelled and awaited, ``close`` runs, and only then is the loop closed, so nothing
    is left to complain about a closed loop at exit.
    """
    loop = asyncio.new_event_loop()
    done: asyncio.Queue[tuple[int, T | None, Exception | None]] = asyncio.Queue()

    async def run(i: int) -> None:
        try:
            done.put_nowait((i, await work(i), None))
        except Exception as exc:  # noqa: BLE001  (handed to the consumer, which re-raises it)
            done.put_nowait((i, None, exc))

    tasks = [loop.create_task(run(i)) for i in range(count)]
    waiting: list[asyncio.Task[Any]] = []
    try:
        for _ in range(count):
            # A task of its own (not a bare coroutine), so that an interruption while we wait
            # leaves a task the clean-up below cancels rather than a coroutine nobody closes.
            waiting[:] = [loop.create_task(done.get())]
            i, result, error = loop.run_until_complete(waiting[0])
            if error is not None:
                while not done.empty():
                    j, other, failed = done.get_nowait()
                    if failed is None:
                        yield j, other  # type: ignore[misc]
                raise error
            yield i, result
    finally:
        shutdown(loop, [*tasks, *waiting], close)


def shutdown(loop: asyncio.AbstractEventLoop, tasks: list[asyncio.Task[Any]],
             close: Callable[[], Awaitable[None]]) -> None:
    """Cancel and await every task left on ``loop``, run ``close``, then close the loop.

    Exceptions of finished ``tasks`` are collected (an interrupted task holds the
    ``KeyboardInterrupt``), so none is reported as "never retrieved"; a second Ctrl-C during the
    clean-up still closes the loop before it propagates."""
    try:
        pending = {t for t in (*tasks, *asyncio.all_tasks(loop)) if not t.done()}
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        for task in tasks:
            if not task.cancelled():
                task.exception()
        loop.run_until_complete(close())
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()
