"""Shared by the generator benches: the PNG-encoding baseline and CPU accounting."""

from __future__ import annotations

import os
import resource
import sys
import time
from multiprocessing import forkserver
from pathlib import Path

from PIL import Image

from whatifbench.scenes.render import PNG_OPTIONS, encode_png

__all__ = ["PNG_OPTIONS", "baseline", "cpu_seconds"]

BATCH = 200


def baseline(paths: list[Path], save_to: Path | None = None) -> tuple[float, float]:
    """Wall and CPU seconds to PNG-encode (``save_to``: and save) the images at ``paths`` in
    this process with the generators' PNG settings; decoding them is not timed. The re-encoded
    bytes must equal the files: the baseline encodes the very same images the same way."""
    wall = cpu = 0.0
    for start in range(0, len(paths), BATCH):
        batch: list[tuple[Image.Image, Path]] = []
        for path in paths[start:start + BATCH]:
            with Image.open(path) as opened:
                opened.load()
                batch.append((opened.copy(), path))
        t0, c0 = time.perf_counter(), time.process_time()
        if save_to is None:
            encoded = [encode_png(img) for img, _ in batch]
        else:
            for n, (img, _) in enumerate(batch):
                img.save(save_to / f"{start + n}.png", format="PNG", **PNG_OPTIONS)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        for n, (_, path) in enumerate(batch):
            again = encoded[n] if save_to is None else (save_to / f"{start + n}.png").read_bytes()
            if again != path.read_bytes():
                sys.exit(f"re-encoding {path} did not reproduce the generated file: the baseline "
                         "would not be encoding the same images")
    return wall, cpu


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children, and of the finished children of
    its fork server (the generators' workers are forked by it, and accounted to it once they
    exit; read from /proc)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime + _fork_server_children()


def _fork_server_children() -> float:
    """CPU seconds of the fork server's finished children (0 without a fork server)."""
    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # Fields 16 and 17 of stat (cutime, cstime), counted after the ")" that ends field 2.
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
