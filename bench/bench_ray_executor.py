"""Speed of ``--executor ray`` against the local executor: scene-reader on a 6,000-item suite.

Generates (or reuses, ``--suite DIR``) a C-VQA-Synthetic suite of ``6 x 2 x per_template`` items
and answers it with ``builtin:scene-reader`` (CPU-bound: it perceives every image), each time
into a fresh run store:

1. the local executor (the baseline),
2. ``--executor ray`` with one actor (its overhead: shipping requests, batches, the store
   write-back; target <= 1.15x the local time),
3. ``--executor ray`` with two actors (target: >= 1.6x faster than local on 2 cores).

One local Ray (``--cpus`` CPUs, no dashboard) is started first and its start-up time printed
apart; the Ray times include starting the actors. The three outputs must be identical (the
script checks the samples). The load average is printed before and after: on a shared machine
the ratios are only meaningful when nothing else runs.
Run: PYTHONPATH=src python bench/bench_ray_executor.py [--per-template 500] [--suite DIR]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any


def timed_run(dataset: Any, store_path: Path, executor: Any) -> tuple[float, float, Any]:
    """(seconds to the first actor's answer, seconds for the whole evaluation, result)."""
    from whatifbench.core.protocol import Protocol
    from whatifbench.runner.backends import make_backend
    from whatifbench.runner.evaluate import RunOptions, evaluate
    from whatifbench.runner.store import RunStore

    store = RunStore(store_path)
    start = time.perf_counter()
    backend = (executor.make_backend("builtin:scene-reader", {}) if executor is not None
               else make_backend("builtin:scene-reader", {}))
    ready = time.perf_counter() - start
    try:
        result = evaluate(dataset, backend, Protocol(), store, RunOptions(progress=False))
    finally:
        backend.close()
        store.close()
    return ready, time.perf_counter() - start, result


def _samples(path: Path) -> list[Any]:
    """The samples of a run folder without the random ``run_id`` each output folder gets."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [{k: v for k, v in line.items() if k != "run_id"} for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=500,
                        help="images per template (500: 6,000 items)")
    parser.add_argument("--suite", type=Path, help="reuse this suite folder (made once)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray")
    opts = parser.parse_args()

    import ray

    from whatifbench.core.dataset import load_dataset
    from whatifbench.report.render import write_outputs
    from whatifbench.runner.executors.config import ExecutorConfig
    from whatifbench.runner.executors.local import open_executor
    from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        folder = opts.suite or Path(tmp) / "suite"
        if not (folder / "items.jsonl").is_file():
            start = time.perf_counter()
            CvqaSyntheticGenerator.generate(folder, per_template=opts.per_template, seed=0)
            print(f"generated {folder} in {time.perf_counter() - start:.1f} s")
        dataset = load_dataset(folder)
        n = len(dataset.items)

        start = time.perf_counter()
        ray.init(address="local", num_cpus=opts.cpus, include_dashboard=False,
                 logging_level=logging.WARNING)
        print(f"local Ray with {opts.cpus} CPUs started in {time.perf_counter() - start:.1f} s "
              "(not counted below)")
        rows = []
        try:
            _, local, base = timed_run(dataset, Path(tmp) / "local.sqlite", None)
            rows.append(("local executor", 0.0, local, base))
            for actors in (1, 2):
                with open_executor(ExecutorConfig(kind="ray", actors=actors)) as executor:
                    ready, seconds, result = timed_run(
                        dataset, Path(tmp) / f"ray{actors}.sqlite", executor)
                rows.append((f"ray, {actors} actor{'s' if actors > 1 else ''}", ready, seconds,
                             result))
        finally:
            ray.shutdown()
        samples = [_samples(write_outputs(Path(tmp) / f"out{k}", [r[3]])["samples.jsonl"])
                   for k, r in enumerate(rows)]
        same = all(s == samples[0] for s in samples)

    print(f"\nbuiltin:scene-reader on {n} items (cvqa-synthetic):")
    print(f"{'executor':<18} {'actors up (s)':>13} {'total (s)':>10} {'ms/item':>8}")
    for name, ready, seconds, _ in rows:
        print(f"{name:<18} {ready:>13.1f} {seconds:>10.1f} {1000 * seconds / n:>8.2f}")
    local, one, two = (r[2] for r in rows)
    overhead = one / local
    speedup = local / two
    print(f"\n1 actor / local: {overhead:.3f} (target <= 1.15: "
          f"{'met' if overhead <= 1.15 else 'MISSED'}); per-item overhead "
          f"{1000 * (one - local) / n:+.2f} ms ({1000 * (one - rows[1][1] - local) / n:+.2f} ms "
          "without the actor start)")
    print(f"local / 2 actors: {speedup:.2f}x (target >= 1.6: "
          f"{'met' if speedup >= 1.6 else 'MISSED'})")
    print(f"samples identical across the three runs: {same}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
