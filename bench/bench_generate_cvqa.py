"""Speed of the C-VQA-Synthetic generator against PNG-encoding the same images.

Measures, in one run:
  1. generating the suite (default: the full 3,000 images) through the public API, with the
     default number of worker processes (all CPUs);
  2. baseline "encode": PNG-encoding the very same images (decoded from the generated files,
     not timed) in one process with the generator's PNG settings. The re-encoded bytes must
     equal the files, which proves the baseline encodes the same images the same way;
  3. baseline "save": the same, writing each PNG to a file in a fresh folder next to the
     dataset (what saving the images costs on this file system).
Prints the times and the ratios generation / baseline (<= 1: the generator is no slower than
encoding the same images alone). Targets: generation <= 10 s for 3,000 images, ratio <= 1.
CPU seconds are printed too: on a machine shared with other jobs, wall-clock ratios also
measure how much CPU the other jobs left us.

Creating files can cost far more than writing them: on ext4, a new file's inode is looked
for past every inode deleted in the last minute or more, so creating thousands of files right
after thousands were deleted (a previous run's clean-up, other jobs' tests) costs up to ~1 ms
of kernel CPU per file. The bench therefore deletes its folders only after the last run, and
prints what creating one file costs in ``--dir`` before it starts.

    PYTHONPATH=src python bench/bench_generate_cvqa.py [--per-template 500] [--workers N]
                                                       [--dir DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from pngbaseline import PNG_OPTIONS, baseline, cpu_seconds

from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator, default_workers


def _once(args: argparse.Namespace, tmp: Path) -> tuple[float, ...]:
    """One measurement in the fresh folder ``tmp``: generation, baseline encode, baseline save
    (wall and CPU each), images, their megabytes."""
    out = tmp / "suite"
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    CvqaSyntheticGenerator.generate(out, per_template=args.per_template, seed=args.seed,
                                    workers=args.workers)
    generation = time.perf_counter() - t0
    paths = sorted((out / "images").glob("*.png"))
    own0 = time.process_time()
    encode, encode_cpu = baseline(paths)
    saved = tmp / "saved"
    saved.mkdir()
    save, save_cpu = baseline(paths, saved)
    gen_cpu = cpu_seconds() - cpu0 - (time.process_time() - own0)
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    return generation, gen_cpu, encode, encode_cpu, save, save_cpu, float(len(paths)), megabytes


def create_cost(folder: Path, n: int = 300) -> float:
    """Microseconds of CPU to create (and write a few bytes to) one new file in ``folder``."""
    folder.mkdir()
    c0 = time.process_time()
    for i in range(n):
        (folder / f"probe-{i:04d}.png").write_bytes(b"probe")
    return 1e6 * (time.process_time() - c0) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=500)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", default=".", help="where the temporary folders go")
    parser.add_argument("--repeat", type=int, default=1,
                        help="repeat everything and keep each figure's best run (shared "
                             "machines)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    best: dict[str, float] = {}
    keys = ("generation", "gen_cpu", "encode", "encode_cpu", "save", "save_cpu", "n", "mb")
    # Every folder is deleted after the last run (see the module docstring).
    with tempfile.TemporaryDirectory(dir=args.dir, prefix=".bench-cvqa-") as tmp:
        probe = create_cost(Path(tmp) / "probe")
        for run in range(args.repeat):
            folder = Path(tmp) / f"run-{run}"
            folder.mkdir()
            for key, value in zip(keys, _once(args, folder), strict=True):
                best[key] = min(best.get(key, value), value)
    generation, gen_cpu, encode, encode_cpu, save, save_cpu = (
        best[k] for k in ("generation", "gen_cpu", "encode", "encode_cpu", "save", "save_cpu"))
    n = int(best["n"])
    print(f"machine: {os.cpu_count()} CPUs, load average before the run {load:.2f}; creating a "
          f"file in {Path(args.dir).resolve()} costs {probe:.0f} us of CPU")
    print(f"images: {n} ({args.per_template} per template, {best['mb']:.1f} MB), workers: "
          f"{args.workers}, PNG settings: {PNG_OPTIONS}, best of {args.repeat} run(s)")
    rows = (("generation (sample, render, encode, write, card)", generation, gen_cpu),
            ("baseline encode: same images, one process", encode, encode_cpu),
            ("baseline save: encode + write files, one process", save, save_cpu))
    for name, wall, cpu in rows:
        print(f"{name:<50} {wall:6.2f} s wall {cpu:6.2f} s CPU {n / wall:6.0f} images/s")
    for name, wall, cpu in rows[1:]:
        print(f"ratio generation / {name.split(':')[0]}: wall {generation / wall:.2f} "
              f"(target <= 1.00), CPU {gen_cpu / cpu:.2f}")
    print(f"generation target: <= {10 * n / 3000:.1f} s wall -> "
          f"{'met' if generation <= 10 * n / 3000 else 'NOT met'}")


if __name__ == "__main__":
    main()
