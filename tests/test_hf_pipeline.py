"""Prefetching in the hf: backend (``models.hf.pipeline``): batch k+1 is prepared while batch k
runs and before its responses are handed out, the responses are those of the serial path, an
error reaches the batch it belongs to, and no thread outlives the iteration."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset

from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Request
from whatifbench.errors import WhatifError
from whatifbench.models.hf import generation, ranking
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.hf.pipeline import THREAD_NAME, pipelined
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder

WAIT = 30.0
"""Seconds a forward pass waits for the next batch's preparation to start (it starts at once
when prefetching works; the wait only bounds a failure)."""


def prefetch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD_NAME]


@pytest.fixture(autouse=True)
def no_thread_left() -> Iterator[None]:
    yield
    assert not prefetch_threads(), "a prefetching thread outlived its pipeline"


# -- the pipeline on its own ---------------------------------------------------------------------
def test_serial_and_prefetched_pipelines_give_the_same_outputs_in_order() -> None:
    jobs = list(range(7))
    for depth in (0, 1, 3):
        out = list(pipelined(jobs, lambda j: j * 10, lambda j, ready: [(j, ready), (j, -1)],
                             depth))
        assert out == [x for j in jobs for x in ((j, j * 10), (j, -1))]


def test_a_failed_preparation_is_raised_where_its_batch_runs() -> None:
    def prepare(job: int) -> int:
        if job == 2:
            raise WhatifError("image 2 is unreadable")
        return job

    for depth in (0, 2):
        got: list[int] = []
        with pytest.raises(WhatifError, match="image 2"):
            for x in pipelined(list(range(5)), prepare, lambda j, ready: [ready], depth):
                got.append(x)
        assert got == [0, 1]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_an_error_or_interrupt_in_the_model_stops_the_thread(error: type[BaseException]) -> None:
    prepared: list[int] = []

    def run(job: int, ready: int) -> list[int]:
        if job == 1:
            raise error("stop")
        return [ready]

    stream = pipelined(list(range(50)), lambda j: prepared.append(j) or j, run, 2)
    with pytest.raises(error):
        list(stream)
    assert len(prepared) < 50, "preparation went on after the run failed"


def test_closing_an_unfinished_pipeline_stops_its_thread() -> None:
    stream = pipelined(list(range(50)), lambda j: time.sleep(0.01) or j,
                       lambda j, ready: [ready], 2)
    assert next(stream) == 0
    assert prefetch_threads()
    stream.close()  # the runner does this on Ctrl-C and when it stops early
    assert not prefetch_threads()


# -- the hf: backend -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def _requests(dataset_dir: Path, mode: str) -> list[Request]:
    dataset = load_dataset(dataset_dir)
    protocol = Protocol(answer_mode=mode).resolved("generate")
    builder = RequestBuilder(get_suite(dataset.suite), protocol, dataset)
    return [dataclasses.replace(builder.build(item), max_new_tokens=6)
            for item in dataset.items]


class Recorder:
    """Spies on the two stages of a backend's pipeline (``prepare``, the forward passes) and on
    the batches it forms; each forward pass waits for the next batch's preparation to start."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, mode: str, overlap: bool) -> None:
        self.events: list[tuple[str, int]] = []
        self.jobs: list[list[int]] = []
        self.started: list[threading.Event] = []
        self.overlapped: list[bool] = []
        self.overlap = overlap
        module = generation if mode == "generate" else ranking
        group = "batches" if mode == "generate" else "rank_batches"
        stages = (("prepare_batch", "generate_batch") if mode == "generate"
                  else ("prepare_scores", "score_batch"))
        make_jobs, prepare, forward = (getattr(module, group), getattr(module, stages[0]),
                                       getattr(module, stages[1]))

        def jobs(*args: Any, **kwargs: Any) -> Iterator[list[int]]:
            self.jobs = [list(m) for m in make_jobs(*args, **kwargs)]
            self.started = [threading.Event() for _ in self.jobs]
            return iter(self.jobs)

        def prepared(*args: Any) -> Any:
            k = sum(e == "prepare-start" for e, _ in self.events)
            self.events.append(("prepare-start", k))
            self.started[k].set()
            out = prepare(*args)
            self.events.append(("prepare-end", k))
            return out

        def forwarded(*args: Any) -> Any:
            k = sum(e == "forward" for e, _ in self.events)
            self.events.append(("forward", k))
            if self.overlap and k + 1 < len(self.jobs):
                self.overlapped.append(self.started[k + 1].wait(WAIT))
            return forward(*args)

        monkeypatch.setattr(module, group, jobs)
        monkeypatch.setattr(module, stages[0], prepared)
        monkeypatch.setattr(module, stages[1], forwarded)

    def consume(self, stream: Iterator[tuple[int, Any]]) -> dict[int, Any]:
        out = {}
        for i, response in stream:  # the batches are formed when the stream starts
            batch = {i: k for k, members in enumerate(self.jobs) for i in members}
            self.events.append(("consume", batch[i]))
            out[i] = response
        return out

    def at(self, event: str, k: int) -> int:
        return self.events.index((event, k))


