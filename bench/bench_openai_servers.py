"""Throughput of the openai: backend over two servers against one (fixed latency per call).

Starts fake OpenAI-compatible servers (tests/fake_openai_server.py) that answer after a fixed
latency and sends N chat requests through ``OpenAIBackend.generate`` with ``max_connections=C``
per server:

1. one server (the baseline, measured in the same run),
2. two servers (``base_url`` given twice): target >= 1.8x the requests per second of one,
3. two servers of which one fails every call (HTTP 500): the healthy one should keep close to
   the single-server throughput (the failing one is backed off, calls retried at once on the
   healthy one).
4. two servers of which one drips every reply a byte at a time (``--drip`` seconds a byte,
   within the timeout): with hedging (a call far slower than the fleet's usual one is sent to
   the other server too) against the same fleet with hedging turned off (the behaviour before
   it, measured in the same run); both compared with the healthy server alone.

Each setting is timed in ``--rounds`` interleaved rounds and represented by its fastest round.
Run: PYTHONPATH=src python bench/bench_openai_servers.py [--requests N] [--connections C]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=320)
    parser.add_argument("--connections", type=int, default=8, help="per server")
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--drip", type=float, default=0.05, help="seconds per byte")
    opts = parser.parse_args()

    from fake_openai_server import FakeOpenAIServer

    from whatifbench.core.requests import Part, Request, Turn
    from whatifbench.models.openai_compat.backend import OpenAIBackend
    from whatifbench.models.openai_compat.balancer import Balancer

    requests = [Request(f"q{i}", (Turn("user", (Part(text=f"Question {i}: how many?"),)),))
                for i in range(opts.requests)]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        servers = [FakeOpenAIServer(Path(tmp) / f"s{k}", {"latency": opts.latency})
                   for k in range(2)]
        failing = FakeOpenAIServer(Path(tmp) / "bad", {"latency": opts.latency,
                                                       "cycle": ["500"]})
        dripping = FakeOpenAIServer(Path(tmp) / "drip", {"latency": opts.latency,
                                                         "cycle": ["drip"], "drip": opts.drip})
        settings = {"one server": [servers[0].url],
                    "two servers": [s.url for s in servers],
                    "one of two failing": [failing.url, servers[0].url],
                    "one of two dripping": [dripping.url, servers[0].url],
                    "dripping, no hedging": [dripping.url, servers[0].url]}
        hedge_after = Balancer.hedge_after
        best = dict.fromkeys(settings, float("inf"))
        errors = dict.fromkeys(settings, 0)
        try:
            for _ in range(opts.rounds):
                for name, urls in settings.items():
                    backend = OpenAIBackend("openai:fake-vlm", {
                        "base_url": urls, "max_connections": opts.connections})
                    if name == "dripping, no hedging":
                        Balancer.hedge_after = lambda self: None  # type: ignore[method-assign]
                    start = time.perf_counter()
                    try:
                        done = list(backend.generate(requests))
                    finally:
                        Balancer.hedge_after = hedge_after  # type: ignore[method-assign]
                    best[name] = min(best[name], time.perf_counter() - start)
                    errors[name] += sum(r.error is not None for _, r in done)
        finally:
            for server in (*servers, failing, dripping):
                server.stop()
    ideal = opts.requests / opts.connections * opts.latency
    print(f"{opts.requests} requests, max_connections={opts.connections} per server, latency "
          f"{opts.latency * 1000:.0f} ms (ideal for one server {ideal:.2f} s), best of "
          f"{opts.rounds} rounds:")
    for name in settings:
        print(f"  {name:<20} {best[name]:7.3f} s  {opts.requests / best[name]:8.1f} requests/s"
              f"  errors {errors[name]}")
    ratio = best["one server"] / best["two servers"]
    print(f"two servers / one: {ratio:.2f}x throughput (target >= 1.8: "
          f"{'met' if ratio >= 1.8 else 'MISSED'})")
    kept = best["one server"] / best["one of two failing"]
    print(f"one of two failing / one healthy alone: {kept:.2f}x throughput")
    for name in ("one of two dripping", "dripping, no hedging"):
        print(f"{name} / one healthy alone: {best['one server'] / best[name]:.2f}x throughput")
    print(f"hedging: {best['dripping, no hedging'] / best['one of two dripping']:.1f}x faster "
          "with one server dripping")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
