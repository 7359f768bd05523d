"""``export_review`` / ``import_review``: the public API behind ``whatif review``."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.outputs import check_output, write_output_file
from whatifbench.core.readfile import open_regular
from whatifbench.core.registry import entries
from whatifbench.errors import WhatifError
from whatifbench.review.base import Reviewer
from whatifbench.review.html import sheet_html
from whatifbench.review.sheet import read_sheet, sheet_csv
from whatifbench.review.suspects import SuspectsFirst, read_suspects

KEYS = "keys"
"""The review sheet of any dataset's answer keys (``review.keys``)."""


def reviewer_for(dataset: Dataset, sheet: str | None = None) -> Reviewer:
    """The hook: the reviewer ``sheet`` names, else the one named by ``card.extra["review"]``,
    else the one of ``card.suite``."""
    name = str(sheet or dataset.card.extra.get("review") or dataset.suite)
    found = {e.name: e for e in entries("reviewer")}
    if name not in found:
        asked = f"no review sheet {name!r}" if sheet else "no review sheet"
        raise WhatifError(
            f"The dataset {dataset.root} (suite {dataset.suite}) has {asked}; review "
            f"sheets exist for: {', '.join(sorted(found)) or 'none'}. The '{KEYS}' sheet "
            f"(--sheet {KEYS}) reviews the answer keys of any dataset.")
    reviewer: Reviewer = found[name].obj()
    return reviewer


def _load(dataset: str | Path | Dataset) -> Dataset:
    return dataset if isinstance(dataset, Dataset) else load_dataset(dataset)


def export_review(dataset: str | Path | Dataset, out: str | Path,
                  overwrite: bool = False, *, sheet: str | None = None,
                  suspects: str | Path | None = None) -> Path:
    """Write the review sheet as ``.csv`` or self-contained ``.html`` (chosen by ``out``);
    ``sheet`` names the reviewer (default: the dataset's own); ``suspects`` (a ``whatif items
    --json`` file) puts the flagged rows first, with their reasons."""
    ds = _load(dataset)
    out = Path(out)
    kind = out.suffix.lower()
    if kind not in (".csv", ".html", ".htm"):
        raise WhatifError(f"--out {out} must end in .csv (to fill in) or .html (to view and "
                          "fill in a browser).")
    if out.exists() and not overwrite:
        raise WhatifError(f"{out} already exists (it may hold someone's review); choose another "
                          "name or pass --overwrite.")
    inputs = [ds.root, *([suspects] if suspects else [])]
    check_output(out, inputs, overwrite, file=True)
    reviewer = reviewer_for(ds, sheet)
    if suspects is not None:
        reviewer = SuspectsFirst(reviewer, read_suspects(suspects, ds), ds)
    rows = reviewer.rows(ds)
    text = (sheet_csv(reviewer, rows) if kind == ".csv"
            else sheet_html(ds, reviewer, rows, out.with_suffix(".csv").name))
    write_output_file(out, text.encode("utf-8"), overwrite, inputs)
    return out


def import_review(dataset: str | Path | Dataset, sheet: str | Path, out: str | Path | None = None,
                  *, in_place: bool = False, overwrite: bool = False,
                  kind: str | None = None) -> Card:
    """Apply a filled-in sheet: write the reviewed dataset to ``out``, or replace the input
    dataset atomically when ``in_place`` (the only way the input is ever changed); ``kind``
    names the sheet's reviewer as ``export_review``'s ``sheet`` did."""
    ds = _load(dataset)
    if (out is None) == (not in_place):
        raise WhatifError("Pass either --out NEW_DATASET (recommended) or --in-place to replace "
                          f"{ds.root} with the reviewed dataset.")
    target = ds.root if in_place or out is None else Path(out)
    if not in_place and target.resolve() == ds.root.resolve():
        raise WhatifError(f"--out {target} is the input dataset; pass --in-place to replace it.")
    # In place, the dataset is the one input we replace (on request); the sheet never is.
    check_output(target, [sheet] if in_place else [ds.root, sheet], overwrite or in_place)
    reviewer = reviewer_for(ds, kind or _sheet_kind(Path(sheet)))
    keys = [row.key for row in reviewer.rows(ds)]
    filled = read_sheet(Path(sheet), reviewer, keys)
    return reviewer.apply(ds, filled, target, overwrite or in_place)


def _sheet_kind(path: Path) -> str | None:
    """``keys`` for a sheet whose header has the keys sheet's ``answer_key`` column (so that
    importing it needs no ``--sheet``); ``None`` otherwise (the dataset's own sheet)."""
    try:
        with io.TextIOWrapper(open_regular(path), encoding="utf-8-sig", newline="") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return None  # read_sheet says what is wrong with it
    return KEYS if "answer_key" in next(csv.reader([first]), []) else None
