"""Visual Genome images: find ``<img_id>.jpg`` and copy them into a dataset, or say what is wrong.

Images are looked up in the folder itself and in VG's two sub-folders ``VG_100K`` and
``VG_100K_2`` (the release's own evaluation looks in both).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from whatifbench.core.dataset import DatasetWriter, sort_images
from whatifbench.core.readfile import read_bytes
from whatifbench.errors import WhatifError

SUBFOLDERS = ("", "VG_100K", "VG_100K_2")
SHOWN = 5
_NAME = re.compile(r"(\d+)\.jpg")


def check_folder(folder: Path) -> None:
    """The image folder must exist."""
    if not folder.is_dir():
        raise WhatifError(f"The image folder {folder} does not exist; pass --images with the "
                          "folder that holds the Visual Genome images <image_id>.jpg.")


def find_image(folder: Path, img_id: int) -> Path | None:
    """The file of an image, or ``None``."""
    for sub in SUBFOLDERS:
        path = folder / sub / f"{img_id}.jpg"
        if path.is_file():
            return path
    return None


def available_ids(folder: Path) -> set[int]:
    """Ids of every ``<digits>.jpg`` in the folder and its VG sub-folders."""
    found: set[int] = set()
    for sub in SUBFOLDERS:
        path = folder / sub
        if path.is_dir():
            found |= {int(m.group(1)) for p in path.iterdir()
                      if (m := _NAME.fullmatch(p.name))}
    return found


def copy_images(writer: DatasetWriter, folder: Path, ids: Iterable[int]) -> dict[int, str]:
    """Copy each image to ``images/<id>.jpg`` unchanged; raise one ``WhatifError`` with the
    counts and first names of missing and unreadable images. Returns id → dataset path."""
    found = {img_id: find_image(folder, img_id) for img_id in sorted(set(ids))}
    missing, unreadable = sort_images((f"{i}.jpg", path) for i, path in found.items())
    broken = [f"{name} ({why})" for name, why in unreadable.items()]
    if missing or broken:
        parts = []
        if missing:
            parts.append(f"{len(missing)} image(s) are missing "
                         f"(first: {', '.join(missing[:SHOWN])})")
        if broken:
            parts.append(f"{len(broken)} image(s) cannot be read (first: "
                         f"{', '.join(broken[:SHOWN])})")
        raise WhatifError(f"In the image folder {folder}, " + "; ".join(parts) + ". Pass the "
                          "folder holding the Visual Genome images <img_id>.jpg (or its "
                          "VG_100K / VG_100K_2 sub-folders) and replace damaged files.")
    return {img_id: writer.add_image(f"{img_id}.jpg", read_bytes(path))
            for img_id, path in found.items() if path is not None}
