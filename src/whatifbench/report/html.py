"""The self-contained HTML report: tables, metrics with intervals, and escaped samples.

Everything a model wrote is escaped; the page loads nothing from the network.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from whatifbench.core.images import first_images, thumbnail_html
from whatifbench.core.suite import Sample
from whatifbench.report.table import Table
from whatifbench.runner.results import RunResult

SAMPLES_PER_RUN = 60
THUMBS_PER_RUN = 12
THUMB = 160

STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1rem 0}
caption{font-weight:bold;text-align:left;padding:.3rem 0}
th,td{border:1px solid #ccc;padding:.25rem .5rem;font-size:.9rem}td{text-align:right}
td:first-child{text-align:left}.note{color:#666;font-size:.85rem}
.sample{border:1px solid #ddd;margin:.5rem 0;padding:.5rem;display:flex;gap:1rem}
.sample pre{white-space:pre-wrap;margin:.2rem 0;font-size:.85rem}
.ok{border-left:6px solid #3a3}.bad{border-left:6px solid #c33}.errors{color:#c33}
details{margin:.5rem 0}summary{cursor:pointer;font-weight:bold}
"""


def render_html(runs: Sequence[RunResult], tables: Sequence[Table]) -> str:
    """The whole report page."""
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>whatifbench report</title>", f"<style>{STYLE}</style></head><body>",
             "<h1>whatifbench report</h1>"]
    parts += [t.to_html() for t in tables]
    for run in runs:
        failed = (f' <span class="errors">({run.n_errors} of {run.n_items} items: backend '
                  'error)</span>') if run.n_errors else ""
        parts.append(f"<h2>{html.escape(run.dataset)} × {html.escape(run.model)}{failed}</h2>")
        parts.append("<details><summary>Metrics and run spec</summary><pre>"
                     + html.escape(json.dumps({"metrics": run.metrics, "spec": run.spec},
                                              indent=2, ensure_ascii=False))
                     + "</pre></details>")
        parts.append(_samples(run))
    parts.append("</body></html>")
    return "\n".join(parts)


def _samples(run: RunResult) -> str:
    wrong = [s for s in run.samples if not s.correct]
    right = [s for s in run.samples if s.correct]
    shown = (wrong + right)[:SAMPLES_PER_RUN]
    images = _image_paths(run)
    head = (f"<details><summary>{len(shown)} of {len(run.samples)} samples "
            f"({len(wrong)} wrong, shown first)</summary>")
    out = [head]
    for k, s in enumerate(shown):
        thumb = thumbnail(images.get(s.item_id)) if k < THUMBS_PER_RUN else ""
        out.append(_sample_html(s, thumb))
    out.append("</details>")
    return "\n".join(out)


def _image_paths(run: RunResult) -> dict[str, Path]:
    return first_images(Path(run.spec.get("dataset", {}).get("path", "")))


def thumbnail(path: Path | None, size: int = THUMB) -> str:
    """An ``<img>`` with the image embedded as a JPEG of at most ``size`` pixels (empty when
    there is no usable image), so pages need no network and no side files."""
    return thumbnail_html(path, size)


def _sample_html(s: Sample, thumb: str) -> str:
    cls = "ok" if s.correct else "bad"
    fields = [("id", s.item_id), ("role", s.role or ""), ("group", s.group or ""),
              ("prompt", s.prompt), ("response", s.response if s.response is not None else ""),
              ("extracted", str(s.prediction)), ("target", s.target)]
    if s.scores is not None:
        fields.append(("scores", ", ".join(f"{x:.3f}" for x in s.scores)))
    if s.score is not None:
        fields.append(("judged score", f"{s.score:.2f}"))
    if s.error:
        fields.append(("error", s.error))
    if s.flag:
        fields.append(("flag", s.flag))
    if s.model_input is not None:
        fields.append(("model input", s.model_input))
    body = "".join(f"<pre><b>{html.escape(k)}:</b> {html.escape(v)}</pre>" for k, v in fields)
    if s.trace:
        body += _trace_html(s.trace)
    return f"<div class='sample {cls}'>{thumb}<div>{body}</div></div>"


def _trace_html(trace: dict[str, Any]) -> str:
    """A program backend's program, tool calls, value and failure (all escaped)."""
    calls = trace.get("calls") or []
    lines = [json.dumps(c, ensure_ascii=False)[:400] for c in calls[:50]]
    parts = [("program", str(trace.get("program") or "")),
             (f"tool calls ({len(calls)})", "\n".join(lines)),
             ("value", json.dumps(trace.get("value"), ensure_ascii=False)[:400])]
    failure = trace.get("failure")
    if isinstance(failure, dict):
        parts.append(("failure", f"{failure.get('kind')}: {failure.get('reason')}"))
    body = "".join(f"<pre><b>{html.escape(k)}:</b> {html.escape(v)}</pre>" for k, v in parts)
    return f"<details><summary>program trace</summary>{body}</details>"
