"""Cost of running generated programs in the sandbox, and of 1,000 oracle items end to end.

1. Sandbox overhead per item, worker warm: a trivial program (``return 1``) run through the
   sandbox (send, restricted compile from the worker's cache, run, reply) against the same
   function called directly in this process; also a program making one tool call (one extra
   round trip to the parent). Interleaved rounds, each represented by its fastest round.
   Target: at most 5 ms per item.
2. 1,000 oracle items: a generated C-VQA-Synthetic suite (``--per-template`` images per
   template, two items each) evaluated by ``viper:`` with oracle perception and an in-process
   code LLM that writes the correct program for each template (tests/program_util.py): the
   scene rebuild (``prepare``), the programs (code generation is free here) and the whole
   evaluation, with the accuracy as a check (100 %).

Run: PYTHONPATH=src python bench/bench_program_sandbox.py [--runs N] [--per-template N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

IMAGE = {"ref": 0, "left": 0, "lower": 0, "right": 512, "upper": 512}
TRIVIAL = "def execute_command(image):\n    return 1\n"
ONE_CALL = "def execute_command(image):\n    return len(image.find('dog'))\n"


def load() -> str:
    """The machine's load averages."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def overhead(runs: int, rounds: int) -> None:
    from whatifbench.models.program.sandbox import Limits, Sandbox
    from whatifbench.models.program.viper import RUNTIME

    def tools(name: str, args: list[Any]) -> Any:
        return [{"ref": 1, "left": 1, "lower": 2, "right": 5, "upper": 6}]

    def direct(image: dict[str, Any]) -> int:
        return 1

    best = {"direct": float("inf"), "sandbox": float("inf"), "tool": float("inf")}
    with Sandbox(RUNTIME, Limits()) as box:
        started = time.perf_counter()
        box.run(TRIVIAL, {"image": IMAGE}, tools)
        cold = time.perf_counter() - started
        for _ in range(rounds):
            t = time.perf_counter()
            for _ in range(runs):
                direct(IMAGE)
            best["direct"] = min(best["direct"], (time.perf_counter() - t) / runs)
            t = time.perf_counter()
            for _ in range(runs):
                assert box.run(TRIVIAL, {"image": IMAGE}, tools).ok
            best["sandbox"] = min(best["sandbox"], (time.perf_counter() - t) / runs)
            t = time.perf_counter()
            for _ in range(runs):
                assert box.run(ONE_CALL, {"image": IMAGE}, tools).value == 1
            best["tool"] = min(best["tool"], (time.perf_counter() - t) / runs)
        assert box.spawned == 1
    print("Sandbox overhead per item (worker warm, fastest of "
          f"{rounds} rounds of {runs} programs):")
    print(f"  first program (worker start-up): {cold * 1e3:8.1f} ms")
    print(f"  direct function call:             {best['direct'] * 1e6:8.3f} µs")
    print(f"  trivial program in the sandbox:   {best['sandbox'] * 1e3:8.3f} ms "
          f"(target <= 5 ms; {best['sandbox'] / best['direct']:,.0f}x the direct call)")
    print(f"  program with one tool call:       {best['tool'] * 1e3:8.3f} ms "
          f"(+{(best['tool'] - best['sandbox']) * 1e3:.3f} ms per round trip)")


def oracle_items(per_template: int) -> None:
    from program_util import ScriptedCoder, oracle_program

    from whatifbench.core.dataset import load_dataset
    from whatifbench.core.protocol import Protocol
    from whatifbench.core.registry import lookup
    from whatifbench.models.program.viper import ViperBackend
    from whatifbench.runner.evaluate import RunOptions, evaluate
    from whatifbench.runner.store import RunStore

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["WHATIF_HOME"] = str(Path(tmp) / "home")
        t = time.perf_counter()
        lookup("generator", "cvqa-synthetic").obj.generate(Path(tmp) / "syn",
                                                           per_template=per_template, seed=0)
        generated = time.perf_counter() - t
        dataset = load_dataset(Path(tmp) / "syn")
        n = len(dataset.items)
        coder = ScriptedCoder(oracle_program)
        backend = ViperBackend("viper:scripted", {"detector": "oracle"}, code_llm=coder)
        t = time.perf_counter()
        backend.prepare(dataset.items)
        rebuilt = time.perf_counter() - t
        store = RunStore(Path(tmp) / "store.sqlite")
        t = time.perf_counter()
        result = evaluate(dataset, backend, Protocol().validate(), store,
                          RunOptions(progress=False))
        whole = time.perf_counter() - t
        t = time.perf_counter()
        again = evaluate(dataset, backend, Protocol().validate(), store,
                         RunOptions(progress=False))
        cached = time.perf_counter() - t
        backend.close()
        store.close()
    m = result.metrics
    print(f"\n{n} oracle items (C-VQA-Synthetic, {per_template} images per template; "
          f"generation {generated:.1f} s, not counted):")
    print(f"  scene rebuild from seeds (prepare): {rebuilt:6.2f} s "
          f"({rebuilt / (n / 2) * 1e3:.1f} ms per image)")
    print(f"  evaluation (programs + tools + store): {whole:6.2f} s "
          f"({whole / n * 1e3:.1f} ms per item; scenes already rebuilt)")
    print(f"  rerun from the store:               {cached:6.2f} s "
          f"({again.execution.from_store} responses from the store)")
    print(f"  accuracy original {m['original_accuracy']} / counterfactual "
          f"{m['counterfactual_accuracy']} (expected 100 / 100); program failures "
          f"{m['program']['failed']} %")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="programs per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--per-template", type=int, default=84,
                        help="images per template (84: 1,008 items)")
    opts = parser.parse_args()
    print(f"Start: {load()}")
    overhead(opts.runs, opts.rounds)
    oracle_items(opts.per_template)
    print(f"End: {load()}")


if __name__ == "__main__":
    main()
