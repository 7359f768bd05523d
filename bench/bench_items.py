"""``whatif items`` on a C-VQA-Real-sized dataset: wall time and peak memory.

Writes, in a temporary folder, a C-VQA-Real dataset of 3,144 pairs (6,288 items: the release's
size; direct, indirect and boolean questions, one small image per pair, built with the
release's own ``pair_items``), and one run folder holding ``--runs`` runs of the built-in
models (``builtin:constant``, ``builtin:ignore-premise`` and seeded ``builtin:random``). Then
runs ``python -m whatifbench items DATASET RUNS --json FILE --csv FILE`` as a fresh process
(and, with ``--bank``, the same with ``--bank FILE``, which needs 20 runs or more) and reports
its wall time, CPU time and peak resident memory (``wait4``'s ``ru_utime``, ``ru_stime`` and
``ru_maxrss``).

    PYTHONPATH=src python bench/bench_items.py [--runs 8] [--bank] [--keep DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from PIL import Image

SRC = Path(__file__).resolve().parent.parent / "src"
PAIRS = 3144


def make_dataset(out: Path) -> Path:
    """The C-VQA-Real-sized dataset."""
    from whatifbench.core.dataset import DatasetWriter
    from whatifbench.suites.cvqa.real.release import pair_items

    rng = random.Random(0)
    buf = io.BytesIO()
    with DatasetWriter(out) as writer:
        for k in range(PAIRS):
            buf.seek(0)
            buf.truncate()
            Image.new("RGB", (8, 8), (k % 256, k // 256 % 256, 90)).save(buf, format="PNG")
            rel = writer.add_image(f"COCO_val2014_{k:012d}.png", buf.getvalue())
            group = ("direct", "indirect", "boolean")[k % 3]
            if group == "boolean":
                answer, new = rng.choice(("yes", "no")), rng.choice(("yes", "no"))
            else:
                n = rng.randrange(1, 9)
                answer, new = str(n), str(max(0, n + rng.choice((-2, -1, 1, 2))))
            writer.add_items(pair_items(
                f"pair{k:05d}", rel, group, f"How many things are in picture {k}?", answer,
                f"If one thing were added to picture {k}, how many would there be?", new,
                {"image": Path(rel).name}, {"source": "bench"}))
        writer.finish(name="cvqa-real-sized", suite="cvqa-real", version="bench",
                      generator={"name": "bench"}, seed=0)
    return out


def make_runs(dataset: Path, out: Path, n: int) -> Path:
    """``n`` runs of the built-in models in one folder."""
    from whatifbench import api
    from whatifbench.runner.evaluate import RunOptions

    runs = []
    specs = [("builtin:constant", {}), ("builtin:ignore-premise", {})]
    specs += [("builtin:random", {"seed": k}) for k in range(n - len(specs))]
    for k, (spec, args) in enumerate(specs[:n]):
        found = api.run_all([dataset], [spec], args, options=RunOptions(progress=False))
        runs += [replace(r, spec=replace(r.spec, model_name=f"m{k:02d} {spec}")) for r in found]
    api.write_outputs(out, runs)
    return out


def measure(args: list[str], home: Path) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds (user + system: what the command costs whatever else the
    machine runs), peak RSS in MiB and exit status of ``python -m whatifbench ARGS``."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "WHATIF_HOME": str(home)}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "whatifbench", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    return (took, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
            os.waitstatus_to_exitcode(status))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--bank", action="store_true", help="also fit a bank (needs 20 runs)")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (new) and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        os.environ["WHATIF_HOME"] = str(root / "home")
        start = time.perf_counter()
        dataset = make_dataset(root / "ds")
        runs = make_runs(dataset, root / "runs", args.runs)
        print(f"setup: {PAIRS * 2} items, {args.runs} runs ({time.perf_counter() - start:.0f} s)")
        cases = [("items --json --csv", ["items", str(dataset), str(runs), "--json",
                                         str(root / "i.json"), "--csv", str(root / "i.csv")])]
        if args.bank:
            cases.append(("items --bank", ["items", str(dataset), str(runs), "--bank",
                                           str(root / "bank.json")]))
        for name, argv in cases:
            took, cpu, peak, code = measure(argv, root / "home")
            print(f"{name}: {took:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MiB, "
                  f"exit {code}")


if __name__ == "__main__":
    main()
