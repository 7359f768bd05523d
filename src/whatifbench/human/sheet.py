"""Crowd sheets: a CSV or JSONL file of answers (``item_id``, ``annotator``, ``answer``, optional
``seconds``; other columns, such as a Prolific or MTurk export's, are ignored), read and checked
against the dataset. Each answer must be readable by the suite's own parser, as a model's reply."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.csvtext import from_spreadsheet
from whatifbench.core.dataset import Dataset, jsonl_records, problems_message
from whatifbench.errors import WhatifError
from whatifbench.human.present import Presenter
from whatifbench.human.records import NAME, Answer

COLUMNS = ("item_id", "annotator", "answer")
"""Required columns (keys of a JSONL line)."""
OPTIONAL = ("seconds",)


@dataclass(frozen=True)
class SheetAnswers:
    """The answers a sheet holds and the rows that were skipped."""

    answers: tuple[Answer, ...]
    """Every valid answer, in sheet order."""
    skipped: tuple[str, ...]
    """``file:line: problem`` of each invalid row (only with ``skip_invalid``)."""


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) of each non-empty row; a header or syntax problem raises."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise WhatifError(f"The sheet {path} does not exist; check the path.") from None
    except UnicodeDecodeError as exc:
        raise WhatifError(f"The sheet {path} is not UTF-8 text ({exc}); save it as UTF-8.") \
            from None
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        for line, obj in jsonl_records(path, text, "a JSONL sheet has one object per line "
                                       "with item_id, annotator, answer (and optionally "
                                       "seconds)"):
            if not isinstance(obj, dict):
                raise WhatifError(f"{path}:{line} is not a JSON object; a JSONL sheet has one "
                                  "object per line with item_id, annotator, answer.")
            yield line, obj
        return
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise WhatifError(f"{path}:1 lacks the column(s) {', '.join(missing)}; a crowd sheet "
                          f"has the columns {', '.join(COLUMNS)} (and optionally seconds). "
                          "Rename your export's columns, or pass a .jsonl file.")
    start = reader.line_num + 1
    try:
        for record in reader:
            line, start = start, reader.line_num + 1
            cells = {k: from_spreadsheet(v or "") for k, v in record.items() if isinstance(k, str)}
            if any(v.strip() for v in cells.values()):
                yield line, cells
    except csv.Error as exc:
        raise WhatifError(f"{path}:{start} is not readable CSV ({exc}).") from None


def _seconds(value: Any) -> tuple[float | None, str | None]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None, f"seconds {value!r} is not a number"
    if isinstance(value, bool) or not math.isfinite(seconds) or seconds < 0:
        return None, f"seconds {value!r} is not a non-negative number"
    return seconds, None


def read_sheet(path: str | Path, dataset: Dataset, skip_invalid: bool = False) -> SheetAnswers:
    """The answers of a crowd sheet for ``dataset``. Unknown items, bad annotator names,
    duplicate answers of one annotator to one item, answers the suite's parser cannot read and
    bad seconds are all listed in one error with file:line (or skipped and listed, with
    ``skip_invalid``)."""
    path = Path(path)
    presenter = Presenter(dataset)
    items = presenter.items
    seen: dict[tuple[str, str], int] = {}
    answers: list[Answer] = []
    problems: list[str] = []
    for line, row in _rows(path):
        where = f"{path}:{line}"
        item_id, annotator, reply = (row.get(c) for c in COLUMNS)
        found = []
        for name, value in (("item_id", item_id), ("annotator", annotator), ("answer", reply)):
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                found.append(f"{name} is missing")
        if found:
            problems.append(f"{where}: {', '.join(found)}")
            continue
        item_id, annotator, reply = str(item_id).strip(), str(annotator).strip(), str(reply)
        if item_id not in items:
            problems.append(f"{where}: item {item_id!r} is not in the dataset {dataset.root}")
            continue
        if not NAME.fullmatch(annotator):
            problems.append(f"{where}: annotator {annotator!r} is not a usable name (1-64 "
                            "letters, digits, '_', '.', '@' or '-')")
            continue
        seconds, bad = _seconds(row.get("seconds"))
        if bad:
            problems.append(f"{where}: {bad}")
            continue
        first = seen.get((annotator, item_id))
        if first is not None:
            problems.append(f"{where}: annotator {annotator} answered item {item_id} already "
                            f"on line {first}")
            continue
        if not presenter.readable(item_id, reply.strip()):
            item = items[item_id]
            expected = (f"one of the letters or options {list(item.choices)}"
                        if item.kind == "choice" else
                        {"yes-no": "yes or no", "number": "a number"}.get(item.kind, "a text"))
            problems.append(f"{where}: answer {reply!r} to item {item_id} cannot be read by the "
                            f"{dataset.suite} parser (expected {expected})")
            continue
        seen[(annotator, item_id)] = line
        answers.append(Answer(annotator, item_id, reply.strip(), seconds, False, line))
    if problems and not skip_invalid:
        raise WhatifError(problems_message(
            str(path), problems, "Fix these rows, or pass --skip-invalid to import the others "
            "(the skipped rows are listed)."))
    if not answers:
        raise WhatifError(f"{path} holds no usable answer for {dataset.root}.")
    return SheetAnswers(tuple(answers), tuple(problems))
