"""The C-VQA release table shared by C-VQA-Real and C-VQA-Synthetic.

Header ``img_path,query,answer,new query,new answer,type``; UTF-8 (a byte-order mark is
tolerated), LF line ends, standard CSV quoting. Each suite validates the cells of its own rows.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from whatifbench.core.csvtext import csv_text
from whatifbench.core.readfile import read_text
from whatifbench.errors import WhatifError

HEADER = ("img_path", "query", "answer", "new query", "new answer", "type")


def image_path_problem(name: str) -> str | None:
    """Why an ``img_path`` cannot name a file inside the images folder (``None`` when it can)."""
    parts = name.replace("\\", "/").split("/")
    if (not name or name.startswith(("/", "\\")) or ":" in name
            or any(p in ("", ".", "..") for p in parts)):
        return f"img_path {name!r} is not a file name inside the images folder"
    return None


def read_table(path: Path, release: str) -> tuple[list[tuple[int, list[str]]], str | None]:
    """The data rows of a release table with the line each starts on, and the CSV error that
    stopped the reading (``"line N: ..."``) if any. Empty rows are skipped.

    Raises ``WhatifError`` when the file cannot be read or its header is not ``HEADER``;
    ``release`` names the table in that message (``C-VQA-Real``, ``C-VQA-Synthetic``).
    """
    try:
        text = read_text(path, "utf-8-sig")
    except FileNotFoundError:
        raise WhatifError(f"The CSV file {path} does not exist; check the --csv path.") from None
    except IsADirectoryError:
        raise WhatifError(f"{path} is a folder; --csv takes the release's CSV file.") from None
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
            f"{path}:1: the header is {','.join(header)!r}; a {release} table starts with "
            f"{','.join(HEADER)!r}. Pass the release's {release} CSV."
        )
    rows: list[tuple[int, list[str]]] = []
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return rows, None
        except csv.Error as exc:
            return rows, f"line {start}: not valid CSV ({exc})"
        line, start = start, reader.line_num + 1
        if any(c.strip() for c in cells):
            rows.append((line, cells))


def table_text(rows: Sequence[Sequence[str]]) -> str:
    """The release CSV text for rows in ``HEADER`` order (header first, LF line ends; cells as
    given, quoted so that each reads back unchanged: ``core.csvtext``)."""
    return csv_text([HEADER, *rows])
