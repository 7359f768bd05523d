"""The C-VQA-Synthetic release format: ``questions.csv`` with one row per image.

Header ``img_path,query,answer,new query,new answer,type``; ``query`` and ``new query`` end
with `` Select the correct answer:A:18  B:23  C:21  D:19``; answers are letters; ``type`` is
``abs_counting_1`` … ``abs_counting_6``. UTF-8, LF line ends, standard CSV quoting.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa_synthetic.options import LETTERS, OPTIONS_RE

HEADER = ("img_path", "query", "answer", "new query", "new answer", "type")
TYPES = tuple(f"abs_counting_{k}" for k in range(1, 7))
FORMAT_HINT = ("Each row needs: img_path, query, answer (A-D), new query, new answer (A-D), "
               "type (abs_counting_1 ... abs_counting_6); each query ends with "
               "' Select the correct answer:A:<n>  B:<n>  C:<n>  D:<n>'.")


@dataclass(frozen=True)
class Row:
    """One validated row of the release CSV."""

    line: int
    """Line number in the file where the row starts (the header is line 1)."""
    img_path: str
    """Image file name (relative to the images folder)."""
    query: str
    """Original question with its options, verbatim."""
    answer: str
    """Correct letter of the original question."""
    new_query: str
    """Counterfactual question with its options, verbatim."""
    new_answer: str
    """Correct letter of the counterfactual question."""
    type: str
    """``abs_counting_1`` … ``abs_counting_6``."""

    @property
    def pair_id(self) -> str:
        """The image path without its extension (``abs_counting_000001``)."""
        return self.img_path.rsplit(".", 1)[0] if "." in self.img_path else self.img_path

    def fields(self) -> tuple[str, ...]:
        """The six CSV fields in header order."""
        return (self.img_path, self.query, self.answer, self.new_query, self.new_answer,
                self.type)


def options(query: str) -> tuple[str, ...] | None:
    """The four option values of a release question, or ``None`` if it has no valid list."""
    match = OPTIONS_RE.search(query)
    return tuple(match.groups()) if match else None


def option_problems(query: str, column: str) -> list[str]:
    """Why a question's option list is not in the release format (empty when it is)."""
    values = options(query)
    if values is None:
        tail = query[-60:]
        return [(f"'{column}' does not end with ' Select the correct answer:A:<n>  B:<n>  "
                 f"C:<n>  D:<n>' (it ends with {tail!r})")]
    problems = []
    if not all(v.isdigit() for v in values):
        problems.append(f"'{column}' options {list(values)} are not all non-negative integers")
    elif len(set(values)) != 4:
        problems.append(f"'{column}' options {list(values)} are not four distinct values")
    return problems


def safe_path(img_path: str) -> bool:
    """A relative path that stays inside the images folder."""
    parts = img_path.replace("\\", "/").split("/")
    return bool(img_path) and not img_path.startswith(("/", "\\")) and ".." not in parts \
        and ":" not in img_path


def read_rows(path: Path) -> tuple[list[Row], list[str], list[str]]:
    """The valid rows of a release CSV, the problems found (each naming ``file:line``) and
    every usable image path it lists (also those of rows with other problems)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise WhatifError(f"The CSV file {path} does not exist; check the --csv path.") from None
    except IsADirectoryError:
        raise WhatifError(f"{path} is a folder; --csv needs the questions CSV file.") from None
    except UnicodeDecodeError as exc:
        raise WhatifError(f"{path} is not UTF-8 text ({exc}); save it as UTF-8.") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise WhatifError(f"{path}:1: the header is not valid CSV ({exc}).") from None
    if header is None:
        raise WhatifError(f"{path} is empty; it needs the header {','.join(HEADER)} and rows.")
    if tuple(h.strip() for h in header) != HEADER:
        raise WhatifError(
            f"{path}:1: the header is {','.join(header)!r}; expected {','.join(HEADER)!r} "
            "(the C-VQA-Synthetic release format).")
    rows: list[Row] = []
    problems: list[str] = []
    listed: list[str] = []
    seen: dict[str, int] = {}
    start = reader.line_num + 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(f"{path}:{start}: not valid CSV ({exc})")
            break
        line, start = start, reader.line_num + 1
        if not any(f.strip() for f in fields):
            continue
        errs = _row_problems(fields)
        if fields and safe_path(fields[0]) and fields[0] not in listed:
            listed.append(fields[0])
        if not errs and fields[0] in seen:
            errs = [f"image {fields[0]!r} is listed twice (first on line {seen[fields[0]]})"]
        if errs:
            problems += [f"{path}:{line}: {e}" for e in errs]
            continue
        seen[fields[0]] = line
        rows.append(Row(line, *fields))
    if not rows and not problems:
        problems.append(f"{path} has a header but no rows")
    return rows, problems, listed


def _row_problems(fields: list[str]) -> list[str]:
    if len(fields) != len(HEADER):
        return [f"expected {len(HEADER)} fields, found {len(fields)}"]
    img_path, query, answer, new_query, new_answer, kind = fields
    problems = []
    if not safe_path(img_path):
        problems.append(f"img_path {img_path!r} must be a file name inside the images folder")
    problems += option_problems(query, "query") + option_problems(new_query, "new query")
    for name, value in (("answer", answer), ("new answer", new_answer)):
        if value not in LETTERS:
            problems.append(f"'{name}' is {value!r}; use one of A, B, C, D")
    if kind not in TYPES:
        problems.append(f"'type' is {kind!r}; use one of {', '.join(TYPES)}")
    return problems


def csv_text(rows: list[tuple[str, ...]]) -> str:
    """The CSV text (header first) with LF line ends and standard quoting."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return buf.getvalue()
