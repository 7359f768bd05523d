"""Rendering workers are started clean, so a lock another thread holds cannot stall them.

The generators' worker pools once forked the caller: in a process that runs other threads
(late in a test session there are about twenty), a worker could inherit a lock held at the
moment of the fork and wait for it forever, and so did its pool (CI timed out twice so).
"""

from __future__ import annotations

import os
import threading

from whatifbench.scenes.pool import process_pool, start_method

HELD = threading.Lock()
"""Held by a thread of the test while the pool starts: a forked worker would inherit it held."""


def takes_the_lock(n: int) -> tuple[int, int]:
    """In a worker: take and give back ``HELD``; the worker's process id and ``n``."""
    with HELD:
        return os.getpid(), n


def test_a_lock_held_by_another_thread_does_not_stall_the_workers() -> None:
    release = threading.Event()
    taken = threading.Event()

    def hold() -> None:
        with HELD:
            taken.set()
            release.wait(60)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    taken.wait(10)
    try:
        with process_pool(2, __name__) as pool:
            answer = pool.map_async(takes_the_lock, range(8), chunksize=1)
            results = answer.get(timeout=30)  # a forked worker would wait for HELD forever
    finally:
        release.set()
        holder.join()
    assert [n for _, n in results] == list(range(8))
    assert os.getpid() not in {pid for pid, _ in results}


def test_workers_come_from_a_fork_server_on_linux() -> None:
    assert start_method() == ("forkserver" if os.name == "posix" else "spawn")
