"""The self-contained HTML report: tables, metrics with intervals, and escaped samples.

Everything a model wrote is escaped; the page loads nothing from the network.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

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
.ok{border-left:6px solid #3a3}.bad{border-left:6px solid #c33}
details{margin:.5rem 0}summary{cursor:pointer;font-weight:bold}
"""


def render_html(runs: Sequence[RunResult], tables: Sequence[Table]) -> str:
    """The whole report page."""
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>whatifbench report</title>", f"<style>{STYLE}</style></head><body>",
             "<h1>whatifbench report</h1>"]
    parts += [t.to_html() for t in tables]
    for run in runs:
        parts.append(f"<h2>{html.escape(run.dataset)} × {html.escape(run.model)}</h2>")
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
    root = Path(run.spec.get("dataset", {}).get("path", ""))
    items_file = root / "items.jsonl"
    if not items_file.is_file():
        return {}
    return _first_images(root, items_file.stat().st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _first_images(root: Path, version: int) -> dict[str, Path]:
    """Each item's first image, by item id (read once per version of the dataset's items)."""
    found: dict[str, Path] = {}
    items_file = root / "items.jsonl"
    if items_file.is_file():
        for line in items_file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                if obj.get("images"):
                    found[obj["id"]] = root / obj["images"][0]
    return found


def thumbnail(path: Path | None, size: int = THUMB) -> str:
    """An ``<img>`` with the image embedded as a JPEG of at most ``size`` pixels (empty when
    there is no readable image), so pages need no network and no side files."""
    if path is None or not path.is_file():
        return ""
    return _thumbnail(path, path.stat().st_mtime_ns, size)


@functools.lru_cache(maxsize=256)
def _thumbnail(path: Path, version: int, size: int) -> str:
    """``thumbnail`` of one version (modification time) of a file, encoded once."""
    try:
        with Image.open(path) as src:
            img = src.convert("RGB")
        img.thumbnail((size, size))
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=80)
    except OSError:
        return ""
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f"<img alt='' src='data:image/jpeg;base64,{data}'>"


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
    return f"<div class='sample {cls}'>{thumb}<div>{body}</div></div>"
