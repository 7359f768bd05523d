"""Draw ``FigureSpec``s with matplotlib's ``Figure`` API (no pyplot, no global state): SVG for
the page, memoised under ``$WHATIF_HOME/figures`` by a hash of the plotted data (a repeated
report imports no matplotlib), and PDF + PNG for papers (``--figures DIR``)."""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from whatifbench.core.fsutil import ensure_dir, write_bytes_atomic, write_cache
from whatifbench.core.home import whatif_home
from whatifbench.core.readfile import read_text
from whatifbench.report.figures import FigureSpec

STYLE = "2"
"""Bumped whenever the drawing code changes, so memoised SVGs are redrawn."""
COLUMNS = 3
"""Panels per row."""
RC: Any = {"svg.fonttype": "none", "svg.hashsalt": "whatifbench", "font.size": 8,
      "axes.spines.top": False, "axes.spines.right": False}


def _text(text: str) -> str:
    """Text drawn as written: control characters left out (no font has them) and ``$`` escaped
    (matplotlib would read ``$...$`` in a model or dataset name as mathematics)."""
    return "".join(c for c in text if c.isprintable()).replace("$", r"\$")


def _figure(spec: FigureSpec) -> Any:
    """The matplotlib figure of a spec."""
    from matplotlib.figure import Figure

    n = len(spec.panels)
    cols = min(COLUMNS, n)
    rows = math.ceil(n / cols)
    widest = max(len(p.categories) * max(1, len(p.series)) for p in spec.panels)
    width = min(15.0, max(4.5, cols * (1.2 + 0.22 * widest)))
    fig = Figure(figsize=(width, 0.6 + 2.6 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, sharey=spec.ylim is not None)
    colors = [f"C{k % 10}" for k in range(10)]
    handles: dict[str, Any] = {}
    for k, panel in enumerate(spec.panels):
        ax = axes[k // cols][k % cols]
        count = max(1, len(panel.series))
        width_bar = 0.8 / count
        for s, series in enumerate(panel.series):
            xs = [j - 0.4 + width_bar * (s + 0.5) for j in range(len(panel.categories))]
            heights = [math.nan if v is None else v for v in series.values]
            low = [0.0 if v is None or i is None else max(0.0, v - i[0])
                   for v, i in zip(series.values, series.intervals, strict=True)]
            high = [0.0 if v is None or i is None else max(0.0, i[1] - v)
                    for v, i in zip(series.values, series.intervals, strict=True)]
            bars = ax.bar(xs, heights, width=width_bar * 0.95, color=colors[s % 10],
                          yerr=[low, high], capsize=2, error_kw={"elinewidth": 0.8},
                          label=_text(series.name))
            handles.setdefault(_text(series.name), bars)
        ax.set_xticks(range(len(panel.categories)))
        many = len(panel.categories) > 6 or max(map(len, panel.categories), default=0) > 10
        ax.set_xticklabels([_text(c) for c in panel.categories], rotation=35 if many else 0,
                           ha="right" if many else "center")
        if panel.title:
            ax.set_title(_text(panel.title), fontsize=8)
        if spec.ylim is not None:
            ax.set_ylim(*spec.ylim)
        else:
            ax.axhline(0, color="black", linewidth=0.6)
        if k % cols == 0:
            ax.set_ylabel(_text(spec.ylabel))
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    fig.suptitle(_text(spec.title), fontsize=9)
    fig.legend(list(handles.values()), list(handles), loc="outside lower center",
               ncols=min(4, len(handles)), fontsize=7, frameon=False)
    return fig


@functools.cache
def _matplotlib_version() -> str:
    try:
        return metadata.version("matplotlib")
    except metadata.PackageNotFoundError:
        return "?"


def _key(spec: FigureSpec) -> str:
    text = json.dumps([STYLE, _matplotlib_version(), asdict(spec)], sort_keys=True,
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def svg(spec: FigureSpec, cache: Path | None = None) -> str:
    """The figure as SVG text; drawn once per distinct data, then read from the cache."""
    folder = cache if cache is not None else whatif_home() / "figures"
    path = folder / f"{_key(spec)}.svg"
    try:
        return read_text(path)
    except (OSError, UnicodeDecodeError):
        pass
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(RC):
        _figure(spec).savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    write_cache(path, text.encode("utf-8"))
    return text


def save(specs: list[FigureSpec], out: Path) -> list[Path]:
    """Write every figure as PDF and PNG (300 dpi) into ``out``; returns the files."""
    import matplotlib

    ensure_dir(out)
    written = []
    for spec in specs:
        with matplotlib.rc_context({**RC, "svg.fonttype": "path"}):
            fig = _figure(spec)
            for fmt, kwargs in (("pdf", {"metadata": {"CreationDate": None}}),
                                ("png", {"dpi": 300, "metadata": {"Software": None}})):
                buf = io.BytesIO()
                fig.savefig(buf, format=fmt, **kwargs)
                path = out / f"{spec.name}.{fmt}"
                write_bytes_atomic(path, buf.getvalue())
                written.append(path)
    return written
