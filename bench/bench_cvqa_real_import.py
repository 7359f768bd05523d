"""Import speed of a release-sized C-VQA-Real table against copying its images.

Builds, in a temporary folder, a 3,144-row table in the release format over 3,026 distinct
JPEG photos (scikit-image/scikit-learn photographs at 320x240, standing in for COCO images),
then measures in the same run:

- baseline: read the CSV with the csv module and copy every image (shutil.copyfile);
- ``import_release``: validation of every row, decoding check of every image, copying, hashing,
  writing items and card.

Prints both times and their ratio. Run: ``PYTHONPATH=src python bench/bench_cvqa_real_import.py``.
"""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from whatifbench.suites.cvqa.real.importer import import_release

ROWS, IMAGES = 3144, 3026
SIZE = (320, 240)
"""Pixels of the stand-in photos (other benches set COCO's usual 640x480)."""
GROUPS = ["direct"] * 1150 + ["indirect"] * 864 + ["boolean"] * 1130


def photos() -> list[bytes]:
    from skimage import data
    from sklearn.datasets import load_sample_images

    arrays = [data.astronaut(), data.coffee(), data.chelsea(), data.rocket()]
    arrays += list(load_sample_images().images)
    out = []
    for array in arrays:
        img = Image.fromarray(np.asarray(array)).convert("RGB").resize(SIZE)
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=85)
        out.append(buf.getvalue())
    return out


def make_release(root: Path) -> tuple[Path, Path]:
    images = root / "val2014"
    images.mkdir()
    jpegs = photos()
    names = [f"COCO_val2014_{k:012d}.jpg" for k in range(1, IMAGES + 1)]
    for k, name in enumerate(names):
        (images / name).write_bytes(jpegs[k % len(jpegs)])
    table = root / "C-VQA-Real_questions.csv"
    with open(table, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["img_path", "query", "answer", "new query", "new answer", "type"])
        for k, group in enumerate(GROUPS):
            name = names[k % IMAGES]
            if group == "boolean":
                writer.writerow([name, "Is the sky clear?", "yes",
                                 "Would the sky be clear if it was cloudy?", "no", group])
            else:
                writer.writerow([name, "How many birds are there?", "3",
                                 "How many birds would there be if 2 birds flew away?", "1",
                                 group])
    return table, images


def baseline(table: Path, images: Path, out: Path) -> None:
    out.mkdir()
    with open(table, encoding="utf-8", newline="") as handle:
        names = {row["img_path"] for row in csv.DictReader(handle)}
    for name in names:
        shutil.copyfile(images / name, out / name)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        table, images = make_release(root)
        start = time.perf_counter()
        baseline(table, images, root / "copy")
        base = time.perf_counter() - start
        start = time.perf_counter()
        card = import_release(table, images, root / "dataset")
        ours = time.perf_counter() - start
        assert card.counts["pairs"] == ROWS
        print(f"rows {ROWS}, images {IMAGES}")
        print(f"baseline (read CSV + copy images): {base:.2f} s")
        print(f"import_release:                    {ours:.2f} s")
        print(f"ratio import / baseline:           {ours / base:.2f}x")


if __name__ == "__main__":
    main()
