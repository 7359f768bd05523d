"""The ``keys`` review sheet: any dataset's answer keys, one row per item (``whatif review export
DATASET --sheet keys``; with ``--suspects`` the items ``whatif items`` flagged come first).

Decisions: ``accept`` keeps the item; ``edit`` sets its key to the ``answer_key`` cell (an option's
text or letter for multiple choice, yes/no, a number); ``reject`` leaves out the item and the
rest of its pair (a pair is scored whole). Importing writes a new version of the dataset
(``1.0`` → ``1.0+r1``) whose card says what changed (``card.extra["reviewed"]``), so reports
can show scores on the cleaned version beside the original (``whatif items --cleaned``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.answers.letters import letter_for
from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset, DatasetWriter, problems_message
from whatifbench.core.item import Item
from whatifbench.core.private import carried
from whatifbench.errors import WhatifError
from whatifbench.review.base import Column, Reviewer, ReviewRow, Sheet, SheetRow

NOTE = "reviewed"
"""The card's ``extra`` key of the review note."""


def next_version(version: str) -> str:
    """The version a review writes: ``1.0`` → ``1.0+r1`` → ``1.0+r2``."""
    found = re.fullmatch(r"(.*)\+r(\d+)", version)
    return f"{found.group(1)}+r{int(found.group(2)) + 1}" if found else f"{version}+r1"


def key_problem(item: Item, value: str) -> tuple[str | None, str | None]:
    """The key a cell gives ``item`` (an option's letter becomes its text), or the problem."""
    text = value.strip()
    if not text:
        return None, "the key is empty"
    if item.kind == "choice":
        letters = {letter_for(i): c for i, c in enumerate(item.choices)}
        if text in item.choices:
            return text, None
        if text.upper() in letters:
            return letters[text.upper()], None
        return None, (f"key {text!r} is not one of the options {list(item.choices)} (or their "
                      f"letters {', '.join(letters)})")
    if item.kind == "yes-no":
        if text.lower() in ("yes", "no"):
            return text.lower(), None
        return None, f"key {text!r} is not yes or no"
    if item.kind == "number":
        try:
            float(text)
        except ValueError:
            return None, f"key {text!r} is not a number"
    return text, None


class KeysReviewer(Reviewer):
    """Answer keys of any dataset, one row per item."""

    columns = (
        Column("question", False, "the question as posed"),
        Column("choices", False, "the options, separated by |"),
        Column("answer_key", True, "the answer key; change it (and set the decision to edit) to "
               "fix it"),
    )

    def rows(self, dataset: Dataset) -> list[ReviewRow]:
        """One row per item, in dataset order."""
        return [ReviewRow(item.id, item.images[0] if item.images else None,
                          {"question": item.question, "choices": " | ".join(item.choices),
                           "answer_key": item.target}, "accept") for item in dataset.items]

    def apply(self, dataset: Dataset, sheet: Sheet, out: Path, overwrite: bool) -> Card:
        """Write the reviewed dataset as a new version with the review note on its card."""
        if any(row.decision == "new" for row in sheet.rows):
            line = next(row.line for row in sheet.rows if row.decision == "new")
            raise WhatifError(f"{sheet.path}:{line}: the keys sheet cannot add items ('new'); "
                              "add them to the dataset's source and build it again.")
        by_key = {row.key: row for row in sheet.rows}
        problems: list[str] = []
        changed: dict[str, list[str]] = {}
        dropped_units = {item.unit for item in dataset.items
                         if by_key[item.id].decision == "reject"}
        kept: list[Item] = []
        decisions: Counter[str] = Counter(row.decision for row in sheet.rows)
        for item in dataset.items:
            row = by_key[item.id]
            new = self._key(item, row, problems)
            if item.unit in dropped_units:
                continue
            if new is not None and new != item.target:
                changed[item.id] = [item.target, new]
                item = self._edited(item, new, row, sheet)
            kept.append(item)
        if problems:
            raise WhatifError(problems_message(f"The review sheet {sheet.path}", problems,
                                               "Fix these rows and import again."))
        if not kept:
            raise WhatifError(f"The review sheet {sheet.path} rejects every item; nothing to "
                              "write.")
        dropped = sorted(i.id for i in dataset.items if i.unit in dropped_units)
        card = dataset.card
        note: dict[str, Any] = {
            "from_items_sha256": dataset.items_sha256, "from_version": card.version,
            "sheet": sheet.path.name, "sheet_sha256": sheet.sha256,
            "decisions": dict(sorted(decisions.items())), "changed_keys": changed,
            "dropped": dropped,
            "note": (f"Reviewed answer keys: {len(changed)} key(s) changed, {len(dropped)} "
                     f"item(s) left out, from version {card.version}.")}
        with DatasetWriter(out, overwrite, inputs=[dataset.root]) as writer:
            for rel in dict.fromkeys(p for i in kept for p in i.images):
                writer.copy_file(rel, dataset.image_path(rel).read_bytes())
            writer.add_items(kept)
            writer.private = carried(dataset.root)
            return writer.finish(name=card.name, suite=card.suite,
                                 version=next_version(card.version), generator=card.generator,
                                 seed=card.seed, counts={"review": dict(sorted(
                                     decisions.items()))},
                                 extra={**card.extra, NOTE: note})

    @staticmethod
    def _key(item: Item, row: SheetRow, problems: list[str]) -> str | None:
        """The row's key when its decision is ``edit`` (problems collected)."""
        cell = row.values["answer_key"]
        if row.decision == "accept" and cell.strip() != item.target.strip():
            problems.append(f"line {row.line}: changes the key of {item.id} but its decision is "
                            "'accept'; write 'edit' to apply the change")
            return None
        if row.decision != "edit":
            return None
        value, problem = key_problem(item, cell)
        if problem:
            problems.append(f"line {row.line}: {item.id}: {problem}")
        return value

    @staticmethod
    def _edited(item: Item, key: str, row: SheetRow, sheet: Sheet) -> Item:
        review = {"sheet": sheet.path.name, "sheet_sha256": sheet.sha256, "line": row.line,
                  "decision": "edit", "key": [item.target, key], "comment": row.comment}
        return replace(item, target=key, provenance={**item.provenance, "review": review})
