"""Start-up of the ``whatif`` command: help, listings, a tool's help and a fully cached run.

Times, in fresh processes of the installed ``whatif`` script (``python -m whatifbench`` when it
is not installed), with a private ``$WHATIF_HOME``:

- ``python -c pass`` (the interpreter's own start, for reference);
- ``whatif --help``, ``whatif suites``, ``whatif models``, ``whatif generate cvqa-synthetic
  --help``;
- ``whatif run`` with no arguments once everything is in the run store (the default suite is
  generated and the four built-in models are run once first, untimed).

Each command runs ``--repeat`` times; the fastest wall-clock time and the CPU time (user +
system) of that run are printed, with the targets (``--help`` <= 0.3 s, cached run <= 1.5 s).
Then the top-level imports of the cached run by cumulative import time (``python -X
importtime``), and what importing the heavy packages it avoids would cost (CPU time of a fresh
process). The machine's load average is printed before and after.
Run: PYTHONPATH=src python bench/bench_startup.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AVOIDED = ("scipy.stats", "networkx", "matplotlib.pyplot", "httpx", "tqdm", "torch",
           "transformers")
"""Packages a fully cached default run does not import."""


def whatif() -> list[str]:
    """The command to run: the ``whatif`` script beside this interpreter, if installed."""
    script = Path(sys.executable).with_name("whatif")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "whatifbench"]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of ``cmd`` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def fastest(cmd: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """The fastest of ``repeat`` runs: (wall, cpu of that run). ``{n}`` in an argument becomes
    the repetition's number (a new output folder each time)."""
    return min(timed([arg.replace("{n}", str(n)) for arg in cmd], env) for n in range(repeat))


def import_profile(cmd: list[str], env: dict[str, str], top: int = 8) -> list[tuple[str, float]]:
    """Top-level modules imported by ``cmd`` by cumulative import time (ms)."""
    python = [sys.executable, "-X", "importtime", "-m", "whatifbench"] + cmd[len(whatif()):]
    done = subprocess.run(python, env=env, capture_output=True, text=True, check=False)
    found = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if match and not match.group(2).startswith(" "):
            found.append((match.group(2), int(match.group(1)) / 1000))
    return sorted(found, key=lambda x: -x[1])[:top]


def import_cost(module: str) -> float | None:
    """CPU milliseconds of importing ``module`` in a fresh interpreter (``None`` if missing)."""
    code = (f"import time; t = time.process_time(); import {module}; "
            "print(time.process_time() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    return float(done.stdout) * 1000 if done.returncode == 0 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before: {load} ({os.cpu_count()} CPUs)")
    base = whatif()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "WHATIF_HOME": str(Path(tmp) / "home")}
        first = time.perf_counter()
        timed([*base, "run", "--no-progress", "--out", str(Path(tmp) / "first")], env)
        print(f"first default run (generates the suite, runs 4 models): "
              f"{time.perf_counter() - first:.1f} s\n")
        print(f"{'command':44s} {'wall':>8s} {'cpu':>8s}  target")
        rows = [("python -c pass", [sys.executable, "-c", "pass"], None),
                ("whatif --help", [*base, "--help"], 0.3),
                ("whatif suites", [*base, "suites"], None),
                ("whatif models", [*base, "models"], None),
                ("whatif generate cvqa-synthetic --help",
                 [*base, "generate", "cvqa-synthetic", "--help"], None),
                ("whatif run (fully cached default run)",
                 [*base, "run", "--no-progress", "--out", str(Path(tmp) / "again-{n}")], 1.5)]
        for label, cmd, target in rows:
            wall, cpu = fastest(cmd, env, opts.repeat)
            verdict = "" if target is None else (
                f"<= {target:g} s: {'met' if wall <= target else 'MISSED'}")
            print(f"{label:44s} {wall:7.3f}s {cpu:7.3f}s  {verdict}")
        print("\ncached run, top-level imports by cumulative import time:")
        for name, ms in import_profile([*base, "run", "--no-progress", "--out",
                                        str(Path(tmp) / "profile")], env):
            print(f"  {name:40s} {ms:7.1f} ms")
        shutil.rmtree(Path(tmp) / "home", ignore_errors=True)
    print("\nnot imported by the cached run; importing it alone would cost (CPU):")
    for module in AVOIDED:
        cost = import_cost(module)
        print(f"  {module:40s} " + ("not installed" if cost is None else f"{cost:7.0f} ms"))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload average after: {load}")


if __name__ == "__main__":
    main()
