"""The review sheet as one self-contained HTML page: thumbnails, escaped text, editable cells.

The page loads nothing from the network. Each row is a card (pictures left, cells right, wrapping
to the window, text areas as tall as their text). A reviewer edits the cells and decisions in
the browser — the edits are kept in the browser's local storage until downloaded — and presses
*Download CSV*, which writes the same CSV as ``whatif review export --out sheet.csv`` for
``whatif review import``. Every dataset or model text is escaped; a Content-Security-Policy
allows only the page's own script.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Sequence
from importlib import resources

from whatifbench.core.dataset import Dataset
from whatifbench.report.images import thumbnail
from whatifbench.report.page import content_security_policy
from whatifbench.review.base import DECISIONS, Reviewer, ReviewRow
from whatifbench.review.sheet import header, sheet_csv

THUMB = 224

CSV_JS = r"""
function csvField(value) {
  let text = value === null || value === undefined ? "" : String(value);
  if (/^'*[=+\-@\t\r]/.test(text)) text = "'" + text;  // never a formula (core.csvtext)
  return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}
function csvLine(values) { return values.map(csvField).join(","); }
"""
"""CSV quoting and formula neutralising of ``core.csvtext``, in the page (checked against
Python's csv reader in the tests)."""

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.2rem;color:#222}
.help{color:#555;font-size:.9rem;max-width:70rem}
.toolbar{position:sticky;top:0;background:#fff;padding:.4rem 0;z-index:2;display:flex;gap:.6rem;
  align-items:center;flex-wrap:wrap;border-bottom:1px solid #ddd}
#status{color:#555;font-size:.85rem}
article.row{display:grid;grid-template-columns:minmax(0,auto) minmax(0,1fr);gap:1rem;
  border:1px solid #ccc;border-radius:6px;padding:.6rem;margin:.7rem 0}
article.row.flagged{background:#fff4f0}
.preview{display:flex;flex-wrap:wrap;gap:.3rem;max-width:30rem;align-content:flex-start}
.preview img{max-width:224px;max-height:224px}
figure{margin:0;text-align:center}figcaption{font-size:.8rem}
.head{display:flex;gap:1rem;align-items:center;margin-bottom:.4rem}.key{font-weight:600}
dl.ro{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.1rem .6rem;
  font-size:.85rem;color:#555;margin:.2rem 0 .5rem}dl.ro dd{margin:0;overflow-wrap:anywhere}
.edit{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.5rem}
.edit label{display:flex;flex-direction:column;font-size:.8rem;color:#555;gap:.1rem}
textarea{width:100%;min-height:2.2rem;font:inherit;font-size:.9rem;resize:vertical;
  overflow:hidden;box-sizing:border-box}
"""


def sheet_id(dataset: Dataset, csv_text: str) -> str:
    """Identifies one exported sheet (the browser keeps its edits under this name)."""
    text = f"{dataset.card.name}\n{dataset.items_sha256}\n{csv_text}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def sheet_html(dataset: Dataset, reviewer: Reviewer, rows: Sequence[ReviewRow],
               csv_name: str) -> str:
    """The whole page."""
    esc = html.escape
    script = CSV_JS + (resources.files("whatifbench.review") / "assets" / "sheet.js").read_text(
        encoding="utf-8")
    policy = content_security_policy(script, "data: blob:")
    empty = ReviewRow("", None, {}, "new")
    return "\n".join([
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{policy}\">",
        f"<title>Review: {esc(dataset.card.name)}</title><style>{STYLE}</style></head>",
        (f"<body data-csv-name='{esc(csv_name)}' "
         f"data-sheet-id='{sheet_id(dataset, sheet_csv(reviewer, rows))}'>"),
        f"<h1>Review sheet: {esc(dataset.card.name)}</h1>",
        ("<p class='help'>Set each row's decision: <b>accept</b> as is, <b>edit</b> (change "
         "the cells), <b>reject</b> (leave out), or <b>new</b> for a row you add. Your edits "
         "are kept in this browser until you download the CSV. Then run <code>whatif review "
         f"import {esc(str(dataset.root))} {esc(csv_name)} --out NEW_DATASET</code>.</p>"),
        ("<p class='toolbar'><button id='download'>Download CSV</button> <button id='add'>Add "
         "a row</button> <button id='discard' hidden>Discard the kept edits</button> "
         "<span id='status'></span></p>"),
        f"<main id='sheet' data-columns='{esc(json.dumps(header(reviewer)))}'>",
        *(_row(dataset, reviewer, row) for row in rows),
        "</main>",
        f"<template id='new-row'>{_row(dataset, reviewer, empty)}</template>",
        f"<script>{script}</script></body></html>",
    ])


def _row(dataset: Dataset, reviewer: Reviewer, row: ReviewRow) -> str:
    esc = html.escape
    image = thumbnail(dataset.image_path(row.image), THUMB) if row.image else ""
    image += "".join(f"<figure>{thumbnail(dataset.image_path(path), THUMB)}<figcaption>{esc(label)}"
                     "</figcaption></figure>" for label, path in row.gallery)
    options = "".join(f"<option{' selected' if d == row.decision else ''}>{d}</option>"
                      for d in DECISIONS)
    shown, edits = [], []
    for col in reviewer.columns:
        value = esc(row.values.get(col.name, ""))
        name = esc(col.name)
        if col.editable:
            edits.append(f"<label title='{esc(col.help)}'>{name}<textarea data-col='{name}'>"
                         f"{value}</textarea></label>")
        else:
            shown.append(f"<dt title='{esc(col.help)}'>{name}</dt><dd data-col='{name}'>{value}"
                         "</dd>")
    edits.append("<label>comment<textarea data-col='comment'></textarea></label>")
    flagged = " flagged" if row.decision == "reject" else ""
    return (f"<article class='row{flagged}' data-key='{esc(row.key)}'>"
            f"<div class='preview'>{image}</div><div class='fields'><div class='head'>"
            f"<span class='key'>{esc(row.key) or 'new row'}</span><label>decision "
            f"<select data-col='decision'>{options}</select></label></div>"
            f"<dl class='ro'>{''.join(shown)}</dl><div class='edit'>{''.join(edits)}</div>"
            "</div></article>")