@pytest.mark.parametrize("mode", ["generate", "rank"])
def test_the_next_batch_is_prepared_while_the_current_one_runs(
        tiny_llava: Path, photos: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    requests = _requests(photos, mode)
    serial = HFBackend(f"hf:{tiny_llava}", {"batch_size": 2, "prefetch": 0})
    ahead = HFBackend(f"hf:{tiny_llava}", {"batch_size": 2})
    ahead._loaded = serial.loaded

    def call(backend: HFBackend) -> Iterator[tuple[int, Any]]:
        return backend.generate(requests) if mode == "generate" else backend.score(requests)

    plain = dict(call(serial))
    spy = Recorder(monkeypatch, mode, overlap=True)
    got = spy.consume(call(ahead))
    batches = len(spy.jobs)
    assert batches >= 3
    assert spy.overlapped == [True] * (batches - 1), \
        "batch k+1 was not being prepared while batch k ran"
    for k in range(batches):
        assert spy.at("prepare-end", k) < spy.at("forward", k)
        if k + 1 < batches:  # ready before batch k's responses are handed out
            assert spy.at("prepare-end", k + 1) < spy.at("consume", k)
            assert spy.at("consume", k) < spy.at("forward", k + 1)
    # The same responses as preparing each batch just before it runs.
    assert sorted(got) == sorted(plain) == list(range(len(requests)))
    for i, response in plain.items():
        assert (got[i].text, got[i].scores, got[i].meta) == (response.text, response.scores,
                                                              response.meta)


def test_without_prefetching_each_batch_is_prepared_after_the_last_one_is_handed_out(
        tiny_llava: Path, photos: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = HFBackend(f"hf:{tiny_llava}", {"batch_size": 3, "prefetch": 0})
    spy = Recorder(monkeypatch, "generate", overlap=False)
    spy.consume(backend.generate(_requests(photos, "generate")))
    for k in range(len(spy.jobs) - 1):
        assert spy.at("consume", k) < spy.at("prepare-start", k + 1)


def test_a_failed_batch_fails_after_the_batches_before_it(
        tiny_llava: Path, photos: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = HFBackend(f"hf:{tiny_llava}", {"batch_size": 2})
    prepare = generation.prepare_batch
    calls: list[int] = []

    def failing(loaded: Any, prompts: Any) -> Any:
        calls.append(len(prompts))
        if len(calls) == 2:
            raise WhatifError("The processor rejected image 3.")
        return prepare(loaded, prompts)

    monkeypatch.setattr(generation, "prepare_batch", failing)
    got: list[int] = []
    with pytest.raises(WhatifError, match="rejected image 3"):
        for i, _ in backend.generate(_requests(photos, "generate")):
            got.append(i)
    assert len(got) == 2, "the first batch's replies come before the second batch's error"
    assert len(calls) == 2, "nothing is prepared after a failed batch"


def test_closing_the_backend_ends_an_unfinished_generation(tiny_llava: Path,
                                                           photos: Path) -> None:
    # Eight batches of one: the thread cannot finish while the queue (two deep) is full.
    backend = HFBackend(f"hf:{tiny_llava}", {"batch_size": 1})
    stream = backend.generate(_requests(photos, "generate"))
    next(stream)
    assert prefetch_threads()
    backend.close()
    assert not prefetch_threads()
    assert list(stream) == []
