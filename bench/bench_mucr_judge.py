"""Cost of grading MuCR Exp with the offline embedding judge, and of grading it again.

Grades N Exp answers (default 400, the release's size: up to 3 explanation parts each) with
``embedding:all-MiniLM-L6-v2`` through a fresh run store, then grades the same answers again
(every judge call served by the store). Prints the time of each pass (the first includes loading
the model) and the ratio of the repeat to the first pass.

    PYTHONPATH=src python bench/bench_mucr_judge.py [N]
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from whatifbench.core.item import Item
from whatifbench.core.requests import Request, Response
from whatifbench.core.suite import Sample
from whatifbench.models.base import Backend
from whatifbench.runner.cached import generate_cached
from whatifbench.runner.judge import JudgeRuntime
from whatifbench.runner.store import RunStore
from whatifbench.suites.mucr.judging import grade

WORDS = ("man woman dog cat plant rain cloud ice cream street window lamp child ball tree "
         "storm sun water glass table wet dry falls breaks melts grows runs sleeps").split()


def sentence(rng: random.Random) -> str:
    """A random sentence of 8-16 words."""
    return " ".join(rng.choice(WORDS) for _ in range(rng.randrange(8, 17))).capitalize() + "."


def workload(n: int, seed: int = 0) -> tuple[list[Item], list[Sample]]:
    """``n`` Exp items with three references and a three-part reply each."""
    rng = random.Random(seed)
    items, samples = [], []
    for k in range(n):
        refs = [[sentence(rng)] for _ in range(3)]
        reply = "\n".join(f"{j}. {sentence(rng)}" for j in range(1, 4))
        items.append(Item(f"{k}-exp", ("a.png", "b.png"), "q", "text", "t", pair_id=str(k),
                          role="exp", group="exp", meta={"references": refs}))
        samples.append(Sample(f"{k}-exp", str(k), "exp", "exp", "q", "q", "t", reply, None,
                              reply, False, False, None, None))
    return items, samples


def timed_grade(items: list[Item], samples: list[Sample], store: RunStore) -> tuple[float, int]:
    """Seconds to grade, and judge calls computed (not served by the store)."""
    computed = 0

    def fetch(backend: Backend, mode: str, requests: Sequence[Request]) -> list[Response]:
        nonlocal computed
        got = generate_cached(backend, requests, store, mode=mode)
        computed += got.computed
        return list(got.responses)

    start = time.perf_counter()
    judge = JudgeRuntime("embedding:all-MiniLM-L6-v2", {}, fetch)
    graded = grade(samples, items, judge)
    assert all(s.score is not None for s in graded)
    return time.perf_counter() - start, computed


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    items, samples = workload(n)
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "store.sqlite")
        first, calls = timed_grade(items, samples, store)
        again, repeat_calls = timed_grade(items, samples, store)
        store.close()
    print(f"Exp answers: {n}; judge calls: {calls} computed, then {repeat_calls} on repeat")
    print(f"first pass (model load + {calls} similarity calls): {first:.2f} s")
    print(f"repeat (all from the run store):                  {again:.2f} s")
    print(f"ratio repeat / first: {again / first:.3f}")


if __name__ == "__main__":
    main()
