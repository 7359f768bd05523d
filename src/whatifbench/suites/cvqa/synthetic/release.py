"""The C-VQA-Synthetic release format: ``questions.csv`` with one row per image.

Header ``img_path,query,answer,new query,new answer,type``; ``query`` and ``new query`` end
with `` Select the correct answer:A:18  B:23  C:21  D:19``; answers are letters; ``type`` is
``abs_counting_1`` … ``abs_counting_6``. UTF-8, LF line ends, standard CSV quoting.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from whatifbench.suites.cvqa.synthetic.options import LETTERS, OPTIONS_RE
from whatifbench.suites.cvqa.table import HEADER, image_path_problem, read_table

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


def read_rows(path: Path) -> tuple[list[Row], list[str], list[str]]:
    """The valid rows of a release CSV, the problems found (each naming ``file:line``) and
    every usable image path it lists (also those of rows with other problems)."""
    cells_by_line, stopped = read_table(path, "C-VQA-Synthetic")
    rows: list[Row] = []
    problems: list[str] = []
    listed: list[str] = []
    seen: dict[str, int] = {}
    for line, fields in cells_by_line:
        errs = _row_problems(fields)
        if image_path_problem(fields[0]) is None and fields[0] not in listed:
            listed.append(fields[0])
        if not errs and fields[0] in seen:
            errs = [f"image {fields[0]!r} is listed twice (first on line {seen[fields[0]]})"]
        if errs:
            problems += [f"{path}:{line}: {e}" for e in errs]
            continue
        seen[fields[0]] = line
        rows.append(Row(line, *fields))
    if stopped:
        problems.append(f"{path}:{stopped.removeprefix('line ')}")
    if not rows and not problems:
        problems.append(f"{path} has a header but no rows")
    return rows, problems, listed


def _row_problems(fields: list[str]) -> list[str]:
    if len(fields) != len(HEADER):
        return [f"expected {len(HEADER)} fields, found {len(fields)}"]
    img_path, query, answer, new_query, new_answer, kind = fields
    problems = []
    bad_path = image_path_problem(img_path)
    if bad_path:
        problems.append(bad_path)
    problems += option_problems(query, "query") + option_problems(new_query, "new query")
    for name, value in (("answer", answer), ("new answer", new_answer)):
        if value not in LETTERS:
            problems.append(f"'{name}' is {value!r}; use one of A, B, C, D")
    if kind not in TYPES:
        problems.append(f"'type' is {kind!r}; use one of {', '.join(TYPES)}")
    return problems
