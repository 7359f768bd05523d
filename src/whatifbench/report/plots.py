"""PNG plots with matplotlib (Agg backend; nothing is shown on screen)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from whatifbench.core.fsutil import ensure_dir
from whatifbench.core.item import Item
from whatifbench.core.slices import natural_order


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


ROLE_ORDER = ("original", "basic", "counterfactual", "c2e", "e2c", "cue", "exp")
"""Roles in the order (and so the colours) the report's figures and the page give them: the
first question of a pair is matplotlib's first colour, the counterfactual its second."""


def role_color(role: str) -> str:
    """The colour of a role's bars, the same as in the report's figures."""
    if role in ("original", "basic"):
        return "C0"
    return f"C{ROLE_ORDER.index(role) - 1}" if role in ROLE_ORDER else "C7"


def answer_histograms(items: Sequence[Item], out: Path, name: str) -> list[Path]:
    """One bar chart of answer shares per group (roles side by side, in the report's order and
    colours); returns the files."""
    plt = _pyplot()
    ensure_dir(out)
    written = []
    groups = sorted({i.group or "-" for i in items})
    for group in groups:
        members = [i for i in items if (i.group or "-") == group]
        roles = sorted({i.role or "-" for i in members},
                       key=lambda r: (ROLE_ORDER.index(r) if r in ROLE_ORDER else 99, r))
        answers = sorted({i.target for i in members}, key=natural_order)
        fig, ax = plt.subplots(figsize=(max(4.0, 0.35 * len(answers) + 2), 3))
        width = 0.8 / len(roles)
        for k, role in enumerate(roles):
            counts = Counter(i.target for i in members if (i.role or "-") == role)
            total = sum(counts.values()) or 1
            xs = [j + k * width for j in range(len(answers))]
            ax.bar(xs, [100 * counts[a] / total for a in answers], width=width, label=role,
                   color=role_color(role))
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(answers))])
        ax.set_xticklabels(answers, rotation=90 if len(answers) > 12 else 0, fontsize=7)
        ax.set_ylabel("% of questions")
        ax.set_title(f"{name}: {group}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = out / f"answers_{_safe(group)}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def bar_chart(labels: Sequence[str], series: dict[str, Sequence[float]], title: str,
              ylabel: str, path: Path,
              errors: dict[str, Sequence[tuple[float, float]]] | None = None) -> Path:
    """Grouped bar chart (one bar per series at each label), with optional error bars."""
    plt = _pyplot()
    ensure_dir(path.parent)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(labels) + 2), 3.2))
    width = 0.8 / max(1, len(series))
    for k, (name, values) in enumerate(series.items()):
        xs = [j + k * width for j in range(len(labels))]
        yerr = None
        if errors and name in errors:
            yerr = [[v - lo for v, (lo, _) in zip(values, errors[name], strict=True)],
                    [hi - v for v, (_, hi) in zip(values, errors[name], strict=True)]]
        ax.bar(xs, values, width=width, label=name, yerr=yerr, capsize=3)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(labels))])
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)
