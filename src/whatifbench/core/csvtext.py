"""CSV text we write: standard quoting that survives every cell, and sheets safe to open.

**Quoting.** Python's ``csv.writer`` with ``lineterminator="\\n"`` leaves a lone carriage return
inside a cell unquoted, so the file no longer reads back (the cell splits the row). Here a cell
is quoted when it holds a comma, a double quote, ``\\r`` or ``\\n`` (or U+2028, U+2029, U+0085,
which line readers built on ``str.splitlines`` take for line ends), and otherwise written as is:
for cells without those the bytes are exactly those of ``csv.writer`` (release-format exports
stay byte-faithful), and every cell reads back unchanged.

**Spreadsheet formula injection.** A cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return is run as a formula by Excel, LibreOffice and Google Sheets. Sheets meant to be
opened in a spreadsheet (review sheets) write such cells behind a single quote ``'``, which
spreadsheets show as text and drop when saving; ``from_spreadsheet`` removes it again on import.
Machine formats (the release CSVs, the CFMM CSV) are written verbatim: they are read by programs,
and changing them would break byte-faithful round trips.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP's list)."""
_SPECIAL = (",", '"', "\r", "\n", "\u2028", "\u2029", "\u0085")
_FORMULA = re.compile("'*[" + re.escape("".join(FORMULA_START)) + "]")


def csv_field(value: str) -> str:
    """One cell: quoted (quotes doubled) when it holds a comma, quote or line break."""
    if any(c in value for c in _SPECIAL):
        return '"' + value.replace('"', '""') + '"'
    return value


def csv_line(cells: Sequence[str]) -> str:
    """One row with its LF line end (a lone empty cell is written ``""``, as ``csv`` does)."""
    if len(cells) == 1 and cells[0] == "":
        return '""\n'
    return ",".join(csv_field(c) for c in cells) + "\n"


def csv_text(rows: Iterable[Sequence[str]], *, spreadsheet: bool = False) -> str:
    """Rows as CSV text; ``spreadsheet`` neutralises formula cells (see the module)."""
    if spreadsheet:
        return "".join(csv_line([to_spreadsheet(c) for c in row]) for row in rows)
    return "".join(csv_line(row) for row in rows)


def to_spreadsheet(value: str) -> str:
    """A cell a spreadsheet shows as the text ``value`` (never runs it as a formula): a ``'``
    goes before a formula character, also after quotes already there, so that
    ``from_spreadsheet`` gives back exactly ``value``."""
    return "'" + value if _FORMULA.match(value) else value


def from_spreadsheet(value: str) -> str:
    """Undo ``to_spreadsheet`` for a cell read back from a sheet (one ``'`` before a formula
    character is removed; spreadsheets that already dropped it change nothing)."""
    return value[1:] if value.startswith("'") and _FORMULA.match(value) else value
