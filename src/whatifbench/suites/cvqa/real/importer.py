"""``whatif import cvqa-real``: the release CSV + COCO val2014 images → a dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter, sort_images
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.params import Param, card_params, declared
from whatifbench.core.readfile import read_bytes
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.real.release import KIND, Row, pair_items, read_release

VERSION = "1"
SHOWN = 5
"""How many missing or unreadable image names an error message lists."""


@declared
def import_release(
    csv_path: Annotated[str | Path, Param(
        "the release table (C-VQA-Real_questions.csv)", metavar="FILE", flag="--csv",
        card="csv")],
    images: Annotated[str | Path, Param(
        "folder holding the COCO val2014 images named as img_path", metavar="DIR",
        card=False)],
    out: str | Path, *,
    allow_missing: Annotated[bool, Param(
        "import only the pairs whose image exists and is readable")] = False,
    overwrite: bool = False,
    name: Annotated[str, Param("dataset name for the card", card=False)] = "cvqa-real",
) -> Card:
    """Write one original + one counterfactual item per row; images are copied by COCO name.

    Missing or unreadable images stop the import (listing how many and the first names) unless
    ``allow_missing``, which skips those pairs and records the skipped counts in the card.
    """
    csv_path, images = Path(csv_path), Path(images)
    rows = read_release(csv_path)
    if not images.is_dir():
        raise WhatifError(f"The images folder {images} does not exist; pass --images with the "
                          "folder of COCO val2014 images.")
    missing, corrupt = _unusable_images(rows, images)
    if (missing or corrupt) and not allow_missing:
        raise WhatifError(_image_message(csv_path, images, rows, missing, corrupt))
    bad = set(missing) | set(corrupt)
    kept = [(index, row) for index, row in enumerate(rows, start=1) if row.image not in bad]
    if not kept:
        raise WhatifError(f"None of the {len(rows)} rows of {csv_path} has a usable image in "
                          f"{images}; check --images.")
    params = {**card_params(import_release, locals()), "csv_sha256": sha256_file(csv_path)}
    with DatasetWriter(out, overwrite, inputs=(csv_path, images)) as writer:
        stored: dict[str, str] = {}
        for index, row in kept:
            if row.image not in stored:
                stored[row.image] = writer.add_image(row.image, read_bytes(images / row.image))
            meta = {"image": row.image, "type": row.type, "row": index}
            provenance = {"source": "C-VQA-Real release", "csv": csv_path.name, "line": row.line,
                          "answers": "human-annotated (C-VQA §3.1–3.2)"}
            writer.add_items(pair_items(f"real-{index:05d}", stored[row.image], row.type,
                                        row.query, row.answer, row.new_query, row.new_answer,
                                        meta, provenance))
        pairs_by_group = {g: sum(r.type == g for _, r in kept) for g in KIND}
        return writer.finish(
            name=name, suite="cvqa-real", version=VERSION,
            generator={"name": "import:cvqa-real", "params": params},
            seed=None,
            counts={"rows": len(rows), "pairs_by_group": pairs_by_group,
                    "images_distinct": len(stored), "skipped_pairs": len(rows) - len(kept),
                    "skipped_missing_images": len(missing),
                    "skipped_unreadable_images": len(corrupt)},
        )


@register("importer", "cvqa-real")
class CvqaRealImporter:
    """Import the C-VQA-Real release table (img_path,query,…,type) with its COCO images."""

    version = VERSION

    entry = staticmethod(import_release)
    """``--csv``, ``--images``, ``--allow-missing``, ``--name``: ``import_release``."""


def _unusable_images(rows: list[Row], images: Path) -> tuple[list[str], dict[str, str]]:
    """Names (in first-use order) of images that are missing, and unreadable ones with why."""
    return sort_images((row.image, images / row.image) for row in rows)


def _image_message(csv_path: Path, images: Path, rows: list[Row], missing: list[str],
                   corrupt: dict[str, str]) -> str:
    total = len({r.image for r in rows})
    parts = []
    if missing:
        more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
        parts.append(f"{len(missing)} of the {total} images named in {csv_path} are missing "
                     f"from {images}: {', '.join(missing[:SHOWN])}{more}.")
    if corrupt:
        shown = [f"{k} ({v})" for k, v in list(corrupt.items())[:SHOWN]]
        more = f" and {len(corrupt) - SHOWN} more" if len(corrupt) > SHOWN else ""
        parts.append(f"{len(corrupt)} image(s) in {images} cannot be read: "
                     f"{'; '.join(shown)}{more}.")
    parts.append("Put the COCO val2014 images (named as the img_path column) in that folder, or "
                 "pass --allow-missing to import only the pairs whose image is usable.")
    return " ".join(parts)
