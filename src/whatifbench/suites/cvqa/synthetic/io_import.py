"""``whatif import cvqa-synthetic``: the release CSV (or any CSV in its format) → a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter, problems_message, sort_images
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.item import Item
from whatifbench.core.params import Param, card_params, declared
from whatifbench.core.readfile import read_bytes
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.synthetic.options import LETTERS
from whatifbench.suites.cvqa.synthetic.release import FORMAT_HINT, Row, options, read_rows

IMPORTER_VERSION = "1.0"
SHOWN = 5
"""How many image names an error message lists."""


def row_items(row: Row, source: str) -> tuple[Item, Item]:
    """The original and counterfactual items of one row (text kept verbatim)."""
    items = []
    for role, query, letter in (("original", row.query, row.answer),
                                ("counterfactual", row.new_query, row.new_answer)):
        choices = options(query)
        assert choices is not None  # validated by read_rows
        items.append(Item(
            id=f"{row.pair_id}:{role}", images=(f"images/{row.img_path}",), question=query,
            kind="choice", target=choices[LETTERS.index(letter)], choices=choices,
            pair_id=row.pair_id, role=role, group=row.type,
            meta={"template": int(row.type.rsplit("_", 1)[1]), "image": row.img_path},
            provenance={"importer": "cvqa-synthetic", "version": IMPORTER_VERSION,
                        "source": source, "line": row.line},
        ))
    return items[0], items[1]


def _image_problems(listed: list[str], images: Path) -> list[str]:
    missing, unreadable = sort_images((name, images / name) for name in listed)
    broken = [f"{name} ({why})" for name, why in unreadable.items()]
    problems = []
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        problems.append(f"{len(missing)} of {len(listed)} images {verb} missing from {images} "
                        f"(first: {', '.join(missing[:SHOWN])})")
    if broken:
        noun = "image cannot" if len(broken) == 1 else "images cannot"
        problems.append(f"{len(broken)} {noun} be read (first: {'; '.join(broken[:SHOWN])})")
    return problems


@declared
def import_release(
    csv_path: Annotated[str | Path, Param(
        "the release questions CSV (img_path,query,answer,...)", metavar="FILE", flag="--csv",
        card="csv")],
    images: Annotated[str | Path, Param(
        "folder holding the images named as img_path", metavar="DIR", card=False)],
    out: str | Path, overwrite: bool = False) -> Card:
    """Validate the CSV and its images, then write the dataset (nothing is written on error)."""
    csv_path, images = Path(csv_path), Path(images)
    rows, problems, listed = read_rows(csv_path)
    if not images.is_dir():
        problems.append(f"the images folder {images} does not exist")
    elif listed:
        problems += _image_problems(listed, images)
    if problems:
        raise WhatifError(problems_message(
            f"The C-VQA-Synthetic CSV {csv_path}", problems,
            f"{FORMAT_HINT} Images are looked up as --images DIR / img_path. Fix the file or "
            "the folder and run the command again."))
    params = {**card_params(import_release, locals()), "csv_sha256": sha256_file(csv_path)}
    with DatasetWriter(out, overwrite, inputs=(csv_path, images)) as writer:
        for row in rows:
            writer.add_image(row.img_path, read_bytes(images / row.img_path))
            writer.add_items(row_items(row, csv_path.name))
        return writer.finish(
            name="cvqa-synthetic", suite="cvqa-synthetic", version=IMPORTER_VERSION,
            generator={"name": "import:cvqa-synthetic", "params": params},
            seed=None, counts={"rows": len(rows)})


@register("importer", "cvqa-synthetic")
class CvqaSyntheticImporter:
    """C-VQA-Synthetic release (questions CSV + images folder) → dataset."""

    entry = staticmethod(import_release)
    """``--csv FILE --images DIR``: ``import_release``."""
