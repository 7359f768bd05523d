"""Named colours and the translucent-layer blend used for tinted regions.

Every colour an image can contain is computed here, so a renderer and a pixel reader agree on
exact RGB values (rendering is flat, without anti-aliasing).
"""

from __future__ import annotations

from collections.abc import Sequence

RGB = tuple[int, int, int]

COLORS: dict[str, RGB] = {
    "red": (220, 30, 40),
    "green": (30, 150, 60),
    "blue": (30, 90, 220),
    "yellow": (235, 200, 0),
    "purple": (130, 50, 170),
    "pink": (245, 105, 180),
    "orange": (245, 135, 0),
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "gray": (128, 128, 128),
    "brown": (140, 80, 30),
    "cyan": (0, 185, 205),
}
"""The named palette (colour words a question may use)."""

RELEASE_COLORS = ("red", "green", "blue", "yellow", "purple", "pink", "orange", "black")
"""The polygon colours of the C-VQA-Synthetic release."""

TINT_ALPHA = 0.3
"""Opacity of a tinted (translucent) fill over what lies beneath it."""


def rgb(name: str) -> RGB:
    """The RGB value of a named colour (``ValueError`` for unknown names)."""
    try:
        return COLORS[name]
    except KeyError:
        raise ValueError(
            f"unknown colour {name!r}; use one of {', '.join(COLORS)}"
        ) from None


def composite(base: RGB, layers: Sequence[RGB], alpha: float = TINT_ALPHA) -> RGB:
    """The colour of ``base`` seen through translucent ``layers`` (bottom first)."""
    r, g, b = (float(c) for c in base)
    for lr, lg, lb in layers:
        r = r * (1 - alpha) + lr * alpha
        g = g * (1 - alpha) + lg * alpha
        b = b * (1 - alpha) + lb * alpha
    return (round(r), round(g), round(b))


def nearest(color: RGB, names: Sequence[str] = tuple(COLORS)) -> tuple[str, int]:
    """The closest named colour to an RGB value and its squared distance."""
    best = min(names, key=lambda n: (_dist2(COLORS[n], color), n))
    return best, _dist2(COLORS[best], color)


def _dist2(a: RGB, b: RGB) -> int:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))
