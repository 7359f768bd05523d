"""C-VQA-Real back to the release format (``whatif export DATASET --format cvqa-csv``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.outputs import staged_dir
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.table import table_text

CSV_NAME = "questions.csv"


def release_rows(dataset: Dataset) -> list[tuple[str, str, str, str, str, str]]:
    """One release row per complete pair, in dataset order."""
    rows = []
    for pair_id, items in dataset.pairs().items():
        by_role = {i.role: i for i in items}
        ori, cf = by_role.get("original"), by_role.get("counterfactual")
        if ori is None or cf is None or not ori.images:
            raise WhatifError(f"Pair {pair_id!r} of {dataset.root} is not an original + "
                              "counterfactual pair with an image; it cannot be exported.")
        rows.append((image_name(ori), ori.question, ori.target, cf.question, cf.target,
                     ori.group or ""))
    return rows


def image_name(item: Item) -> str:
    """The COCO file name of an item's image (``meta.image``, else the file's name)."""
    return str(item.meta.get("image") or Path(item.images[0]).name)


def export_release(dataset: str | Path | Dataset, out: str | Path, *,
                   overwrite: bool = False) -> Path:
    """Write ``out/questions.csv`` and ``out/images/<img_path>``; return the CSV path."""
    ds = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    if ds.suite != "cvqa-real":
        raise WhatifError(f"The dataset {ds.root} belongs to the suite {ds.suite!r}; the "
                          "C-VQA-Real release format holds C-VQA-Real datasets only.")
    rows = release_rows(ds)
    sources: dict[str, Path] = {}
    for pair_items in ds.pairs().values():
        item = pair_items[0]
        sources.setdefault(image_name(item), ds.image_path(item.images[0]))
    out = Path(out)
    with staged_dir(out, overwrite, inputs=(ds.root,), kind="export") as stage:
        (stage / CSV_NAME).write_text(table_text(rows), encoding="utf-8", newline="")
        for name, src in sources.items():
            dest = stage / "images" / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
    return out / CSV_NAME
