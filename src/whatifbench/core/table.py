"""A small table record rendered as aligned text, Markdown or HTML.

Cells are display strings or ``Cell``s: numbers that carry their 95 % interval, their count
and, for a counterfactual column, the change Δ = counterfactual − original with its McNemar
p-value. Text output shows the value (and Δ); Markdown, HTML, LaTeX and the page add the
interval: ``±`` half its width when it is centred on the value, else its ends (``100.0 [61.0,
100.0]``: honest intervals at 0 and 100 % are not symmetric).
The count ``n`` is shown once when every cell shares it, under the column (or its span) when
the column shares it, and in the cell when it varies down a column.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

SIGNIFICANT = 0.05
"""Changes with an exact McNemar p-value below this are marked ``*``."""


@dataclass(frozen=True)
class Cell:
    """A number with the facts a reader needs to judge it."""

    value: float | None
    """The number (``None``: nothing to show, rendered ``–``)."""
    digits: int = 1
    """Decimals shown."""
    ci: tuple[float, float] | None = None
    """95 % interval of ``value``."""
    n: int | None = None
    """How many units (pairs or items) the value is computed over."""
    delta: float | None = None
    """Change Δ = counterfactual − original, shown in parentheses after the value."""
    delta_ci: tuple[float, float] | None = None
    """95 % interval of ``delta``."""
    p: float | None = None
    """Exact McNemar p-value of ``delta``."""

    @property
    def significant(self) -> bool:
        """Δ is marked: its p-value is below ``SIGNIFICANT``."""
        return self.p is not None and self.p < SIGNIFICANT

    @property
    def half_width(self) -> float | None:
        """Half the width of the interval (the ``±`` figure)."""
        return None if self.ci is None else (self.ci[1] - self.ci[0]) / 2

    @property
    def centred(self) -> bool:
        """The interval is (nearly) centred on the value, so ``±`` half its width says it: each
        side within a tenth of the half width (and of one shown digit) of the other."""
        if self.ci is None or self.value is None:
            return False
        below, above = self.value - self.ci[0], self.ci[1] - self.value
        return abs(below - above) <= max(0.1 * (below + above) / 2, 10.0 ** -self.digits)

    def interval_text(self) -> str:
        """``±2.3`` for a centred interval, ``[61.0, 100.0]`` for another; empty without one."""
        if self.ci is None or self.value is None:
            return ""
        if self.centred:
            return f"±{fixed(self.half_width or 0.0, self.digits)}"
        return f"[{fixed(self.ci[0], self.digits)}, {fixed(self.ci[1], self.digits)}]"

    def render(self, pm: bool = False, n: bool = False) -> str:
        """``62.1``, ``62.1 ±2.3``, ``100.0 [61.0, 100.0]``, ``48.0 (-14.1*)``, ``100.0 n=1``
        ..."""
        text = fmt(self.value, self.digits)
        if pm and self.ci is not None and self.value is not None:
            text += f" {self.interval_text()}"
        if self.delta is not None:
            text += f" ({signed(self.delta, self.digits)}{'*' if self.significant else ''})"
        if n and self.n is not None:
            text += f" n={self.n}"
        return text

    def to_json(self) -> dict[str, object]:
        """The cell for the explorer page."""
        out: dict[str, object] = {"v": self.value, "d": self.digits}
        for key, value in (("ci", self.ci), ("n", self.n), ("dv", self.delta),
                           ("dci", self.delta_ci), ("p", self.p)):
            if value is not None:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class Table:
    """Rows of strings or cells under a header, with an optional grouped header line above."""

    title: str
    """Caption (e.g. ``C-VQA-Synthetic (Table 7 layout)``)."""
    columns: tuple[str, ...]
    """Column headers."""
    rows: tuple[tuple[str | Cell, ...], ...]
    """Cells: display strings or ``Cell``s (the first column names the row)."""
    groups: tuple[tuple[str, int], ...] = ()
    """Optional spanning header: (label, number of columns) left to right."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Lines printed under the table."""
    unit: str = "items"
    """What ``Cell.n`` counts (``pairs``, ``items``), for the n annotations."""
    reference_rows: int = 0
    """The last rows are this many reference rows (chance, blind: ``report.reference``), not
    runs; the page sets them apart."""

    # -- n annotations -------------------------------------------------------------------------
    def _column_ns(self) -> dict[int, set[int]]:
        found: dict[int, set[int]] = {}
        for row in self.rows[:len(self.rows) - self.reference_rows]:
            for i, cell in enumerate(row):
                if isinstance(cell, Cell) and cell.n is not None:
                    found.setdefault(i, set()).add(cell.n)
        return found

    def n_in_cells(self) -> set[int]:
        """Columns whose cells show their own n (it varies down the column)."""
        return {i for i, ns in self._column_ns().items() if len(ns) > 1}

    def headers(self) -> tuple[list[tuple[str, int]], list[str], tuple[str, ...]]:
        """Span labels, column names and notes with the n annotations added."""
        ns = self._column_ns()
        spans = list(self.groups)
        names = list(self.columns)
        every = set().union(*ns.values()) if ns else set()
        if len(every) == 1:
            return spans, names, (*self.notes, f"n = {every.pop()} {self.unit} per value.")
        uniform = {i: next(iter(s)) for i, s in ns.items() if len(s) == 1}
        start = 0
        for k, (label, width) in enumerate(spans):
            members = range(start, start + width)
            shared = {uniform.get(i) for i in members if i in ns}
            if label and len(shared) == 1 and None not in shared and all(
                    i in uniform for i in members if i in ns):
                spans[k] = (f"{label} (n={shared.pop()})", width)
                for i in members:
                    uniform.pop(i, None)
            start += width
        for i, n in uniform.items():
            names[i] = f"{names[i]} (n={n})"
        return spans, names, self.notes

    def text_rows(self, pm: bool = False) -> list[tuple[str, ...]]:
        """Every row as the strings shown (``pm``: with ``±``)."""
        varying = self.n_in_cells()
        return [tuple(c.render(pm, i in varying) if isinstance(c, Cell) else c
                      for i, c in enumerate(row)) for row in self.rows]

    # -- renderers -----------------------------------------------------------------------------
    def to_text(self, width: int | None = None) -> str:
        """Aligned plain text for the terminal; wider than ``width`` → split into blocks of
        column groups, each repeating the first column, whose names are wrapped when they
        would take more than three fifths of ``width``."""
        spans, names, notes = self.headers()
        rows = self.text_rows()
        widths = [len(c) for c in names]
        for row in rows:
            widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
        head: list[list[str]] = [[row[0]] for row in rows]  # the first column's lines per row
        if width and len(widths) > 1 and widths[0] > width * 3 // 5:
            widths[0] = max(len(names[0]), width * 3 // 5)
            head = [textwrap.wrap(row[0], widths[0], break_on_hyphens=False) or [""]
                    for row in rows]
        if not spans:
            spans = [("", 1) for _ in names]
        start = 0
        for label, n in spans:  # widen a span's last column so its label fits
            span = sum(widths[start:start + n]) + 2 * (n - 1)
            if n and len(label) > span:
                widths[start + n - 1] += len(label) - span
            start += n
        blocks = _blocks(spans, widths, width)
        lines = [self.title]
        for b, block in enumerate(blocks):
            if b:
                lines.append("")
            cols = [i for k in block for i in _span_columns(spans, k)]
            if any(spans[k][0] for k in block):
                parts = []
                for k in block:
                    idx = _span_columns(spans, k)
                    w = sum(widths[i] for i in idx) + 2 * (len(idx) - 1)
                    parts.append(spans[k][0].center(w)[:w] if w else "")
                lines.append("  ".join(parts).rstrip())
            lines.append("  ".join(names[i].ljust(widths[i]) for i in cols).rstrip())
            lines.append("  ".join("-" * widths[i] for i in cols))
            for row, first in zip(rows, head, strict=True):
                lines.append("  ".join(first[0].ljust(widths[i]) if i == 0
                                       else row[i].rjust(widths[i]) for i in cols).rstrip())
                lines += [more for more in first[1:]]
        for note in notes:
            lines += textwrap.wrap(note, width) if width and len(note) > width else [note]
        return "\n".join(lines)

    def flat_columns(self, annotated: bool = True) -> list[str]:
        """Column names with their span label folded in (``abs_counting_1 orig``);
        ``annotated``: with the n annotations of ``headers``."""
        spans, names, _ = (self.headers() if annotated
                           else (list(self.groups), list(self.columns), ()))
        start = 0
        for label, n in spans:
            for i in range(start, start + n):
                if label:
                    names[i] = f"{label} {names[i]}"
            start += n
        return names

    def to_markdown(self) -> str:
        """A GitHub-flavoured Markdown table (grouped headers folded into column names)."""
        esc = [_md(c) for c in self.flat_columns()]
        lines = [f"**{_md(self.title)}**", "", "| " + " | ".join(esc) + " |",
                 "|" + "|".join(["---"] + ["---:"] * (len(esc) - 1)) + "|"]
        lines += ["| " + " | ".join(_md(c) for c in row) + " |"
                  for row in self.text_rows(pm=True)]
        notes = self.headers()[2]
        if notes:
            lines += [""] + [_md(n) for n in notes]
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        """The table for the explorer page (cells as strings or number objects)."""
        spans, names, notes = self.headers()
        varying = self.n_in_cells()
        return {"title": self.title, "columns": names, "groups": [list(s) for s in spans],
                "notes": list(notes), "n_in_cells": sorted(varying),
                "ref": self.reference_rows,
                "rows": [[c.to_json() if isinstance(c, Cell) else c for c in row]
                         for row in self.rows]}


def _span_columns(spans: list[tuple[str, int]], k: int) -> list[int]:
    start = sum(n for _, n in spans[:k])
    return list(range(start, start + spans[k][1]))


def _blocks(spans: list[tuple[str, int]], widths: list[int],
            limit: int | None) -> list[list[int]]:
    """Span indexes per printed block: the first span (the row names) starts every block."""
    def span_width(k: int) -> int:
        idx = _span_columns(spans, k)
        return sum(widths[i] for i in idx) + 2 * len(idx)

    total = sum(span_width(k) for k in range(len(spans)))
    if limit is None or total <= limit or len(spans) < 3:
        return [list(range(len(spans)))]
    head = span_width(0)
    blocks: list[list[int]] = []
    current: list[int] = []
    used = head
    for k in range(1, len(spans)):
        w = span_width(k)
        if current and used + w > limit:
            blocks.append([0, *current])
            current, used = [], head
        current.append(k)
        used += w
    blocks.append([0, *current])
    return blocks


PIPED_WIDTH = 80
"""Columns tables fit when the output is not a terminal (a pipe, a file, a CI log)."""


def terminal_width() -> int:
    """Columns the tables printed must fit: ``COLUMNS`` when set, else the terminal's, else
    ``PIPED_WIDTH`` (files and pipes: a wide table is split into blocks that fit)."""
    if os.environ.get("COLUMNS", "").isdigit() and int(os.environ["COLUMNS"]) > 0:
        return int(os.environ["COLUMNS"])
    if not sys.stdout.isatty():
        return PIPED_WIDTH
    return shutil.get_terminal_size((PIPED_WIDTH, 24)).columns


_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|#~&!]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
"""Characters Markdown (or the HTML it may hold) would read as markup: escaped with a backslash,
so a model name or any other text shows as written (an underscore inside a word, as in
``snake_case`` or a path, is not markup and stays as it is)."""


def _md(text: str) -> str:
    """``text`` as literal Markdown on one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.splitlines()))


def fixed(value: float, digits: int = 1) -> str:
    """``value`` with ``digits`` decimals, rounded as the explorer's ``toFixed`` rounds (the
    exact binary value, halves away from zero: 6.25 → ``6.3`` on every page and terminal),
    and never ``-0.0``."""
    shown = Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = f"{shown:.{digits}f}"
    return text[1:] if text.startswith("-") and not shown else text


def fmt(value: float | None, digits: int = 1) -> str:
    """A number for a table cell (``–`` when missing)."""
    return "–" if value is None else fixed(value, digits)


def fmt_p(p: float | None) -> str:
    """A p-value for a table: ``<0.001`` or three decimals (``–`` when there is none); every
    table prints p-values this way (runs, comparisons, the audit)."""
    if p is None:
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def interval(value: Any) -> tuple[float, float] | None:
    """A recorded ``[low, high]`` as floats (``None`` when not recorded)."""
    return (float(value[0]), float(value[1])) if isinstance(value, (list, tuple)) else None


def negated(ci: tuple[float, float] | None) -> tuple[float, float] | None:
    """The interval of ``-x`` from that of ``x`` (Δ = −drop)."""
    return None if ci is None else (-ci[1], -ci[0])


def signed(value: float, digits: int = 1) -> str:
    """A change with its sign (``+8.0``, ``-12.4``; never ``-0.0``)."""
    text = fixed(abs(value), digits)
    return ("-" if value < 0 and float(text) != 0 else "+") + text


def fmt_delta(change: float | None) -> str:
    """A change in the papers' style, sign always shown: ``(-12.4)``, ``(+3.0)``, ``(+0.0)``."""
    return "" if change is None else f"({signed(change)})"


DELTA_NOTE = ("Δ = counterfactual − original accuracy (points): negative when the "
              "counterfactual premise lowers accuracy, as the C-VQA paper prints it; "
              "results.json's drop = original − counterfactual = −Δ.")
"""The note under every table that shows a paired change."""
