"""Speed of the C-VQA-Synthetic generator against PNG-encoding the same images.

Measures, in one run:
  1. generating the suite (default: the full 3,000 images) through the public API;
  2. the baseline: PNG-encoding the very same images (decoded from the generated files, not
     timed) in one process with the generator's PNG settings; the re-encoded bytes must equal
     the files, which proves the baseline encodes the same images the same way.
Prints both times and their ratio (generation / baseline; ≤ 1 means the generator is no slower
than encoding alone). Targets: generation ≤ 10 s for 3,000 images, ratio ≤ 1.

    PYTHONPATH=src python bench/bench_generate_cvqa.py [--per-template 500] [--workers N]
                                                       [--dir DIR]

The dataset is written to a temporary folder inside ``--dir`` (default: the current folder)
and removed afterwards. CPU seconds are printed too: on a machine shared with other jobs the
wall-clock ratio also measures how much CPU the other jobs left us.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from whatifbench.scenes.render import encode_png
from whatifbench.suites.cvqa_synthetic.generate import CvqaSyntheticGenerator, default_workers

BATCH = 200


def baseline(paths: list[Path]) -> tuple[float, float]:
    """Wall and CPU seconds to PNG-encode the images at ``paths`` in this process (decoding
    not timed)."""
    total = cpu = 0.0
    for start in range(0, len(paths), BATCH):
        batch = []
        for path in paths[start:start + BATCH]:
            with Image.open(path) as img:
                img.load()
                batch.append((img.copy(), path.read_bytes()))
        t0, c0 = time.perf_counter(), time.process_time()
        encoded = [encode_png(img) for img, _ in batch]
        total += time.perf_counter() - t0
        cpu += time.process_time() - c0
        for data, (_, original) in zip(encoded, batch, strict=True):
            if data != original:
                sys.exit("re-encoding did not reproduce a generated file: the baseline would "
                         "not be encoding the same images")
    return total, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=500)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", default=".", help="where the temporary dataset goes")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir=args.dir, prefix=".bench-cvqa-") as tmp:
        out = Path(tmp) / "suite"
        cpu0 = _cpu()
        t0 = time.perf_counter()
        CvqaSyntheticGenerator.generate(out, per_template=args.per_template, seed=args.seed,
                                        workers=args.workers)
        generation = time.perf_counter() - t0
        paths = sorted((out / "images").glob("*.png"))
        own0 = time.process_time()
        encode, encode_cpu = baseline(paths)
        gen_cpu = _cpu() - cpu0 - (time.process_time() - own0)
    n = len(paths)
    print(f"machine: {os.cpu_count()} CPUs, load average before the run {load:.2f}")
    print(f"images: {n} ({args.per_template} per template), workers: {args.workers}")
    print(f"generation (sample + render + encode + write + card): {generation:6.2f} s wall, "
          f"{gen_cpu:6.2f} s CPU ({n / generation:5.0f} images/s)")
    print(f"baseline (PNG-encode the same images, one process):   {encode:6.2f} s wall, "
          f"{encode_cpu:6.2f} s CPU ({n / encode:5.0f} images/s)")
    print(f"ratio generation / baseline, wall: {generation / encode:.2f} (target <= 1.00); "
          f"CPU: {gen_cpu / encode_cpu:.2f} (<= {args.workers} fits in {args.workers} workers)")
    print(f"generation target: <= {10 * n / 3000:.1f} s wall")


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the generator's workers are
    accounted to the parent once they exit, which may be after ``generate`` returns)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
