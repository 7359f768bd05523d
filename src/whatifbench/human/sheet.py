"""Crowd sheets: a CSV or JSONL file of answers (``item_id``, ``annotator``, ``answer``, optional
``seconds``; other columns, such as a Prolific or MTurk export's, are ignored), read and checked
against the dataset. Each answer must be readable by the suite's own parser, as a model's reply.

The sheet is read as a stream, one row at a time, keeping only the four columns we use: memory
grows with the answers kept, not with the sheet (ignored columns, unknown items and skipped rows
are counted, and only the first few named). JSON Lines are split at ``\\n`` only, so a
U+2028 or U+0085 inside an answer stays in its line.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from whatifbench.core.csvtext import from_spreadsheet
from whatifbench.core.dataset import MAX_LISTED, Dataset
from whatifbench.core.jsonfile import loads, lone_surrogate
from whatifbench.core.readfile import open_regular
from whatifbench.errors import WhatifError
from whatifbench.human.present import Presenter
from whatifbench.human.records import NAME, Answer, shown
from whatifbench.human.store import MAX_SECONDS

COLUMNS = ("item_id", "annotator", "answer")
"""Required columns (keys of a JSONL line)."""
OPTIONAL = ("seconds",)
USED = (*COLUMNS, *OPTIONAL)
JSONL = (".jsonl", ".json", ".ndjson")
HINT = ("a JSONL sheet has one object per line with item_id, annotator, answer (and optionally "
        "seconds)")


@dataclass(frozen=True)
class SheetAnswers:
    """The answers a sheet holds and the rows that were skipped."""

    answers: tuple[Answer, ...]
    """Every valid answer, in sheet order."""
    skipped: tuple[str, ...]
    """``file:line: problem`` of the first invalid rows (only with ``skip_invalid``; at most
    ``MAX_LISTED``, ``n_skipped`` counts them all)."""
    n_skipped: int = 0
    """How many rows were skipped in all."""


def _open(path: Path) -> IO[bytes]:
    try:
        return open_regular(path)
    except FileNotFoundError:
        raise WhatifError(f"The sheet {path} does not exist; check the path.") from None
    except IsADirectoryError:
        raise WhatifError(f"The sheet {path} is a folder; pass a .csv or .jsonl file.") from None
    except OSError as exc:
        raise WhatifError(f"Cannot read the sheet {path} ({exc.strerror or exc}).") from None


def _not_utf8(path: Path, line: int | str, exc: UnicodeDecodeError) -> WhatifError:
    return WhatifError(f"The sheet {path}:{line} is not UTF-8 text ({exc.reason} at byte "
                       f"{exc.start} of the line); save it as UTF-8.")


def _jsonl_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, the used keys) of each non-empty line, split at ``\\n`` only; a line that is not a
    JSON object raises."""
    with _open(path) as handle:
        for lineno, raw in enumerate(handle, start=1):
            if lineno == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, lineno, exc) from None
            if not line.strip():
                continue
            try:
                obj = loads(line)
            except json.JSONDecodeError as exc:
                raise WhatifError(f"{path}:{lineno} is not valid JSON ({exc.msg} at column "
                                  f"{exc.colno}); {HINT}.") from None
            bad = lone_surrogate(line, obj)
            if bad:
                raise WhatifError(f"{path}:{lineno} {bad}.")
            if not isinstance(obj, dict):
                raise WhatifError(f"{path}:{lineno} is not a JSON object; {HINT}.")
            yield lineno, {k: obj[k] for k in USED if k in obj}


def _header(path: Path, names: list[str]) -> dict[str, int]:
    """The column of each used name; a missing required or a repeated used column raises."""
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise WhatifError(f"{path}:1 lacks the column(s) {', '.join(missing)}; a crowd sheet "
                          f"has the columns {', '.join(COLUMNS)} (and optionally seconds). "
                          "Rename your export's columns, or pass a .jsonl file.")
    twice = [c for c in USED if names.count(c) > 1]
    if twice:
        where = "; ".join(f"{c!r} in columns "
                          f"{', '.join(str(k + 1) for k, n in enumerate(names) if n == c)}"
                          for c in twice)
        raise WhatifError(f"{path}:1 has the same column more than once ({where}), so which "
                          "one holds the answers is unclear. Rename or remove the others.")
    return {c: names.index(c) for c in USED if c in names}


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, the used cells) of each non-empty row (only those cells are kept)."""
    with _open(path) as raw, io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text:
        reader = csv.reader(text)
        start = 1
        try:
            names = [n.strip() for n in next(reader, [])]
            columns = _header(path, names)
            start = reader.line_num + 1
            for record in reader:
                line, start = start, reader.line_num + 1
                if not any(c.strip() for c in record):
                    continue
                yield line, {c: from_spreadsheet(record[k]) if k < len(record) else None
                             for c, k in columns.items()}
        except csv.Error as exc:
            raise WhatifError(f"{path}:{start} is not readable CSV ({exc}).") from None
        except UnicodeDecodeError as exc:
            raise _not_utf8(path, f"{start} or after", exc) from None


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) of each non-empty row; a header or syntax problem raises."""
    return _jsonl_rows(path) if path.suffix.lower() in JSONL else _csv_rows(path)


