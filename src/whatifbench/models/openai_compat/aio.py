"""Run many coroutines on a private event loop and yield their results as they complete."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def as_completed(count: int, work: Callable[[int], Coroutine[Any, Any, T]],
                 close: Callable[[], Awaitable[None]]) -> Iterator[tuple[int, T]]:
    """Yield ``(i, result of work(i))`` for ``i < count`` in completion order.

    The loop runs only while we wait for the next result; the consumer's own work between
    results (storing a response) is short. If a task raises, the results completed with it are
    yielded first and its exception is raised; then (or when the consumer stops early) the
    remaining tasks are cancelled and ``close`` runs before the loop is closed.
    """
    loop = asyncio.new_event_loop()
    pending: set[asyncio.Task[T]] = set()
    try:
        index = {}
        for i in range(count):
            task = loop.create_task(work(i))
            index[task] = i
            pending.add(task)
        while pending:
            done, pending = loop.run_until_complete(
                asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED))
            failed = [t for t in done if t.exception() is not None]
            for task in sorted(done, key=lambda t: index[t]):
                if task not in failed:
                    yield index[task], task.result()
            if failed:
                raise min(failed, key=lambda t: index[t]).exception()  # type: ignore[misc]
    finally:
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(close())
        loop.close()
