"""Throughput of the openai: backend against a local server that answers in a fixed time.

Starts the fake OpenAI server (tests/fake_openai_server.py) with a fixed latency, then sends
N chat requests with an image through ``OpenAIBackend.generate`` at ``max_connections=C``.
The ideal time is ceil(N / C) x latency (2.0 s for the defaults: 160 requests, 16 connections,
200 ms); the script prints the measured time and its ratio to the ideal (target <= 1.25), and,
as a baseline measured in the same run, the time of one request on its own.
Run: PYTHONPATH=src python bench/bench_openai_concurrency.py [--requests N] [--connections C]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=160)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.2)
    opts = parser.parse_args()

    from fake_openai_model import png
    from fake_openai_server import FakeOpenAIServer

    from whatifbench.core.requests import Part, Request, Turn
    from whatifbench.models.openai_compat.backend import OpenAIBackend

    with tempfile.TemporaryDirectory() as tmp:
        image = Path(tmp) / "image.png"
        image.write_bytes(png("bench", (64, 64)))
        requests = [Request(f"q{i}", (Turn("user", (Part(image=str(image)),
                                                    Part(text=f"Question {i}: how many?"))),))
                    for i in range(opts.requests)]
        with FakeOpenAIServer(Path(tmp) / "server", {"latency": opts.latency}) as server:
            backend = OpenAIBackend("openai:fake-vlm", {"base_url": server.url,
                                                        "max_connections": opts.connections})
            start = time.perf_counter()
            assert len(list(backend.generate(requests[:1]))) == 1
            single = time.perf_counter() - start
            start = time.perf_counter()
            done = list(backend.generate(requests))
            elapsed = time.perf_counter() - start
    errors = sum(r.error is not None for _, r in done)
    ideal = math.ceil(opts.requests / opts.connections) * opts.latency
    ratio = elapsed / ideal
    print(f"{opts.requests} requests, max_connections={opts.connections}, server latency "
          f"{opts.latency * 1000:.0f} ms: {len(done)} answered, {errors} errors")
    print(f"one request alone (baseline): {single:.3f} s")
    print(f"all requests: {elapsed:.3f} s; ideal {ideal:.2f} s; ratio {ratio:.3f} "
          f"(target <= 1.25: {'met' if ratio <= 1.25 else 'MISSED'}); "
          f"{elapsed / (math.ceil(opts.requests / opts.connections) * single):.3f} x the "
          "baseline-predicted time")


if __name__ == "__main__":
    main()
