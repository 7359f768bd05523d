"""Unit outlines of the shapes, and the parts flowers are drawn from.

Coordinates are relative to the object's centre with bounding radius 1 (``y`` downwards); the
renderer and the geometry scale them by the object's size and stretch, then rotate and move.
"""

from __future__ import annotations

import math
from collections.abc import Callable

UnitShape = tuple[tuple[float, float], ...]


def _ring(n: int, radius: float = 1.0, start: float = -90.0) -> UnitShape:
    return tuple(
        (radius * math.cos(math.radians(start + 360.0 * i / n)),
         radius * math.sin(math.radians(start + 360.0 * i / n)))
        for i in range(n)
    )


def _star(points: int, inner: float) -> UnitShape:
    out = []
    for i in range(2 * points):
        r = 1.0 if i % 2 == 0 else inner
        a = math.radians(-90.0 + 180.0 * i / points)
        out.append((r * math.cos(a), r * math.sin(a)))
    return tuple(out)


def _cross(arm: float) -> UnitShape:
    a = arm
    return ((-a, -1.0), (a, -1.0), (a, -a), (1.0, -a), (1.0, a), (a, a), (a, 1.0), (-a, 1.0),
            (-a, a), (-1.0, a), (-1.0, -a), (-a, -a))


S = 1.0 / math.sqrt(2.0)
OUTLINES: dict[str, UnitShape] = {
    "circle": _ring(48),
    "dot": _ring(24),
    "flower": _ring(32),
    "square": ((-S, -S), (S, -S), (S, S), (-S, S)),
    "rectangle": ((-0.894, -0.447), (0.894, -0.447), (0.894, 0.447), (-0.894, 0.447)),
    "diamond": ((0.0, -1.0), (0.7, 0.0), (0.0, 1.0), (-0.7, 0.0)),
    "triangle": _ring(3),
    "hexagon": _ring(6),
    "star": _star(5, 0.45),
    "cross": _cross(0.3),
}
"""Unit outline of each shape (``polygon`` uses the object's own vertices instead; a flower's
outline is its footprint circle)."""

SHAPES = (*OUTLINES, "polygon")
"""Every shape an object may have."""

ROUND = ("circle", "dot", "flower")
"""Shapes whose outline is a circle (drawn as ellipses)."""


def _ellipse(cx: float, cy: float, a: float, b: float, turn: float, n: int = 12) -> UnitShape:
    """An ellipse with semi-axes ``a`` (along direction ``turn`` degrees) and ``b``."""
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        u, v = a * math.cos(t), b * math.sin(t)
        pts.append((cx + u * c - v * s, cy + u * s + v * c))
    return tuple(pts)


def _radial(n: int, make: Callable[[float], UnitShape], offset: float = -90.0) -> list[UnitShape]:
    return [make(offset + 360.0 * i / n) for i in range(n)]


def _at(r: float, turn: float) -> tuple[float, float]:
    return (r * math.cos(math.radians(turn)), r * math.sin(math.radians(turn)))


def _kite(turn: float) -> UnitShape:
    return (_at(0.2, turn - 30), _at(0.62, turn - 16), _at(0.97, turn), _at(0.62, turn + 16),
            _at(0.2, turn + 30))


def _petal(r: float, a: float, b: float) -> Callable[[float], UnitShape]:
    return lambda turn: _ellipse(*_at(r, turn), a, b, turn)


FlowerPart = tuple[str, UnitShape]
"""A flower part: its colour role (``petal``, ``centre``, ``leaf``) and unit polygon."""

FLOWER_PARTS: dict[str, tuple[FlowerPart, ...]] = {
    "daisy": (*(("petal", p) for p in _radial(12, _petal(0.6, 0.37, 0.12))),
              ("centre", _ring(16, 0.3))),
    "five-petal": (*(("petal", p) for p in _radial(5, _petal(0.57, 0.39, 0.33))),
                   ("centre", _ring(16, 0.28))),
    "pointed": (*(("petal", p) for p in _radial(6, _kite)), ("centre", _ring(16, 0.26))),
    "clover": (*(("petal", p) for p in _radial(4, _petal(0.55, 0.42, 0.3), offset=-45.0)),
               ("centre", _ring(16, 0.24))),
    "tulip": (("leaf", ((-0.07, 0.0), (0.07, 0.0), (0.07, 0.97), (-0.07, 0.97))),
              ("leaf", _ellipse(-0.22, 0.55, 0.3, 0.11, -40.0)),
              ("leaf", _ellipse(0.22, 0.55, 0.3, 0.11, 40.0)),
              ("petal", ((-0.55, -0.75), (-0.27, -0.42), (0.0, -0.9), (0.27, -0.42),
                         (0.55, -0.75), (0.55, -0.1), (0.4, 0.15), (0.0, 0.25), (-0.4, 0.15),
                         (-0.55, -0.1)))),
}
"""The flower kinds, each a list of parts drawn in order (all within the unit circle)."""

FLOWER_KINDS = tuple(FLOWER_PARTS)
"""Names of the flower kinds."""
DEFAULT_FLOWER = "five-petal"
"""How a flower of unknown kind (e.g. one seen by a pixel reader) is drawn."""
