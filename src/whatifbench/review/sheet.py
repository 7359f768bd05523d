"""Review sheets as CSV: written from ``ReviewRow``s, read back with every problem listed."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from whatifbench.core.csvtext import csv_text, from_spreadsheet
from whatifbench.core.dataset import problems_message
from whatifbench.core.fsutil import sha256_bytes
from whatifbench.core.readfile import read_bytes
from whatifbench.errors import WhatifError
from whatifbench.review.base import (
    COMMENT,
    DECISION,
    DECISIONS,
    KEY,
    Reviewer,
    ReviewRow,
    Sheet,
    SheetRow,
)


def header(reviewer: Reviewer) -> list[str]:
    """``key, decision, <reviewer columns>, comment``."""
    return [KEY, DECISION, *(c.name for c in reviewer.columns), COMMENT]


def sheet_csv(reviewer: Reviewer, rows: Sequence[ReviewRow]) -> str:
    """The CSV text of a sheet (LF line ends, minimal quoting), safe to open in a spreadsheet:
    cells that would run as formulas are written behind a ``'`` (``core.csvtext``), which
    ``read_sheet`` removes."""
    lines = [header(reviewer)]
    lines += [[row.key, row.decision, *(row.values.get(c.name, "") for c in reviewer.columns),
               ""] for row in rows]
    return csv_text(lines, spreadsheet=True)


def read_sheet(path: Path, reviewer: Reviewer, keys: Sequence[str]) -> Sheet:
    """Read a filled-in sheet; check the header, decisions and that each key appears once."""
    try:
        data = read_bytes(path)
        text = data.decode("utf-8-sig")
    except FileNotFoundError:
        raise WhatifError(f"The review sheet {path} does not exist; check the path.") from None
    except UnicodeDecodeError as exc:
        raise WhatifError(f"The review sheet {path} is not UTF-8 text ({exc}); save it as UTF-8 "
                          "CSV.") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    wanted = header(reviewer)
    missing = [c for c in wanted if c not in (reader.fieldnames or [])]
    if missing:
        raise WhatifError(f"{path}:1 lacks the column(s) {', '.join(missing)}; a review sheet has "
                          f"the columns {','.join(wanted)}. Start from 'whatif review export'.")
    known = set(keys)
    seen: dict[str, int] = {}
    rows: list[SheetRow] = []
    problems: list[str] = []
    start = reader.line_num + 1
    try:
        for record in reader:
            line, start = start, reader.line_num + 1
            cells = {k: from_spreadsheet(v or "") for k, v in record.items()
                     if isinstance(k, str)}
            if not any(v.strip() for v in cells.values()):
                continue
            decision = cells[DECISION].strip().lower()
            key = cells[KEY].strip()
            if decision not in DECISIONS:
                problems.append(f"line {line}: decision {cells[DECISION]!r} is not one of "
                                f"{', '.join(DECISIONS)}")
                continue
            if decision != "new":
                if key not in known:
                    problems.append(f"line {line}: key {key!r} is not in the dataset (use "
                                    "decision 'new' for a row you added)")
                    continue
                if key in seen:
                    problems.append(f"line {line}: key {key!r} already appears on line "
                                    f"{seen[key]}")
                    continue
                seen[key] = line
            values = {c.name: cells[c.name] for c in reviewer.columns}
            rows.append(SheetRow(line, key, decision, values, cells[COMMENT]))
    except csv.Error as exc:
        problems.append(f"line {reader.line_num}: not valid CSV ({exc})")
    absent = [k for k in keys if k not in seen]
    if absent and not problems:
        problems.append(f"{len(absent)} unit(s) of the dataset have no row: "
                        f"{', '.join(absent[:5])}{' …' if len(absent) > 5 else ''}")
    if problems:
        raise WhatifError(problems_message(
            f"The review sheet {path}", problems,
            "Fix these rows (each unit once, with a decision among accept, edit, reject, new) "
            "and import again."))
    return Sheet(Path(path), sha256_bytes(data), tuple(rows))
