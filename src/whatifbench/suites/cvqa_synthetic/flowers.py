"""Flower scenes (templates 1–3): two overlapping tinted polygons and flowers in their regions.

The two polygons (different release colours) split the canvas into four regions; flowers of
several kinds are placed so that none comes near a polygon edge or another flower. The counts
per region are drawn so that the answers fall into the release's ranges; the answers themselves
are computed afterwards by the template programs on the finished scene.
"""

from __future__ import annotations

import math
import random

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from whatifbench.scenes.geometry import outline
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.palette import RELEASE_COLORS
from whatifbench.scenes.shapes import FLOWER_KINDS

CANVAS = 512
LINE = 3
FLOWER_SIZES = (10, 11, 12, 13)
"""Flower radii in pixels."""
EDGE_GAP = 3
"""Least gap between a flower and a polygon's line (the line counted with its full width on
both sides of the edge)."""
EDGE_CLEARANCE = max(FLOWER_SIZES) + LINE + EDGE_GAP
"""Least distance from a flower's centre to a polygon edge."""
RASTER = 2
"""Downscaling of the coarse map used to pick candidate positions."""
SAFETY = RASTER
"""Extra pixels of the coarse edge band (raster rounding); the finished scene is checked
exactly by the validity filters."""
FLOWER_GAP = 3
"""Least gap between two flowers, in pixels."""
POLYGON_RADII = (150.0, 195.0)
"""Range of a polygon's bounding radius, in pixels."""
CANDIDATES = 2500
"""Random candidate positions drawn per placement attempt."""
PETAL_COLORS = ("red", "pink", "purple", "orange", "blue", "yellow")
CENTRE_COLORS = ("yellow", "orange", "brown", "black")

REGIONS = ("A", "AB", "B", "0")
"""Inside the asked polygon only, inside both, inside the other only, outside both."""


def quotas(template: int, rng: random.Random) -> dict[str, int]:
    """Flowers per region, chosen so that the answers land in the release's ranges."""
    if template == 1:  # original = B + 0 (2–24), counterfactual = 0 (1–12)
        return {"A": rng.randint(1, 6), "AB": rng.randint(1, 6), "B": rng.randint(1, 12),
                "0": rng.randint(1, 12)}
    if template == 2:  # original = A + AB (3–23)
        total = rng.randint(3, 23)
        both = rng.randint(max(1, total - 12), min(total - 1, 11))
        return {"A": total - both, "AB": both, "B": rng.randint(1, 6), "0": rng.randint(1, 6)}
    # template 3: original = A + AB (2–24), counterfactual = A (1–12)
    return {"A": rng.randint(1, 12), "AB": rng.randint(1, 12), "B": rng.randint(0, 6),
            "0": rng.randint(1, 6)}


def random_polygon(rng: random.Random, oid: str, color: str, cx: float, cy: float,
                   radius: float) -> SceneObject:
    """A random star-shaped polygon (5–8 vertices) of bounding radius ``radius``."""
    n = rng.randint(5, 8)
    step = 360.0 / n
    start = rng.uniform(0.0, 360.0)
    vertices = []
    for i in range(n):
        a = math.radians(start + step * (i + rng.uniform(-0.3, 0.3)))
        r = rng.uniform(0.7, 1.0)
        vertices.append((round(r * math.cos(a), 4), round(r * math.sin(a), 4)))
    return SceneObject(oid, "polygon", color, round(cx, 2), round(cy, 2), round(radius, 2),
                       style="tinted", vertices=tuple(vertices), line_width=LINE)


def _polygons(rng: random.Random) -> tuple[SceneObject, SceneObject]:
    c1, c2 = rng.sample(RELEASE_COLORS, 2)
    r1, r2 = rng.uniform(*POLYGON_RADII), rng.uniform(*POLYGON_RADII)
    while True:
        x1, y1 = (rng.uniform(r1 + 6, CANVAS - r1 - 6) for _ in range(2))
        phi = rng.uniform(0.0, 2 * math.pi)
        d = rng.uniform(0.45, 0.95) * (r1 + r2) / 2
        x2, y2 = x1 + d * math.cos(phi), y1 + d * math.sin(phi)
        if r2 + 6 <= x2 <= CANVAS - r2 - 6 and r2 + 6 <= y2 <= CANVAS - r2 - 6:
            return (random_polygon(rng, "polygon-1", c1, x1, y1, r1),
                    random_polygon(rng, "polygon-2", c2, x2, y2, r2))


