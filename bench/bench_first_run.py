"""The first ``whatif run`` (the demo, no arguments) in a fresh ``$WHATIF_HOME``: where its time
goes. The README quotes these figures.

Each repeat, in fresh processes of ``python -m whatifbench`` and a fresh temporary home:

- ``whatif generate cvqa-synthetic --per-template 50`` (the demo suite, 300 pairs, made alone);
- ``whatif run --no-progress`` (generates the same suite, then runs the four built-in models):
  its wall-clock and CPU time (children included), and each model's seconds as the command
  prints them (``... × builtin:scene-reader: ... 20.6s``).

Prints every repeat, then the fastest and the median of each figure, and the load average
before and after (on a shared machine wall-clock times also measure what other jobs left us;
CPU seconds do not).
Run: PYTHONPATH=src python bench/bench_first_run.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODEL_LINE = re.compile(r"× (\S+): .*?, ([0-9.]+)s$", re.M)


def timed(args: list[str], home: Path) -> tuple[float, float, str]:
    """Wall-clock and CPU seconds (user + system, children included) of one command, and its
    standard error."""
    env = {**os.environ, "WHATIF_HOME": str(home)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "whatifbench", *args], env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def one(base: Path) -> dict[str, float]:
    """One repeat: the suite generated alone, then the whole first run."""
    figures: dict[str, float] = {}
    wall, cpu, _ = timed(["generate", "cvqa-synthetic", "--per-template", "50", "--out",
                          str(base / "suite")], base / "home-generate")
    figures.update({"generate wall": wall, "generate cpu": cpu})
    wall, cpu, err = timed(["run", "--no-progress", "--out", str(base / "run")],
                           base / "home-run")
    figures.update({"first run wall": wall, "first run cpu": cpu})
    for model, seconds in MODEL_LINE.findall(err):
        figures[f"  {model} wall"] = float(seconds)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}  ({os.cpu_count()} CPUs)")
    runs = []
    for k in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="whatif-first-run-") as tmp:
            found = one(Path(tmp))
        runs.append(found)
        print(f"repeat {k + 1}: " + ", ".join(f"{name.strip()} {v:.1f} s"
                                               for name, v in found.items()))
    print(f"\n{'figure':<32}{'fastest':>10}{'median':>10}")
    for name in runs[0]:
        values = [r[name] for r in runs if name in r]
        print(f"{name:<32}{min(values):>9.1f}s{statistics.median(values):>9.1f}s")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
