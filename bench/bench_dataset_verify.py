"""Cost of checking a dataset against its card hashes when a run loads it (issue 11, item 6).

Builds a dataset of N images (default 6,288) of COCO-like photographs (640×480 JPEG, ~100 KB
each, every file distinct) or small PNGs (``--png``), then times, with the files in the page
cache (each measurement repeated, best of R):

* ``read`` — reading every image's bytes (the baseline),
* ``read + sha256`` — reading and hashing them,
* ``load (checks)`` — ``load_dataset`` as a run loaded datasets before: every image opened and
  verified, no hashes,
* ``load (checks + verify)`` — ``load_dataset(verify=True)``, what a run does now: the same
  single read also hashes each image, and the card's hashes are compared.

The figure that matters is the last two lines' difference (the target: well under a second for
6,288 images). Ratios are to the ``read`` baseline of the same run.

    PYTHONPATH=src python bench/bench_dataset_verify.py [N] [--png] [--repeat R]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.item import Item


def photo_bytes(variants: int = 24) -> list[bytes]:
    """Distinct 640×480 JPEGs cut from real photographs (scikit-learn's sample images)."""
    from sklearn.datasets import load_sample_images

    rng = random.Random(0)
    sources = [Image.fromarray(a).convert("RGB") for a in load_sample_images().images]
    out = []
    for k in range(variants):
        src = sources[k % len(sources)].resize((900, 675))
        x, y = rng.randrange(260), rng.randrange(195)
        buf = io.BytesIO()
        src.crop((x, y, x + 640, y + 480)).save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def png_bytes(variants: int = 24) -> list[bytes]:
    """Distinct small PNGs like the generated suites' (480×480 drawings)."""
    rng = random.Random(0)
    out = []
    for _ in range(variants):
        img = Image.new("RGB", (480, 480), (255, 255, 255))
        for _ in range(20):
            x, y = rng.randrange(440), rng.randrange(440)
            img.paste((rng.randrange(256), rng.randrange(256), rng.randrange(256)),
                      (x, y, x + 40, y + 40))
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        out.append(buf.getvalue())
    return out


def unique(data: bytes, k: int, png: bool) -> bytes:
    """The image with a comment naming ``k`` (valid file, distinct bytes and hash)."""
    if png:  # a tEXt chunk before IEND
        import struct
        import zlib

        body = b"tEXt" + b"id\x00" + str(k).encode()
        chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
        return data[:-12] + chunk + data[-12:]
    note = f"image {k}".encode()  # a JPEG COM segment after SOI
    return data[:2] + b"\xff\xfe" + (len(note) + 2).to_bytes(2, "big") + note + data[2:]


def build(out: Path, n: int, png: bool) -> Path:
    pool = png_bytes() if png else photo_bytes()
    ext = "png" if png else "jpg"
    with DatasetWriter(out) as writer:
        for k in range(n):
            rel = writer.add_image(f"{k:06d}.{ext}", unique(pool[k % len(pool)], k, png))
            writer.add_item(Item(f"i{k}", (rel,), "How many?", "number", "1"))
        writer.finish(name="bench", suite="cvqa-real", version="0", generator={}, seed=None)
    return out


def best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds of ``repeat`` calls (CPU time is the steadier
    figure on a shared machine)."""
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=6288)
    parser.add_argument("--png", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = build(Path(tmp) / "ds", args.n, args.png)
        files = sorted((root / "images").iterdir())
        size = sum(f.stat().st_size for f in files)
        print(f"{len(files)} {'PNG' if args.png else 'JPEG'} images, {size / 1e6:.0f} MB, "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
        for f in files:
            f.read_bytes()  # into the page cache
        rows = [("read", lambda: [f.read_bytes() for f in files]),
                ("read + sha256", lambda: [sha256_file(f) for f in files]),
                ("load (checks)", lambda: load_dataset(root)),
                ("load (checks + verify)", lambda: load_dataset(root, verify=True))]
        times: dict[str, tuple[float, float]] = {}
        print(f"{'':<26} {'wall':>9} {'ratio':>7} {'CPU':>9} {'ratio':>7}")
        for label, fn in rows:
            wall, cpu = times[label] = best(fn, args.repeat)
            base_wall, base_cpu = times["read"]
            print(f"{label:<26} {wall:7.3f} s {wall / base_wall:6.1f}x {cpu:7.3f} s "
                  f"{cpu / base_cpu:6.1f}x")

        def extra(a: str, b: str) -> str:
            return (f"{times[a][0] - times[b][0]:+.3f} s wall, {times[a][1] - times[b][1]:+.3f} s "
                    "CPU")

        print(f"\nhashing on top of reading:        {extra('read + sha256', 'read')}")
        print(f"verification on top of the load:  "
              f"{extra('load (checks + verify)', 'load (checks)')} ({len(files)} images)")


if __name__ == "__main__":
    main()