def _raster(p1: SceneObject, p2: SceneObject) -> np.ndarray:
    """Coarse map (``1 / RASTER`` resolution): bit 0 inside ``p1``, bit 1 inside ``p2``, bit 2
    within ``EDGE_CLEARANCE + SAFETY`` pixels of an edge."""
    size = (CANVAS // RASTER, CANVAS // RASTER)
    near = Image.new("L", size, 0)
    band = ImageDraw.Draw(near)
    reach = (EDGE_CLEARANCE + SAFETY) / RASTER
    layers = []
    for value, poly in ((1, p1), (2, p2)):
        pts = [(x / RASTER, y / RASTER) for x, y in outline(poly)]
        layer = Image.new("L", size, 0)
        ImageDraw.Draw(layer).polygon(pts, fill=value)
        layers.append(layer)
        band.line([*pts, pts[0]], fill=4, width=round(2 * reach) + 1)
        for x, y in pts:  # round joints
            band.ellipse((x - reach, y - reach, x + reach, y + reach), fill=4)
    # The three layers hold distinct bits, so adding them is a bitwise or.
    both = ImageChops.add_modulo(layers[0], layers[1])
    return np.asarray(ImageChops.add_modulo(both, near))


def _place(nprng: np.random.Generator, p1: SceneObject, p2: SceneObject, asked: int,
           want: dict[str, int]) -> list[tuple[int, int, int]] | None:
    """Flower centres and radii meeting the quotas, or ``None`` when the regions are too small.

    Candidates are looked up in a coarse raster (region, and a band around the edges that is
    wider than any flower needs); flowers are then accepted greedily when clear of the others.
    The exact check against the edges is the engine's ``scene_problems`` on the finished scene.
    """
    border = max(FLOWER_SIZES) + 2
    u = nprng.random((3, CANDIDATES))
    xs = (border + u[0] * (CANVAS - 2 * border)).astype(np.int64)
    ys = (border + u[1] * (CANVAS - 2 * border)).astype(np.int64)
    sizes = np.asarray(FLOWER_SIZES)[(u[2] * len(FLOWER_SIZES)).astype(np.int64)]
    value = _raster(p1, p2)[ys // RASTER, xs // RASTER]
    label = {"AB": 3, "0": 0, "A": 1 if asked == 0 else 2, "B": 2 if asked == 0 else 1}
    pools = {region: np.flatnonzero(value == label[region]) for region in REGIONS}
    if any(len(pools[r]) < 2 * want[r] for r in REGIONS):
        return None  # a region is too small: do not try
    placed: list[tuple[int, int, int]] = []
    for region in REGIONS:
        need = want[region]
        if not need:
            continue
        pool = pools[region]
        mine = _pack(xs[pool].tolist(), ys[pool].tolist(), sizes[pool].tolist(), need)
        for _ in range(2):  # packing is random: a dense region may need another order
            if mine is not None:
                break
            order = nprng.permutation(len(pool))
            mine = _pack(xs[pool][order].tolist(), ys[pool][order].tolist(),
                         sizes[pool][order].tolist(), need)
        if mine is None:
            return None
        placed += mine
    return placed


def _pack(xs: list[int], ys: list[int], sizes: list[int],
          need: int) -> list[tuple[int, int, int]] | None:
    """The first ``need`` candidates (in order) that keep ``FLOWER_GAP`` from each other."""
    mine: list[tuple[int, int, int]] = []
    for x, y, size in zip(xs, ys, sizes, strict=True):
        for px, py, ps in mine:
            reach = size + ps + FLOWER_GAP
            if (x - px) ** 2 + (y - py) ** 2 < reach * reach:
                break
        else:
            mine.append((x, y, size))
            if len(mine) == need:
                return mine
    return None


def flower_scene(template: int, rng: random.Random) -> tuple[Scene, str, str]:
    """A flower scene for template 1–3 and the (asked, other) polygon colours."""
    want = quotas(template, rng)
    nprng = np.random.default_rng(rng.getrandbits(64))
    while True:
        p1, p2 = _polygons(rng)
        asked = rng.randrange(2)
        placed = _place(nprng, p1, p2, asked, want)
        if placed is not None:
            break
    rng.shuffle(placed)
    n = len(placed)
    looks = zip(nprng.integers(0, len(PETAL_COLORS), n).tolist(),
                nprng.random(n).tolist(),
                nprng.integers(0, 24, n).tolist(), nprng.integers(0, len(FLOWER_KINDS), n).tolist(),
                strict=True)
    flowers = []
    for i, ((x, y, size), (petal, centre, turn, kind)) in enumerate(zip(placed, looks,
                                                                       strict=True), start=1):
        color = PETAL_COLORS[petal]
        accents = [c for c in CENTRE_COLORS if c != color]
        accent = accents[int(centre * len(accents))]
        flowers.append(SceneObject(f"flower-{i}", "flower", color, float(x), float(y),
                                   float(size), angle=15.0 * turn, variant=FLOWER_KINDS[kind],
                                   accent=accent))
    colors = (p1.color, p2.color) if asked == 0 else (p2.color, p1.color)
    return Scene(CANVAS, CANVAS, (p1, p2, *flowers)), colors[0], colors[1]
