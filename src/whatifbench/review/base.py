"""The review hook: what a dataset's review sheet holds and how its decisions are applied."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset

DECISIONS = ("accept", "edit", "reject", "new")
"""accept as is; edit (apply the row's changed cells); reject (leave out); new (a row added by
hand: a new unit built from the row's cells)."""
KEY = "key"
DECISION = "decision"
COMMENT = "comment"


@dataclass(frozen=True)
class Column:
    """One column of a review sheet."""

    name: str
    """Header name (``new_question`` …)."""
    editable: bool
    """Reviewers may change it (read-only columns are shown for information)."""
    help: str = ""
    """One line shown in the HTML sheet's header tooltip."""


@dataclass(frozen=True)
class ReviewRow:
    """One unit under review (a C-VQA-Real pair, a MuCR candidate …) as exported."""

    key: str
    """The unit's id in the dataset."""
    image: str | None
    """Dataset-relative path of the image shown as a thumbnail."""
    values: dict[str, str]
    """Cell values by column name."""
    decision: str
    """Pre-filled decision (``accept``, or ``reject`` for units an automatic check flagged)."""
    gallery: tuple[tuple[str, str], ...] = ()
    """More pictures to show, as ``(label, dataset-relative path)`` (e.g. candidates to pick
    from); the HTML sheet shows them labelled, the CSV sheet does not."""


@dataclass(frozen=True)
class SheetRow:
    """One row of a filled-in sheet, as read back."""

    line: int
    """Line of the sheet file where the row starts."""
    key: str
    """The unit's id (ignored for ``new`` rows)."""
    decision: str
    """One of ``DECISIONS``."""
    values: dict[str, str]
    """Cell values by column name."""
    comment: str
    """The reviewer's note (kept in the item's provenance)."""


@dataclass(frozen=True)
class Sheet:
    """A filled-in sheet: its rows and where it came from."""

    path: Path
    """The sheet file."""
    sha256: str
    """Hash of its bytes (recorded in the new dataset's card)."""
    rows: tuple[SheetRow, ...]
    """Rows in file order."""


class Reviewer(ABC):
    """A kind of dataset's review sheet; subclasses register with ``@register("reviewer", …)``."""

    columns: tuple[Column, ...] = ()
    """The sheet's columns between ``key``/``decision`` and ``comment``."""

    @abstractmethod
    def rows(self, dataset: Dataset) -> list[ReviewRow]:
        """One row per unit under review, in dataset order."""

    @abstractmethod
    def apply(self, dataset: Dataset, sheet: Sheet, out: Path, overwrite: bool) -> Card:
        """Write the reviewed dataset to ``out``; raise one ``WhatifError`` listing every bad row.

        ``sheet`` has passed the generic checks (known decisions, each existing key exactly
        once); the reviewer checks the cells.
        """

    def editable(self) -> Sequence[str]:
        """Names of the editable columns."""
        return [c.name for c in self.columns if c.editable]
