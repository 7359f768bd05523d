"""De-rendering: read a flat-colour scene image back into a ``scenes.Scene``.

Classical image processing only (numpy, scipy.ndimage): each distinct colour is classified as
background, a translucent tint of one or two palette colours (polygon regions), or ink.
Tinted regions become polygons (their outline traced and simplified); ink blobs become
flowers (several colours), dots (one colour, round and small) or circles (large rings).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from whatifbench.core.images import open_image
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.palette import COLORS, RELEASE_COLORS, RGB, composite, nearest

WHITE: RGB = (255, 255, 255)
TOLERANCE = 12
"""Largest squared RGB distance at which a colour counts as a known tint."""
MIN_REGION = 400
"""Fewest pixels of a tint for it to count as a polygon."""
SMALL = 40
"""Largest side (pixels) of a blob that is a flower or a dot."""
BRIDGE = 5
"""Pixels of ink next to a tinted region that may belong to it (its lines and crossings)."""


@dataclass(frozen=True)
class Colors:
    """The image as colour labels."""

    labels: np.ndarray
    """``(height, width)`` index into ``rgb``."""
    rgb: list[RGB]
    """The colour of each label."""


def load(path: str | Path) -> Colors:
    """Read an image as colour labels (palette images keep their indices)."""
    with open_image(path) as img:
        img.load()
        if img.mode == "P" and img.info.get("transparency") is None:
            pal = img.getpalette() or []
            rgb = [(pal[i], pal[i + 1], pal[i + 2]) for i in range(0, len(pal) - 2, 3)]
            return Colors(np.asarray(img), rgb)
        arr = np.asarray(img.convert("RGB")).astype(np.int64)
    packed = (arr[..., 0] << 16) | (arr[..., 1] << 8) | arr[..., 2]
    values, inverse = np.unique(packed, return_inverse=True)
    rgb = [((v >> 16) & 255, (v >> 8) & 255, v & 255) for v in values.tolist()]
    return Colors(inverse.reshape(packed.shape), rgb)


def tint_table(colors: tuple[str, ...] = RELEASE_COLORS,
               pairs: bool = True) -> dict[RGB, tuple[str, ...]]:
    """Tint colours a region can show: one colour, or (``pairs``) two, bottom first."""
    table: dict[RGB, tuple[str, ...]] = {composite(WHITE, [COLORS[c]]): (c,) for c in colors}
    if pairs:
        for a in colors:
            for b in colors:
                if a != b:
                    table.setdefault(composite(WHITE, [COLORS[a], COLORS[b]]), (a, b))
    return table


def classify(colors: Colors) -> list[tuple[str, ...] | None]:
    """Per colour label: ``()`` background, the tint's colour names, or ``None`` for ink.

    First the single-colour tints that cover a region name the polygons' colours; then every
    colour is matched against white and the tints of those colours and their overlaps.
    """
    area = np.bincount(colors.labels.ravel(), minlength=len(colors.rgb)).tolist()
    singles = _match(colors.rgb, tint_table(pairs=False))
    present = tuple(sorted({k[0] for k, n in zip(singles, area, strict=True)
                            if k and n >= MIN_REGION}))
    return _match(colors.rgb, tint_table(present)) if present else [
        () if _d2(rgb, WHITE) <= TOLERANCE else None for rgb in colors.rgb]


def _match(rgbs: list[RGB], tints: dict[RGB, tuple[str, ...]]) -> list[tuple[str, ...] | None]:
    out: list[tuple[str, ...] | None] = []
    for rgb in rgbs:
        if _d2(rgb, WHITE) <= TOLERANCE:
            out.append(())
            continue
        best = min(tints, key=lambda t: _d2(t, rgb))
        out.append(tints[best] if _d2(best, rgb) <= TOLERANCE else None)
    return out


def _d2(a: RGB, b: RGB) -> int:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))


def perceive(path: str | Path) -> Scene:
    """The scene drawn in the image at ``path``."""
    from scipy import ndimage

    colors = load(path)
    kinds = classify(colors)
    labels = colors.labels
    height, width = labels.shape
    lut_ink = np.array([k is None for k in kinds], dtype=np.bool_)
    ink = lut_ink[labels]
    area = np.bincount(labels.ravel(), minlength=len(kinds))
    names = sorted({c for k, n in zip(kinds, area.tolist(), strict=True)
                    if k and len(k) == 1 and n >= MIN_REGION for c in k})
    objects: list[SceneObject] = []
    for i, name in enumerate(names, start=1):
        member = np.array([k is not None and name in k for k in kinds], dtype=np.bool_)
        region = member[labels]
        polygon = _polygon(region, ink, f"polygon-{i}", name, ndimage)
        if polygon is not None:
            objects.append(polygon)
    blobs, _ = ndimage.label(ink, structure=np.ones((3, 3), dtype=np.bool_))
    counts: dict[str, int] = Counter()
    for index, box in enumerate(ndimage.find_objects(blobs), start=1):
        if box is None:
            continue
        obj = _blob(blobs[box] == index, labels[box], colors.rgb, box, bool(names), counts)
        if obj is not None:
            objects.append(obj)
    return Scene(width, height, tuple(objects))


def _blob(mask: np.ndarray, labels: np.ndarray, rgb: list[RGB], box: Any, regions: bool,
          counts: dict[str, int]) -> SceneObject | None:
    """A flower, dot or circle from one ink blob (``None`` for polygon lines)."""
    ys, xs = box
    h, w = mask.shape
    inks = Counter(labels[mask].tolist())
    names: Counter[str] = Counter()
    for label, n in inks.items():
        names[nearest(rgb[label])[0]] += n
    main = names.most_common(1)[0][0]
    cx, cy = xs.start + (w - 1) / 2, ys.start + (h - 1) / 2
    if max(h, w) <= SMALL:
        fill = mask.sum() / (h * w)
        if len(names) == 1 and abs(h - w) <= 2 and fill > 0.6:
            counts["dot"] += 1
            return SceneObject(f"dot-{counts['dot']}", "dot", main, cx, cy, max(h, w) / 2)
        counts["flower"] += 1
        accent = names.most_common(2)[1][0] if len(names) > 1 else None
        return SceneObject(f"flower-{counts['flower']}", "flower", main, cx, cy,
                           max(h, w) / 2, accent=accent)
    if regions or abs(h - w) > 3:
        return None  # a polygon's line (or something this reader does not know)
    thickness = max(1, int(np.argmax(mask[h // 2, :] == 0)))
    counts["circle"] += 1
    return SceneObject(f"circle-{counts['circle']}", "circle", main, cx, cy, max(h, w) / 2,
                       style="outline", line_width=thickness)


def _polygon(region: np.ndarray, ink: np.ndarray, oid: str, color: str,
             ndimage: Any) -> SceneObject | None:
    """The polygon whose translucent region is ``region`` (its lines and the flowers on it are
    ink: bridge the ink next to the region, fill the holes, trace the outline)."""
    near = ndimage.binary_dilation(region, iterations=BRIDGE)
    shape = ndimage.binary_fill_holes(region | (ink & near))
    parts, n = ndimage.label(shape)
    if n == 0:
        return None
    sizes = np.bincount(parts.ravel())
    sizes[0] = 0
    shape = parts == int(np.argmax(sizes))
    contour = simplify(trace(shape), 1.0)
    if len(contour) < 3:
        return None
    pts = np.asarray(contour, dtype=float)
    cx, cy = pts.mean(axis=0)
    radius = float(np.hypot(pts[:, 0] - cx, pts[:, 1] - cy).max()) or 1.0
    vertices = tuple((float((x - cx) / radius), float((y - cy) / radius)) for x, y in pts)
    return SceneObject(oid, "polygon", color, float(cx), float(cy), radius, style="tinted",
                       vertices=vertices)


def trace(mask: np.ndarray) -> list[tuple[int, int]]:
    """Outer boundary of the (first) 8-connected component of ``mask`` by Moore-neighbour
    tracing, stopping when the first step repeats; ``(x, y)`` pixel centres, clockwise."""
    padded = np.pad(mask.astype(np.uint8), 1)
    h, w = padded.shape
    data = padded.tobytes()
    start = data.find(1)
    if start < 0:
        return []
    steps = (-1, -w - 1, -w, -w + 1, 1, w + 1, w, w - 1)  # W, NW, N, NE, E, SE, S, SW
    p, back = start, start - 1
    out = [start]
    second = -1
    for _ in range(4 * h * w):  # each boundary pixel is entered at most four times
        k = steps.index(back - p)
        for i in range(1, 9):
            q = p + steps[(k + i) % 8]
            if data[q]:
                back = p + steps[(k + i - 1) % 8]
                break
        else:
            break  # a single pixel
        if p == start:
            if q == second:
                break
            if second < 0:
                second = q
        p = q
        if p != start:
            out.append(p)
    return [(q % w - 1, q // w - 1) for q in out]


def simplify(points: list[tuple[int, int]], tolerance: float) -> list[tuple[int, int]]:
    """Douglas-Peucker simplification of a closed outline."""
    if len(points) < 4:
        return points
    pts = np.asarray(points, dtype=float)
    far = int(np.argmax(np.hypot(pts[:, 0] - pts[0, 0], pts[:, 1] - pts[0, 1])))
    keep = np.zeros(len(pts), dtype=bool)
    keep[[0, far]] = True
    stack = [(0, far), (far, len(pts))]
    while stack:
        a, b = stack.pop()
        end = pts[b % len(pts)]
        seg = pts[a + 1:b]
        if len(seg) == 0:
            continue
        d = end - pts[a]
        norm = float(np.hypot(*d))
        if norm == 0:
            dist = np.hypot(seg[:, 0] - pts[a, 0], seg[:, 1] - pts[a, 1])
        else:
            dist = np.abs(d[0] * (seg[:, 1] - pts[a, 1]) - d[1] * (seg[:, 0] - pts[a, 0])) / norm
        i = int(np.argmax(dist))
        if dist[i] > tolerance:
            keep[a + 1 + i] = True
            stack += [(a, a + 1 + i), (a + 1 + i, b)]
    return [points[i] for i in np.flatnonzero(keep).tolist()]
