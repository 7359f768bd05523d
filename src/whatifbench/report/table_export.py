"""Tables as data: CSV (numbers, intervals, counts and p-values in their own columns) and LaTeX
in the paper's layout (booktabs, spanning headers, ``±`` intervals, marked changes)."""

from __future__ import annotations

import re

from whatifbench.core.csvtext import csv_text
from whatifbench.core.table import Cell, Table, fmt, signed

LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}", "Δ": r"$\Delta$", "±": r"$\pm$", "−": "-",
                 "·": r"$\cdot$", "–": "--", "×": r"$\times$"}
_LATEX = re.compile("|".join(re.escape(k) for k in LATEX_SPECIAL))


def latex_escape(text: str) -> str:
    """Text safe inside a LaTeX document (special characters replaced)."""
    return _LATEX.sub(lambda m: LATEX_SPECIAL[m.group(0)], text)


def _extras(table: Table, i: int) -> list[str]:
    """Which facts column ``i`` carries beyond its value: ci, delta, delta_ci, p, n."""
    cells = [row[i] for row in table.rows if isinstance(row[i], Cell)]
    return [name for name in ("ci", "delta", "delta_ci", "p", "n")
            if any(getattr(c, name) is not None for c in cells)]


def _num(value: float | None) -> str:
    return "" if value is None else repr(float(value) + 0.0)  # + 0.0: never -0.0


def to_csv(table: Table) -> str:
    """The table as CSV: one row per table row; a number column is followed by its interval
    (``… ci_low``, ``… ci_high``), change (``… Δ``, ``… Δ ci_low``, ``… Δ ci_high``,
    ``… Δ p``) and count (``… n``) where any cell has them. Text cells are written as shown."""
    names = table.flat_columns(annotated=False)
    header: list[str] = []
    plan: list[tuple[int, list[str]]] = []
    for i, name in enumerate(names):
        extras = _extras(table, i)
        plan.append((i, extras))
        header.append(name)
        for extra in extras:
            header += {"ci": [f"{name} ci_low", f"{name} ci_high"],
                       "delta": [f"{name} Δ"],
                       "delta_ci": [f"{name} Δ ci_low", f"{name} Δ ci_high"],
                       "p": [f"{name} Δ p"], "n": [f"{name} n"]}[extra]
    rows = [header]
    for row in table.rows:
        out: list[str] = []
        for i, extras in plan:
            cell = row[i]
            if not isinstance(cell, Cell):
                out.append(cell)
                out += [""] * sum(2 if e in ("ci", "delta_ci") else 1 for e in extras)
                continue
            out.append(_num(cell.value))
            for extra in extras:
                if extra in ("ci", "delta_ci"):
                    pair = cell.ci if extra == "ci" else cell.delta_ci
                    out += [_num(pair[0]), _num(pair[1])] if pair else ["", ""]
                elif extra == "delta":
                    out.append(_num(cell.delta))
                elif extra == "p":
                    out.append(_num(cell.p))
                else:
                    out.append("" if cell.n is None else str(cell.n))
        rows.append(out)
    return csv_text(rows)


def _latex_cell(cell: str | Cell, n: bool) -> str:
    if not isinstance(cell, Cell):
        return latex_escape(cell)
    text = fmt(cell.value, cell.digits).replace("–", "--")
    if cell.ci is not None and cell.value is not None:
        shown = cell.interval_text().replace("±", r"$\pm$")
        text += rf"{{\scriptsize{' ' if shown.startswith('[') else ''}{shown}}}"
    if cell.delta is not None:
        star = "^{*}" if cell.significant else ""
        text += f" (${signed(cell.delta, cell.digits)}{star}$)"
    if n and cell.n is not None:
        text += rf" {{\scriptsize $n$={cell.n}}}"
    return text


def to_latex(table: Table) -> str:
    """A ``table`` environment in the paper's layout (needs ``\\usepackage{booktabs}``)."""
    spans, names, notes = table.headers()
    varying = table.n_in_cells()
    lines = ["% whatifbench table; needs \\usepackage{booktabs}", r"\begin{table}[t]",
             r"\centering", rf"\caption{{{latex_escape(table.title)}}}",
             r"\begin{tabular}{l" + "r" * (len(names) - 1) + "}", r"\toprule"]
    if any(label for label, _ in spans):
        heads, rules, start = [], [], 1
        for label, width in spans:
            heads.append(rf"\multicolumn{{{width}}}{{c}}{{{latex_escape(label)}}}"
                         if label and width > 1 else latex_escape(label))
            if label:
                rules.append(rf"\cmidrule(lr){{{start}-{start + width - 1}}}")
            start += width
        lines.append(" & ".join(heads) + r" \\")
        lines.append(" ".join(rules))
    lines.append(" & ".join(latex_escape(c) for c in names) + r" \\")
    lines.append(r"\midrule")
    first_reference = len(table.rows) - table.reference_rows
    for k, row in enumerate(table.rows):
        if k == first_reference and k:
            lines.append(r"\midrule")  # the reference rows (chance, blind) set apart
        lines.append(" & ".join(_latex_cell(c, i in varying) for i, c in enumerate(row))
                     + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if notes:
        lines.append(r"\par\smallskip{\footnotesize " + " ".join(latex_escape(n) for n in notes)
                     + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
