"""``whatif export DATASET --format cvqa-csv``: a dataset → the release CSV + images."""

from __future__ import annotations

import shutil
from pathlib import Path

from whatifbench.core.dataset import Dataset, load_dataset, problems_message
from whatifbench.core.item import Item
from whatifbench.core.outputs import staged_dir
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.synthetic.options import LETTERS, options_text
from whatifbench.suites.cvqa.synthetic.release import TYPES, options
from whatifbench.suites.cvqa.table import image_path_problem, table_text

QUESTIONS = "questions.csv"


def _question(item: Item) -> tuple[str | None, str | None]:
    """The question with its option list (appended when missing), or a problem."""
    if item.kind != "choice" or len(item.choices) != 4:
        return None, f"item {item.id} is not a 4-option multiple-choice item"
    listed = options(item.question)
    if listed is None:
        return item.question + options_text(item.choices), None
    if listed != item.choices:
        return None, (f"item {item.id}: the options in its question {list(listed)} differ from "
                      f"its choices {list(item.choices)}")
    return item.question, None


def release_rows(dataset: Dataset) -> list[tuple[str, ...]]:
    """One CSV row per pair (dataset order); raises ``WhatifError`` listing what does not fit."""
    rows: list[tuple[str, ...]] = []
    problems: list[str] = []
    for pair_id, items in dataset.pairs().items():
        by_role = {i.role: i for i in items}
        orig, cf = by_role.get("original"), by_role.get("counterfactual")
        if orig is None or cf is None:
            problems.append(f"pair {pair_id} needs an original and a counterfactual item")
            continue
        image = orig.images[0] if len(orig.images) == 1 else None
        if image is None or cf.images != orig.images or not image.startswith("images/"):
            problems.append(f"pair {pair_id}: both items must show the same single image "
                            "under images/")
            continue
        img_path = image.removeprefix("images/")
        if image_path_problem(img_path):
            problems.append(f"pair {pair_id}: image path {img_path!r} cannot be exported")
            continue
        if orig.group not in TYPES or cf.group != orig.group:
            problems.append(f"pair {pair_id}: group {orig.group!r} is not one of "
                            f"{', '.join(TYPES)}")
            continue
        (query, err1), (new_query, err2) = _question(orig), _question(cf)
        if err1 or err2:
            problems += [e for e in (err1, err2) if e]
            continue
        assert query is not None and new_query is not None
        rows.append((img_path, query, LETTERS[orig.target_index], new_query,
                     LETTERS[cf.target_index], orig.group))
    if not rows and not problems:
        problems.append("it holds no original/counterfactual pairs")
    if problems:
        raise WhatifError(problems_message(
            f"The dataset {dataset.root} cannot be written as C-VQA-Synthetic CSV; it", problems,
            "The cvqa-csv format needs pairs of 4-option items (original and counterfactual) "
            "on one image, grouped abs_counting_1 ... abs_counting_6."))
    return rows


def export_release(dataset: str | Path | Dataset, out: str | Path,
                   overwrite: bool = False) -> Path:
    """Write ``out/questions.csv`` and ``out/images/<img_path>``; atomic. Returns the CSV path."""
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    rows = release_rows(data)
    out = Path(out)
    with staged_dir(out, overwrite, inputs=(data.root,), kind="export") as stage:
        (stage / QUESTIONS).write_text(table_text(rows), encoding="utf-8", newline="")
        for row in rows:
            target = stage / "images" / row[0]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(data.root / "images" / row[0], target)
    return out / QUESTIONS
