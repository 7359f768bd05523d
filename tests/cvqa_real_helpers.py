"""Shared helpers for the C-VQA-Real tests: real photographs standing in for COCO images."""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from PIL import Image

PHOTO_SIDE = 96
"""Stand-in photos are shrunk to this size on the long side (fast tests, real content)."""


@functools.cache
def photos() -> tuple[bytes, ...]:
    """JPEG bytes of real photographs from scikit-image and scikit-learn (offline)."""
    from skimage import data
    from sklearn.datasets import load_sample_images

    arrays: list[np.ndarray] = [getattr(data, name)() for name in
                                ("astronaut", "coffee", "chelsea", "rocket", "camera", "coins",
                                 "immunohistochemistry", "hubble_deep_field", "moon", "page")]
    arrays += list(load_sample_images().images)
    out = []
    for array in arrays:
        img = Image.fromarray(array).convert("RGB")
        img.thumbnail((PHOTO_SIDE, PHOTO_SIDE))
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=85)
        out.append(buf.getvalue())
    return tuple(out)


def write_photos(folder: Path, names: Iterable[str]) -> list[str]:
    """Save a real photo under each name (cycling through the photos); return the names."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for k, name in enumerate(dict.fromkeys(names)):
        (folder / name).write_bytes(photos()[k % len(photos())])
        written.append(name)
    return written


def sample_csv(shared_dir: Path) -> Path:
    """The verbatim 36-row release sample."""
    return shared_dir / "data" / "cvqa" / "C-VQA-Real_questions_sample.csv"


def sample_rows(shared_dir: Path) -> list[dict[str, str]]:
    """The sample's rows as dicts."""
    with open(sample_csv(shared_dir), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def sample_images(shared_dir: Path, folder: Path) -> list[str]:
    """Stand-in photos named as the sample's ``img_path``s, written into ``folder``."""
    return write_photos(folder, (r["img_path"] for r in sample_rows(shared_dir)))


def one_pair(root: Path, row: dict[str, str]) -> Path:
    """A C-VQA-Real dataset of one release row (``img_path`` a real photograph) in
    ``root/ds``."""
    from whatifbench.suites.cvqa.real.importer import import_release

    with open(root / "q.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    write_photos(root / "coco", [row["img_path"]])
    import_release(root / "q.csv", root / "coco", root / "ds")
    return root / "ds"
