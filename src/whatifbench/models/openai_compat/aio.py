"""Run many coroutines on a private event loop and yield their results as they complete."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def as_completed(count: int, work: Callable[[int], Coroutine[Any, Any, T]],
                 close: Callable[[], Awaitable[None]]) -> Iterator[tuple[int, T]]:
    """Yield ``(i, result of work(i))`` for ``i < count`` in completion order.

    The loop runs while we wait for the next result; the consumer's own work between results
    (storing a response) is short, and requests in flight keep going on the server meanwhile.
    If a task raises, the results that completed before it are yielded first and its exception
    is raised; then (or when the consumer stops early) the remaining tasks are cancelled and
    ``close`` runs before the loop is closed.
    """
    loop = asyncio.new_event_loop()
    done: asyncio.Queue[tuple[int, T | None, Exception | None]] = asyncio.Queue()

    async def run(i: int) -> None:
        try:
            done.put_nowait((i, await work(i), None))
        except Exception as exc:  # noqa: BLE001  (handed to the consumer, which re-raises it)
            done.put_nowait((i, None, exc))

    tasks = [loop.create_task(run(i)) for i in range(count)]
    try:
        for _ in range(count):
            i, result, error = loop.run_until_complete(done.get())
            if error is not None:
                while not done.empty():
                    j, other, failed = done.get_nowait()
                    if failed is None:
                        yield j, other  # type: ignore[misc]
                raise error
            yield i, result  # type: ignore[misc]
    finally:
        pending = [t for t in tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(close())
        loop.close()
