"""The C-VQA-Real release table (``img_path,query,answer,new query,new answer,type``).

Reading validates every row and reports all problems of the file at once, each with its line;
``pair_items`` turns one row into its original and counterfactual items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.dataset import problems_message
from whatifbench.core.item import Item
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.table import HEADER, image_path_problem, read_table

KIND = {"direct": "number", "indirect": "number", "boolean": "yes-no"}
"""Answer kind of each release type."""
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Row:
    """One validated row of the release table."""

    line: int
    """Line of the file where the row starts (the header is line 1)."""
    image: str
    """``img_path``: the COCO file name (``COCO_val2014_000000219916.jpg``)."""
    query: str
    """The original question, verbatim."""
    answer: str
    """The original answer: a digit string, or ``yes``/``no``."""
    new_query: str
    """The counterfactual question, verbatim."""
    new_answer: str
    """The counterfactual answer."""
    type: str
    """``direct``, ``indirect`` or ``boolean``."""


def answer_problem(group: str, answer: str) -> str | None:
    """Why ``answer`` is not valid for ``group`` (``None`` when it is)."""
    if group not in KIND:
        return f"type {group!r} is not one of {', '.join(KIND)}"
    if KIND[group] == "number" and not _DIGITS.fullmatch(answer):
        return f"answer {answer!r} is not a non-negative whole number (digits only)"
    if KIND[group] == "yes-no" and answer not in ("yes", "no"):
        return f"answer {answer!r} is not 'yes' or 'no'"
    return None


def read_release(path: Path) -> list[Row]:
    """Read and validate the release CSV; one ``WhatifError`` lists every problem."""
    cells_by_line, stopped = read_table(path, "C-VQA-Real")
    rows: list[Row] = []
    problems: list[str] = []
    for line, cells in cells_by_line:
        row, errs = _row(line, cells)
        problems += [f"line {line}: {e}" for e in errs]
        if row is not None:
            rows.append(row)
    if stopped:
        problems.append(stopped)
    if not rows and not problems:
        problems.append("the file has a header but no rows")
    if problems:
        raise WhatifError(problems_message(
            f"The C-VQA-Real table {path}", problems,
            "Fix these rows (columns: img_path,query,answer,new query,new answer,type; type one "
            "of direct, indirect, boolean) and run the import again.",
        ))
    return rows


def _row(line: int, cells: list[str]) -> tuple[Row | None, list[str]]:
    if len(cells) != len(HEADER):
        return None, [f"has {len(cells)} columns, expected {len(HEADER)} ({','.join(HEADER)})"]
    image, query, answer, new_query, new_answer, group = cells
    errs = []
    for name, value in (("query", query), ("new query", new_query)):
        if not value.strip():
            errs.append(f"column '{name}' is empty")
    bad_name = image_path_problem(image)
    if bad_name:
        errs.append(bad_name)
    if group not in KIND:
        errs.append(f"type {group!r} is not one of {', '.join(KIND)}")
    else:
        for name, value in (("answer", answer), ("new answer", new_answer)):
            why = answer_problem(group, value)
            if why:
                errs.append(f"column '{name}': {why} for type {group}")
    if errs:
        return None, errs
    return Row(line, image, query, answer, new_query, new_answer, group), []


def pair_items(pair_id: str, image_rel: str, group: str, question: str, answer: str,
               new_question: str, new_answer: str, meta: dict[str, Any],
               provenance: dict[str, Any]) -> tuple[Item, Item]:
    """The original and counterfactual items of one C-VQA-Real pair."""
    kind = KIND[group]
    shared: dict[str, Any] = {"images": (image_rel,), "kind": kind, "pair_id": pair_id,
                              "group": group}
    return (Item(id=f"{pair_id}-ori", question=question, target=answer, role="original",
                 meta=dict(meta), provenance=dict(provenance), **shared),
            Item(id=f"{pair_id}-cf", question=new_question, target=new_answer,
                 role="counterfactual", meta=dict(meta), provenance=dict(provenance), **shared))
