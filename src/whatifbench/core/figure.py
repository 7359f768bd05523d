"""A figure as data (``FigureSpec``: panels of bars with 95 % interval whiskers): what a suite's
``figures`` returns. ``report.figures`` builds them, ``report.draw`` draws them (SVG, PDF, PNG);
nothing here imports matplotlib."""

from __future__ import annotations

from dataclasses import dataclass

Interval = tuple[float, float] | None
"""A bar's 95 % interval (``None``: no whisker)."""


@dataclass(frozen=True)
class Series:
    """One bar colour: a value (and interval) per category."""

    name: str
    """Legend entry."""
    values: tuple[float | None, ...]
    """Bar heights (``None``: no bar)."""
    intervals: tuple[Interval, ...]
    """95 % interval per bar (``None``: no whisker)."""


@dataclass(frozen=True)
class Panel:
    """One set of axes: categories along x, one bar per series at each."""

    title: str
    """Panel title (a model, or empty for a single panel)."""
    categories: tuple[str, ...]
    """x tick labels."""
    series: tuple[Series, ...]
    """Bars."""


@dataclass(frozen=True)
class FigureSpec:
    """A figure: one or more panels sharing the y axis."""

    name: str
    """File stem for ``--figures DIR`` (``cvqa-synthetic-accuracy-by-group``)."""
    title: str
    """Caption."""
    ylabel: str
    """y axis label."""
    panels: tuple[Panel, ...]
    """The axes, left to right, top to bottom."""
    ylim: tuple[float, float] | None = (0.0, 100.0)
    """Fixed y range (``None``: fit the data, with a zero line)."""
