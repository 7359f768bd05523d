"""De-rendering of solid-shape scenes (CFMM-Synthetic): flat shapes on a white canvas, each one
colour, none touching.

Each ink blob (8-connected) is one object. Its shape is found by analysis by synthesis: every
candidate (circle or oval, square or rectangle, triangle pointing up/left/down/right, diamond,
hexagon, star, cross) is fitted to the blob's bounding box, drawn with the scene renderer, and
the candidate whose pixels overlap the blob's best (intersection over union) wins. The result is
a ``scenes.Scene`` whose objects have the measured position, size and stretch.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np

from whatifbench.models.builtin.reader.perceive import TOLERANCE, WHITE, Colors, load
from whatifbench.scenes.geometry import outline
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.palette import COLORS, nearest
from whatifbench.scenes.render import render

FIXED = (("triangle", 0.0), ("triangle", 90.0), ("triangle", 180.0), ("triangle", 270.0),
         ("diamond", 0.0), ("hexagon", 0.0), ("star", 0.0), ("cross", 0.0))
"""Candidates drawn with equal stretch: (shape, angle)."""
STRETCHED = ("circle", "square")
"""Candidates fitted with their own width and height (ovals, rectangles)."""
SQUARE_LIMIT = 1.15
"""Boxes with sides closer than this ratio are squares, others rectangles."""
MIN_PIXELS = 12
"""Smaller blobs are noise."""
PAD = 2
"""Margin around a blob when comparing it with a candidate."""


@lru_cache(maxsize=64)
def _unit_box(shape: str, angle: float) -> tuple[float, float, float, float]:
    """Bounding box of the shape at size 1, centred at the origin."""
    pts = outline(SceneObject("u", shape, "red", 0.0, 0.0, 1.0, angle))
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def _candidates(box: tuple[int, int, int, int]) -> list[SceneObject]:
    """Every candidate fitted to a blob's pixel box ``(x0, y0, x1, y1)`` (inclusive)."""
    x0, y0, x1, y1 = box
    w, h = max(x1 - x0, 1), max(y1 - y0, 1)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    out = []
    for shape, angle in FIXED:
        ux0, uy0, ux1, uy1 = _unit_box(shape, angle)
        size = (w / (ux1 - ux0) + h / (uy1 - uy0)) / 2
        out.append(SceneObject(shape, shape, "black", cx - size * (ux0 + ux1) / 2,
                               cy - size * (uy0 + uy1) / 2, size, angle))
    for shape in STRETCHED:
        ux0, uy0, ux1, uy1 = _unit_box(shape, 0.0)
        half_w, half_h = w / (ux1 - ux0), h / (uy1 - uy0)
        size = max(half_w, half_h)
        out.append(SceneObject(shape, shape, "black", cx, cy, size, sx=half_w / size,
                               sy=half_h / size))
    return out


def _mask(obj: SceneObject, width: int, height: int) -> np.ndarray:
    img = np.asarray(render(Scene(width, height, (obj,))))
    return img != img[0, 0]


def fit(mask: np.ndarray, left: int, top: int) -> SceneObject:
    """The candidate that best explains a blob (``mask`` cut from the image at ``left, top``);
    its id is its shape, its colour still to be set."""
    ys, xs = np.nonzero(mask)
    box = (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))
    h, w = mask.shape[0] + 2 * PAD, mask.shape[1] + 2 * PAD
    padded = np.zeros((h, w), dtype=bool)
    padded[PAD:PAD + mask.shape[0], PAD:PAD + mask.shape[1]] = mask
    best, best_iou = None, -1.0
    x0, y0, x1, y1 = box
    for cand in _candidates((x0 + PAD, y0 + PAD, x1 + PAD, y1 + PAD)):
        drawn = _mask(cand, w, h)
        union = int(np.count_nonzero(drawn | padded))
        iou = int(np.count_nonzero(drawn & padded)) / max(1, union)
        if iou > best_iou:
            best, best_iou = cand, iou
    assert best is not None
    obj = best.replace(x=best.x + left - PAD, y=best.y + top - PAD)
    if obj.shape == "square":
        sides = obj.sx / obj.sy
        if max(sides, 1 / sides) >= SQUARE_LIMIT:  # a rectangle: its unit box is 2:1
            ux0, uy0, ux1, uy1 = _unit_box("rectangle", 0.0)
            ax0, ay0, ax1, ay1 = _unit_box("square", 0.0)
            half_w = obj.size * obj.sx * (ax1 - ax0) / 2
            half_h = obj.size * obj.sy * (ay1 - ay0) / 2
            size = max(half_w / ((ux1 - ux0) / 2), half_h / ((uy1 - uy0) / 2))
            obj = obj.replace(shape="rectangle", size=size,
                              sx=half_w / (size * (ux1 - ux0) / 2),
                              sy=half_h / (size * (uy1 - uy0) / 2))
    return obj


def _background(colors: Colors) -> np.ndarray:
    white = np.array([sum((a - b) ** 2 for a, b in zip(rgb, WHITE, strict=True)) <= TOLERANCE
                      for rgb in colors.rgb], dtype=np.bool_)
    return white[colors.labels]


def perceive_shapes(path: str | Path) -> Scene:
    """The solid-shape scene drawn in the image at ``path``."""
    from scipy import ndimage

    colors = load(path)
    ink = ~_background(colors)
    blobs, _ = ndimage.label(ink, structure=np.ones((3, 3), dtype=np.bool_))
    objects: list[SceneObject] = []
    counts: Counter[str] = Counter()
    for index, box in enumerate(ndimage.find_objects(blobs), start=1):
        if box is None:
            continue
        mask = blobs[box] == index
        if np.count_nonzero(mask) < MIN_PIXELS:
            continue
        labels = Counter(colors.labels[box][mask].tolist())
        color = nearest(colors.rgb[labels.most_common(1)[0][0]],
                        tuple(c for c in COLORS if c != "white"))[0]
        obj = fit(mask, box[1].start, box[0].start)
        counts[obj.shape] += 1
        objects.append(obj.replace(id=f"{obj.shape}-{counts[obj.shape]}", color=color))
    height, width = colors.labels.shape
    return Scene(width, height, tuple(objects))
