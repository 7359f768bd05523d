"""Suspects first: a review sheet whose rows ``whatif items`` flagged come first, most serious
first, with a read-only ``suspect`` column holding the reasons (``whatif review export DATASET
--suspects items.json``). Importing the sheet needs nothing of it: the column is ignored."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset
from whatifbench.core.readfile import read_text
from whatifbench.core.records.read import parse_file
from whatifbench.errors import WhatifError
from whatifbench.review.base import Column, Reviewer, ReviewRow, Sheet

COLUMN = Column("suspect", False, "why 'whatif items' flagged this row (empty: not flagged)")


@dataclass(frozen=True)
class SuspectsDataset:
    """The dataset a ``whatif items --json`` file is of."""

    items_sha256: str
    """Its items' sha256."""


@dataclass(frozen=True)
class SuspectItem:
    """One item of a ``whatif items --json`` file, as far as the sheet reads it."""

    id: str
    """The item."""
    suspect: bool = False
    """``whatif items`` flagged it."""
    reasons: tuple[str, ...] = ()
    """Why."""


@dataclass(frozen=True)
class SuspectsFile:
    """A ``whatif items --json`` file, as far as the sheet reads it (most serious first)."""

    dataset: SuspectsDataset
    """The dataset."""
    items: list[SuspectItem]
    """Its items."""


def read_suspects(path: str | Path, dataset: Dataset) -> dict[str, tuple[int, str]]:
    """From a ``whatif items --json`` file of ``dataset`` (read through ``SuspectsFile``): each
    suspect item's rank and reasons. Refuses a file of another dataset."""
    path = Path(path)
    fix = "Write it with 'whatif items DATASET RUN... --json FILE'."
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise WhatifError(f"The suspects file {path} does not exist. {fix}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WhatifError(f"The suspects file {path} cannot be read ({exc}). {fix}") from None
    found_file: SuspectsFile = parse_file(SuspectsFile, text, path,
                                          f"It is not a 'whatif items --json' file. {fix}")
    recorded = found_file.dataset.items_sha256
    if recorded != dataset.items_sha256:
        raise WhatifError(f"{path} lists the items of another dataset (items sha256 "
                          f"{recorded[:12]}…) than {dataset.root} "
                          f"({dataset.items_sha256[:12]}…). {fix}")
    found: dict[str, tuple[int, str]] = {}
    for rank, item in enumerate(i for i in found_file.items if i.suspect):
        found[item.id] = (rank, "; ".join(item.reasons))
    return found


class SuspectsFirst(Reviewer):
    """Another reviewer's sheet, its flagged rows first and a ``suspect`` column added."""

    def __init__(self, inner: Reviewer, suspects: dict[str, tuple[int, str]],
                 dataset: Dataset) -> None:
        self.inner = inner
        self.columns = (COLUMN, *inner.columns)
        self.suspects = suspects
        self.units: dict[str, list[str]] = {}
        for item in dataset.items:  # a row's key is an item, or its pair (or group)
            for key in {item.id, item.unit, *(() if item.pair_id is None else (item.pair_id,))}:
                self.units.setdefault(key, []).append(item.id)

    def _flagged(self, row: ReviewRow) -> tuple[int, str] | None:
        found = [self.suspects[i] for i in self.units.get(row.key, [row.key])
                 if i in self.suspects]
        if not found:
            return None
        return min(r for r, _ in found), " / ".join(dict.fromkeys(t for _, t in found))

    def rows(self, dataset: Dataset) -> list[ReviewRow]:
        """The inner sheet's rows, flagged ones first (by rank), then the rest in order."""
        ranked: list[tuple[tuple[int, int], ReviewRow]] = []
        for order, row in enumerate(self.inner.rows(dataset)):
            flagged = self._flagged(row)
            values: dict[str, Any] = {**row.values, COLUMN.name: flagged[1] if flagged else ""}
            key = (0, flagged[0]) if flagged else (1, order)
            ranked.append((key, ReviewRow(row.key, row.image, values, row.decision,
                                          row.gallery)))
        return [row for _, row in sorted(ranked, key=lambda kr: kr[0])]

    def apply(self, dataset: Dataset, sheet: Sheet, out: Path, overwrite: bool) -> Card:
        """The inner reviewer's."""
        return self.inner.apply(dataset, sheet, out, overwrite)
