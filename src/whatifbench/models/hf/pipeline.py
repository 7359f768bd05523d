"""Prefetching: the work around the model is done while the model runs.

A batch goes through two stages: ``prepare`` (images read and processed, text tokenized: CPU
work) and ``run`` (the forward passes, the replies read back). ``pipelined`` prepares the next
batches in a background thread, at most ``depth`` ahead (a bounded queue), while the calling
thread runs the model on the current one, so that when the accelerator finishes batch k the
inputs of batch k+1 are ready. Batch k's responses are handed out once batch k+1 is prepared
(or nothing is left to prepare): the caller stores them while batch k+1 runs next, and the
order of events is fixed (``tests/test_hf_pipeline.py`` checks it).

The model always runs in the calling thread (compiled graphs and CUDA graphs are kept per
thread). The two stages share the processor: only the preparing thread encodes with it, while
the model's thread only decodes replies and reads token ids (a fast tokenizer allows read-only
use from several threads, but an encoding that changes its padding settings while another
thread is inside it fails with "Already borrowed": keep encoding in ``prepare``). An error
while preparing a batch is raised where that batch would run, after the earlier batches'
responses, exactly as without prefetching. The thread stops, and is joined, when the
iteration ends, fails, is interrupted (Ctrl-C) or is closed (``close()`` on the generator).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar

Job = TypeVar("Job")
Ready = TypeVar("Ready")
Out = TypeVar("Out")

THREAD_NAME = "whatif-hf-prefetch"
"""The name of the preparing thread (tests look for it after a pipeline ends)."""
POLL = 0.05
"""Seconds between checks of the stop flag while the queue is full or empty."""


class _Outcome(Generic[Ready]):
    """A prepared batch, or the exception its preparation raised."""

    __slots__ = ("error", "value")

    def __init__(self, value: Ready | None, error: BaseException | None) -> None:
        self.value = value
        self.error = error

    def get(self) -> Ready:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


class _Prefetcher(Generic[Job, Ready]):
    """The background thread preparing ``jobs`` in order into a bounded queue."""

    def __init__(self, jobs: Sequence[Job], prepare: Callable[[Job], Ready], depth: int) -> None:
        self.jobs = jobs
        self.prepare = prepare
        self.queue: queue.Queue[_Outcome[Ready]] = queue.Queue(maxsize=depth)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._work, name=THREAD_NAME, daemon=True)

    def _work(self) -> None:
        for job in self.jobs:
            if self.stop.is_set():
                return
            try:
                outcome: _Outcome[Ready] = _Outcome(self.prepare(job), None)
            except BaseException as exc:  # noqa: BLE001  (handed to the model's thread)
                outcome = _Outcome(None, exc)
            while not self.stop.is_set():
                try:
                    self.queue.put(outcome, timeout=POLL)
                    break
                except queue.Full:
                    continue
            if outcome.error is not None:
                return  # nothing after a failed batch is needed

    def next(self) -> _Outcome[Ready]:
        """The next prepared batch (waits for it)."""
        while True:
            try:
                return self.queue.get(timeout=POLL)
            except queue.Empty:
                if not self.thread.is_alive() and self.queue.empty():
                    raise RuntimeError("the prefetching thread ended without preparing every "
                                       "batch") from None

    def close(self) -> None:
        """Stop preparing, free what was prepared, and wait for the thread to end."""
        self.stop.set()
        while True:
            try:
                self.queue.get_nowait()
            except queue.Empty:
                break
        if self.thread.is_alive():
            self.thread.join()


def pipelined(jobs: Sequence[Job], prepare: Callable[[Job], Ready],
              run: Callable[[Job, Ready], Iterable[Out]], depth: int) -> Iterator[Out]:
    """``run(job, prepare(job))`` for every job in order, yielding what each run gives.

    ``depth`` > 0: ``prepare`` runs in a background thread up to ``depth`` jobs ahead, and a
    job's outputs are yielded after the next job is prepared. ``depth`` 0: everything in the
    calling thread, one job after the other (prepare, run, yield).
    """
    if depth <= 0 or len(jobs) <= 1:
        for job in jobs:
            yield from list(run(job, prepare(job)))
        return
    fetcher: _Prefetcher[Job, Ready] = _Prefetcher(jobs, prepare, depth)
    fetcher.thread.start()
    try:
        ahead = fetcher.next()
        for k, job in enumerate(jobs):
            outputs = list(run(job, ahead.get()))
            if k + 1 < len(jobs):
                ahead = fetcher.next()  # batch k+1 is ready before batch k is handed out
            yield from outputs
    finally:
        fetcher.close()
