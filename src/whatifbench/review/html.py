"""The review sheet as one self-contained HTML page: thumbnails, escaped text, editable cells.

The page loads nothing from the network. A reviewer edits the cells and decisions in the
browser and presses *Download CSV*, which writes the same CSV as ``whatif review export --out
sheet.csv`` for ``whatif review import``. Every dataset or model text is escaped.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

from whatifbench.core.dataset import Dataset
from whatifbench.report.images import thumbnail
from whatifbench.review.base import DECISIONS, Reviewer, ReviewRow
from whatifbench.review.sheet import header

THUMB = 224

CSV_JS = r"""
function csvField(value) {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}
function csvLine(values) { return values.map(csvField).join(","); }
"""
"""CSV quoting shared by the page (and checked against Python's csv reader in the tests)."""

PAGE_JS = r"""
const table = document.getElementById("sheet");
const columns = JSON.parse(table.dataset.columns);
function cell(row, name) {
  if (name === "key") return row.dataset.key;
  const el = row.querySelector('[data-col="' + name + '"]');
  if (!el) return "";
  return ("value" in el) ? el.value : el.textContent;
}
function sheetCsv() {
  const lines = [csvLine(columns)];
  for (const row of table.tBodies[0].rows) lines.push(csvLine(columns.map(c => cell(row, c))));
  return lines.join("\n") + "\n";
}
document.getElementById("download").addEventListener("click", () => {
  const blob = new Blob([sheetCsv()], {type: "text/csv"});
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = document.body.dataset.csvName;
  link.click();
});
document.getElementById("add").addEventListener("click", () => {
  const row = document.getElementById("new-row").content.firstElementChild.cloneNode(true);
  table.tBodies[0].appendChild(row);
});
"""

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.3rem;vertical-align:top}
th{background:#f4f4f4;position:sticky;top:0}
td.ro{font-size:.85rem;color:#555;min-width:10rem;max-width:18rem}
textarea[data-col=image]{width:11rem;font-size:.8rem}
textarea{width:16rem;min-height:3.2rem;font:inherit}textarea.short{width:6rem;min-height:1.6rem}
tr.flagged{background:#fff4f0}.help{color:#666;font-size:.9rem;max-width:60rem}
figure{display:inline-block;margin:.2rem;text-align:center}figcaption{font-size:.85rem}
td.gallery{min-width:30rem}
"""


def sheet_html(dataset: Dataset, reviewer: Reviewer, rows: Sequence[ReviewRow],
               csv_name: str) -> str:
    """The whole page."""
    esc = html.escape
    cols = header(reviewer)
    heads = "".join(f"<th title='{esc(c.help)}'>{esc(c.name)}</th>" for c in reviewer.columns)
    body = [_row(dataset, reviewer, row) for row in rows]
    empty = ReviewRow("", None, {}, "new")
    return "\n".join([
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>Review: {esc(dataset.card.name)}</title><style>{STYLE}</style></head>",
        f"<body data-csv-name='{esc(csv_name)}'>",
        f"<h1>Review sheet: {esc(dataset.card.name)}</h1>",
        ("<p class='help'>Set each row's decision: <b>accept</b> as is, <b>edit</b> (change "
         "the cells), <b>reject</b> (leave out), or <b>new</b> for a row you add. Then press "
         f"<i>Download CSV</i> and run <code>whatif review import {esc(str(dataset.root))} "
         f"{esc(csv_name)} --out NEW_DATASET</code>.</p>"),
        "<p><button id='download'>Download CSV</button> <button id='add'>Add a row</button></p>",
        (f"<table id='sheet' data-columns='{esc(json.dumps(cols))}'><thead><tr><th>image</th>"
         f"<th>key</th><th>decision</th>{heads}<th>comment</th></tr></thead><tbody>"),
        *body,
        "</tbody></table>",
        f"<template id='new-row'>{_row(dataset, reviewer, empty)}</template>",
        f"<script>{CSV_JS}{PAGE_JS}</script></body></html>",
    ])


def _row(dataset: Dataset, reviewer: Reviewer, row: ReviewRow) -> str:
    esc = html.escape
    image = thumbnail(dataset.image_path(row.image), THUMB) if row.image else ""
    image += "".join(f"<figure>{thumbnail(dataset.image_path(path), THUMB)}<figcaption>{esc(label)}"
                     "</figcaption></figure>" for label, path in row.gallery)
    options = "".join(f"<option{' selected' if d == row.decision else ''}>{d}</option>"
                      for d in DECISIONS)
    cells = []
    for col in reviewer.columns:
        value = esc(row.values.get(col.name, ""))
        if col.editable:
            short = " class='short'" if len(row.values.get(col.name, "")) < 12 else ""
            cells.append(f"<td><textarea data-col='{esc(col.name)}'{short}>{value}</textarea></td>")
        else:
            cells.append(f"<td class='ro' data-col='{esc(col.name)}'>{value}</td>")
    flagged = " class='flagged'" if row.decision == "reject" else ""
    cell = "<td class='gallery'>" if row.gallery else "<td>"
    return (f"<tr data-key='{esc(row.key)}'{flagged}>{cell}{image}</td><td>{esc(row.key)}</td>"
            f"<td><select data-col='decision'>{options}</select></td>{''.join(cells)}"
            "<td><textarea data-col='comment' class='short'></textarea></td></tr>")
