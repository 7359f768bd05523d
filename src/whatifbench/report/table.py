"""A small table record rendered as aligned text, Markdown or HTML."""

from __future__ import annotations

import html
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Table:
    """Rows of strings under a header, with an optional grouped header line above."""

    title: str
    """Caption (e.g. ``C-VQA-Synthetic (Table 7 layout)``)."""
    columns: tuple[str, ...]
    """Column headers."""
    rows: tuple[tuple[str, ...], ...]
    """Cells as display strings."""
    groups: tuple[tuple[str, int], ...] = ()
    """Optional spanning header: (label, number of columns) left to right."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Lines printed under the table."""

    def to_text(self) -> str:
        """Aligned plain text for the terminal."""
        widths = [len(c) for c in self.columns]
        for row in self.rows:
            widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
        start = 0
        for label, n in self.groups:  # widen a span's last column so its label fits
            width = sum(widths[start:start + n]) + 2 * (n - 1)
            if n and len(label) > width:
                widths[start + n - 1] += len(label) - width
            start += n
        lines = [self.title]
        if self.groups:
            spans, start = [], 0
            for label, n in self.groups:
                width = sum(widths[start:start + n]) + 2 * (n - 1)
                spans.append(label.center(width)[:width] if width else "")
                start += n
            lines.append("  ".join(spans))
        lines.append("  ".join(c.ljust(w) for c, w in zip(self.columns, widths, strict=True)))
        lines.append("  ".join("-" * w for w in widths))
        for row in self.rows:
            lines.append("  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ))
        lines += list(self.notes)
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A GitHub-flavoured Markdown table (grouped headers folded into column names)."""
        names = list(self.columns)
        if self.groups:
            start = 0
            for label, n in self.groups:
                for i in range(start, start + n):
                    if label:
                        names[i] = f"{label} {names[i]}"
                start += n
        esc = [_md(c) for c in names]
        lines = [f"**{_md(self.title)}**", "", "| " + " | ".join(esc) + " |",
                 "|" + "|".join(["---"] + ["---:"] * (len(esc) - 1)) + "|"]
        lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in self.rows]
        if self.notes:
            lines += [""] + [_md(n) for n in self.notes]
        return "\n".join(lines)

    def to_html(self) -> str:
        """An HTML table with every cell escaped."""
        out = [f"<table><caption>{html.escape(self.title)}</caption><thead>"]
        if self.groups:
            out.append("<tr>" + "".join(
                f'<th colspan="{n}">{html.escape(label)}</th>' for label, n in self.groups
            ) + "</tr>")
        out.append("<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in self.columns) + "</tr>")
        out.append("</thead><tbody>")
        for row in self.rows:
            out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
        out.append("</tbody></table>")
        for note in self.notes:
            out.append(f'<p class="note">{html.escape(note)}</p>')
        return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def fmt(value: float | None, digits: int = 1) -> str:
    """A number for a table cell (``–`` when missing)."""
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_delta(change: float | None) -> str:
    """A change in the papers' style, sign always shown: ``(-12.4)``, ``(+3.0)``, ``(+0.0)``."""
    if change is None:
        return ""
    shown = round(change, 1) or 0.0  # no "-0.0"
    return f"({shown:+.1f})"


DELTA_NOTE = ("Δ = counterfactual − original accuracy (points): negative when the "
              "counterfactual premise lowers accuracy, as the C-VQA paper prints it; "
              "results.json's drop = original − counterfactual = −Δ.")
"""The note under every table that shows a paired change."""
