"""Worker processes for rendering in bulk, started clean rather than forked from the caller.

Forking a process that runs other threads (Ray's, a test runner's, a library's thread pool)
copies into the child any lock one of those threads held at that moment, and a child that
then takes the lock waits forever; its pool then waits for it forever too. Workers therefore
come from a fork server: a single-threaded process, started once per session with the
rendering modules imported, that forks each worker (``spawn`` where there is no fork server).
Workers compute only; what they return does not depend on how they were started.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.pool

from whatifbench.scenes.render import reuse_image_memory


def start_method() -> str:
    """The start method of rendering workers on this platform."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


def process_pool(workers: int, preload: str) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` rendering processes (use it as a context manager); ``preload``
    names the module of the function they will run (the fork server imports it when it starts,
    at the session's first pool; a worker imports what the server lacks itself)."""
    method = start_method()
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload([__name__, preload])
    return context.Pool(workers, initializer=_setup_worker)


def _setup_worker() -> None:
    """Each worker: PIL keeps freed image memory, and what the worker imported is left out of
    garbage collection (full collections would otherwise walk every imported module's objects
    again and again)."""
    reuse_image_memory()
    gc.freeze()