def check_seconds(value: Any) -> tuple[float | None, str | None]:
    """The seconds of a sheet row (``None`` when empty), or why they are unusable: not a
    number, negative, or more than ``MAX_SECONDS`` (the app records at most that)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None, f"seconds {shown(value)} is not a number"
    try:
        seconds = float(value)  # a numeral too long for a float is inf, not an error
    except ValueError:
        return None, f"seconds {shown(value)} is not a number"
    except OverflowError:  # an integer beyond the float range (JSON allows any)
        seconds = math.inf if isinstance(value, int) and value > 0 else -math.inf
    if math.isnan(seconds) or seconds < 0:
        return None, f"seconds {shown(value)} is not a non-negative number"
    if seconds > MAX_SECONDS:
        return None, (f"seconds {shown(value)} is more than {MAX_SECONDS:.0f} (an hour on one "
                      f"item; the app records at most {MAX_SECONDS:.0f}): write "
                      f"{MAX_SECONDS:.0f} or less, or leave it empty")
    return seconds, None


class _Problems:
    """The problems of a sheet: counted all, the first ``MAX_LISTED`` kept."""

    def __init__(self) -> None:
        self.first: list[str] = []
        self.count = 0

    def add(self, text: str) -> None:
        self.count += 1
        if len(self.first) < MAX_LISTED:
            self.first.append(text)

    def message(self, path: Path, fix: str) -> str:
        """One message: the count, the first problems, ``fix`` (as ``problems_message``)."""
        lines = [f"{path} has {self.count} problem{'s' if self.count != 1 else ''}:"]
        lines += [f"  - {p}" for p in self.first]
        if self.count > len(self.first):
            lines.append(f"  ... and {self.count - len(self.first)} more.")
        return "\n".join([*lines, fix])


def read_sheet(path: str | Path, dataset: Dataset, skip_invalid: bool = False) -> SheetAnswers:
    """The answers of a crowd sheet for ``dataset``. Unknown items, bad annotator names,
    duplicate answers of one annotator to one item, answers the suite's parser cannot read and
    bad seconds are all listed in one error with file:line (or skipped and counted, with
    ``skip_invalid``)."""
    path = Path(path)
    presenter = Presenter(dataset)
    items = presenter.items
    seen: dict[tuple[str, str], int] = {}
    answers: list[Answer] = []
    problems = _Problems()
    for line, row in _rows(path):
        where = f"{path}:{line}"
        item_id, annotator, reply = (row.get(c) for c in COLUMNS)
        found = [f"{name} is missing" for name, value in
                 (("item_id", item_id), ("annotator", annotator), ("answer", reply))
                 if not isinstance(value, (str, int, float)) or isinstance(value, bool)]
        if found:
            problems.add(f"{where}: {', '.join(found)}")
            continue
        item_id, annotator, reply = str(item_id).strip(), str(annotator).strip(), str(reply)
        if item_id not in items:
            problems.add(f"{where}: item {shown(item_id)} is not in the dataset {dataset.root}")
            continue
        if not NAME.fullmatch(annotator):
            problems.add(f"{where}: annotator {shown(annotator)} is not a usable name (1-64 "
                         "letters, digits, '_', '.', '@' or '-')")
            continue
        seconds, bad = check_seconds(row.get("seconds"))
        if bad:
            problems.add(f"{where}: {bad}")
            continue
        first = seen.get((annotator, item_id))
        if first is not None:
            problems.add(f"{where}: annotator {annotator} answered item {item_id} already on "
                         f"line {first}")
            continue
        if not presenter.readable(item_id, reply.strip()):
            item = items[item_id]
            expected = (f"one of the letters or options {list(item.choices)}"
                        if item.kind == "choice" else
                        {"yes-no": "yes or no", "number": "a number"}.get(item.kind, "a text"))
            problems.add(f"{where}: answer {shown(reply)} to item {item_id} cannot be read by "
                         f"the {dataset.suite} parser (expected {expected})")
            continue
        seen[(annotator, item_id)] = line
        answers.append(Answer(annotator, item_id, reply.strip(), seconds, False, line))
    if problems.count and not skip_invalid:
        raise WhatifError(problems.message(
            path, "Fix these rows, or pass --skip-invalid to import the others (the skipped "
            "rows are counted, the first ones listed)."))
    if not answers:
        raise WhatifError(f"{path} holds no usable answer for {dataset.root}.")
    return SheetAnswers(tuple(answers), tuple(problems.first), problems.count)
