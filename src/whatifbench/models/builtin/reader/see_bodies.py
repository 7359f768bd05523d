"""De-rendering of side-view worlds (``scenes.bodies``): pixels → ``World``.

Classical image processing only: every palette colour's pixels are split into 4-connected
components; each component's box, colour and shape (how much of its box it fills once holes are
filled, so that the ``outline`` style reads like the ``flat`` one) tell what it is:

- gray strip across the picture: the ground; brown: the beam; cyan: ice (a flat one: a puddle);
- black: a rope (thin and upright) or a motion line (thin and flat; they give a ball its
  direction);
- any other colour: a block (fills its box), a ball (a disc), scissors (an X: ink in the
  corners of its box) or a flame (none).

A composite picture (the core's labelled tiles) is cut into its tiles with the composite's own
geometry (``core.composite``), since tiles are pasted without rescaling.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from whatifbench.core.composite import GAP as TILE_GAP
from whatifbench.core.composite import LABEL_HEIGHT, TILE
from whatifbench.core.images import open_image
from whatifbench.scenes.bodies import MOTION_GAP, Body, World
from whatifbench.scenes.palette import COLORS

BLOCK_FILL = 0.9
"""Least share of its box a block fills."""
BALL_FILL = 0.7
"""Least share of its box a ball fills (a disc fills π/4)."""
MIN_PIXELS = 12
"""Smaller components are ignored."""
_PACKED = {(r << 16) | (g << 8) | b: name for name, (r, g, b) in COLORS.items()}


def load_rgb(path: str | Path) -> np.ndarray:
    """An image file as an ``(height, width, 3)`` array."""
    with open_image(path) as img:
        return np.asarray(img.convert("RGB"))


def tiles(rgb: np.ndarray, count: int) -> list[np.ndarray]:
    """The ``count`` image areas of a composite made by ``core.composite.compose``."""
    cols = count if count <= 3 else (count + 1) // 2
    out = []
    for k in range(count):
        r, c = divmod(k, cols)
        x0 = TILE_GAP + c * (TILE + TILE_GAP)
        y0 = TILE_GAP + r * (TILE + LABEL_HEIGHT + TILE_GAP) + LABEL_HEIGHT
        out.append(rgb[y0:y0 + TILE, x0:x0 + TILE])
    return out


def _names(rgb: np.ndarray) -> tuple[np.ndarray, list[str | None]]:
    """Per pixel, an index into the returned colour names (``None``: not a palette colour)."""
    arr = rgb.astype(np.int64)
    packed = (arr[..., 0] << 16) | (arr[..., 1] << 8) | arr[..., 2]
    values, inverse = np.unique(packed, return_inverse=True)
    return inverse.reshape(packed.shape), [_PACKED.get(int(v)) for v in values.tolist()]


def perceive_world(rgb: np.ndarray) -> World:
    """The world drawn in an image (``(height, width, 3)`` array)."""
    from scipy import ndimage

    height, width = rgb.shape[:2]
    labels, names = _names(rgb)
    found: list[tuple[str, str, tuple[int, int, int, int]]] = []
    lines: list[tuple[int, int, int, int]] = []
    for index, name in enumerate(names):
        if name is None or name == "white":
            continue
        parts, n = ndimage.label(labels == index)
        for k, box in enumerate(ndimage.find_objects(parts), start=1):
            if box is None:
                continue
            mask = parts[box] == k
            count = int(mask.sum())
            if count < MIN_PIXELS:
                continue
            ys, xs = box
            bbox = (xs.start, ys.start, xs.stop - 1, ys.stop - 1)
            h, w = mask.shape
            kind = _kind(name, w, h, width, mask, ndimage)
            if kind == "line":
                lines.append(bbox)
            elif kind is not None:
                found.append((kind, name, bbox))
    found.sort(key=lambda f: (f[0] != "ground", f[2][0], f[2][1]))
    bodies: list[Body] = []
    counts: dict[str, int] = {}
    for kind, name, (x0, y0, x1, y1) in found:
        counts[kind] = counts.get(kind, 0) + 1
        body_id = "ground" if kind == "ground" else f"{kind}-{counts[kind]}"
        facing = _facing((x0, y0, x1, y1), lines) if kind == "ball" else 0
        bodies.append(Body(body_id, kind, name, x0, y0, x1, y1, facing))
    return World(width, height, tuple(bodies))


def _kind(name: str, w: int, h: int, width: int, mask: np.ndarray, ndimage: object) -> str | None:
    """What a component of colour ``name`` and size ``w`` × ``h`` is (``None``: nothing)."""
    if name == "gray":
        return "ground" if w >= width // 2 else None
    if name == "brown":
        return "beam"
    if name == "black":
        if h >= 3 * w:
            return "rope"
        return "line" if w >= 3 * h else None
    if name == "cyan":
        return "puddle" if h <= 6 and w >= 2 * h else "ice"
    filled = ndimage.binary_fill_holes(mask)  # type: ignore[attr-defined]
    fill = float(filled.mean())
    if fill >= BLOCK_FILL:
        return "block"
    if fill >= BALL_FILL:
        return "ball"
    # a flame's top corners are empty; the arms of the scissors' X reach into them
    return "scissors" if bool(filled[:h // 4, :w // 4].any()) else "flame"


def _facing(ball: tuple[int, int, int, int], lines: list[tuple[int, int, int, int]]) -> int:
    """+1 when motion lines trail the ball on its left (it rolls right), -1 on its right."""
    x0, y0, x1, y1 = ball
    votes = 0
    for lx0, ly0, lx1, ly1 in lines:
        if not y0 <= (ly0 + ly1) / 2 <= y1:
            continue
        if 0 < x0 - lx1 <= MOTION_GAP + 2:
            votes += 1
        elif 0 < lx0 - x1 <= MOTION_GAP + 2:
            votes -= 1
    return 1 if votes >= 2 else -1 if votes <= -2 else 0


@lru_cache(maxsize=256)
def _perceive_file(path: str, stamp: tuple[int, int], count: int) -> tuple[World, ...]:
    rgb = load_rgb(path)
    if count <= 1:
        return (perceive_world(rgb),)
    return tuple(perceive_world(t) for t in tiles(rgb, count))


def perceive_files(paths: tuple[str, ...], count: int) -> list[World]:
    """The worlds shown by ``count`` separate image files, or by the ``count`` tiles of one
    composite picture (remembered per file and modification)."""
    if len(paths) == count:
        out: list[World] = []
        for p in paths:
            stat = Path(p).stat()
            out += _perceive_file(p, (stat.st_mtime_ns, stat.st_size), 1)
        return out
    if len(paths) == 1:
        stat = Path(paths[0]).stat()
        return list(_perceive_file(paths[0], (stat.st_mtime_ns, stat.st_size), count))
    raise ValueError(f"expected {count} images or one composite, got {len(paths)}")
