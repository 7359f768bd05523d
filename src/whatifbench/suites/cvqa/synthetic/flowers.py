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

from whatifbench.scenes.geometry import edge_array, outline
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
BORDER = max(FLOWER_SIZES) + 2
"""Least distance from a flower's centre to the canvas edge."""
CELL = 8
"""Cell size (pixels) of the coarse region map candidates are drawn from."""
FLOWER_GAP = 3
"""Least gap between two flowers, in pixels."""
POLYGON_RADII = (150.0, 195.0)
"""Range of a polygon's bounding radius, in pixels."""
AREA_PER_FLOWER = 300
"""Least region area (pixels, edge bands included) per flower asked of it; smaller regions
make a redraw."""
TRIES_PER_FLOWER = 6
"""Candidate positions drawn per flower asked of a region (and a few more), per round."""
ROUNDS = 4
"""Rounds of candidates for a crowded region before the polygons are redrawn."""
PETAL_COLORS = ("red", "pink", "purple", "orange", "blue", "yellow")
CENTRE_COLORS = ("yellow", "orange", "brown", "black")
ACCENTS = {c: tuple(a for a in CENTRE_COLORS if a != c) for c in PETAL_COLORS}
"""Centre colours that differ from each petal colour."""

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


OFF_CANVAS = 4
"""Region-map value of the cells along the canvas border (no flower centre goes there)."""


def _regions(p1: SceneObject, p2: SceneObject) -> Image.Image:
    """Coarse region map, one value per ``CELL`` × ``CELL`` cell (by its centre): bit 0 inside
    ``p1``, bit 1 inside ``p2``; ``OFF_CANVAS`` along the border."""
    n = CANVAS // CELL
    layers = []
    for value, poly in enumerate((p1, p2), start=1):
        layer = Image.new("L", (n, n), 0)
        pts = [(x / CELL - 0.5, y / CELL - 0.5) for x, y in outline(poly)]
        ImageDraw.Draw(layer).polygon(pts, fill=value)
        layers.append(layer)
    regions = ImageChops.add_modulo(layers[0], layers[1])  # distinct bits: a bitwise or
    ImageDraw.Draw(regions).rectangle((0, 0, n - 1, n - 1), outline=OFF_CANVAS,
                                      width=math.ceil(BORDER / CELL))
    return regions


def _place(rng: random.Random, p1: SceneObject, p2: SceneObject, asked: int,
           want: dict[str, int]) -> list[tuple[int, int, int]] | None:
    """Flower centres and radii meeting the quotas, or ``None`` when the regions are too small
    or too crowded for them.

    Each region's candidates are drawn uniformly from its cells of a coarse region map; those
    nearer a polygon edge than their radius + ``LINE`` + ``EDGE_GAP`` (exact distance) are
    dropped, which also leaves only points whose cell cannot be on the wrong side of an edge.
    The rest are accepted greedily when clear of the flowers already placed, with more
    candidates for a crowded region. The engine's ``scene_problems`` checks the finished scene
    again.
    """
    coarse = _regions(p1, p2)
    counts = coarse.histogram()
    value = {"AB": 3, "0": 0, "A": 1 if asked == 0 else 2, "B": 2 if asked == 0 else 1}
    regions = [r for r in REGIONS if want[r]]
    if any(counts[value[r]] * CELL * CELL < want[r] * AREA_PER_FLOWER for r in regions):
        return None
    cells = np.argsort(np.asarray(coarse).ravel(), kind="stable")  # grouped by value
    starts = [sum(counts[:v]) for v in range(OFF_CANVAS)]
    edges = np.vstack([edge_array(p1), edge_array(p2)])
    tries = [TRIES_PER_FLOWER * want[r] + 4 for r in regions]
    firsts = [starts[value[r]] for r in regions]
    spans = [counts[value[r]] for r in regions]
    groups = _candidates(rng, cells, firsts, spans, tries, edges)
    placed: list[tuple[int, int, int]] = []
    for i, region in enumerate(regions):
        mine = _pack(groups[i], want[region], [])
        for _ in range(ROUNDS - 1):  # a crowded region: more candidates
            if len(mine) == want[region]:
                break
            more = _candidates(rng, cells, firsts[i:i + 1], spans[i:i + 1], tries[i:i + 1], edges)
            mine = _pack(more[0], want[region], mine)
        if len(mine) < want[region]:
            return None
        placed += mine
    return placed


def _candidates(rng: random.Random, cells: np.ndarray, firsts: list[int], spans: list[int],
                tries: list[int], edges: np.ndarray) -> list[list[tuple[int, int, int]]]:
    """Per region ``i``, ``tries[i]`` random positions (uniform over the pixels of the cells
    ``cells[firsts[i]:][:spans[i]]``) with random radii, less those too near an edge."""
    total = sum(tries)
    noise = np.frombuffer(rng.randbytes(8 * total), dtype="<u4").reshape(total, 2)
    first = np.repeat(firsts, tries)
    span = np.repeat(np.asarray(spans, dtype=np.uint64), tries)
    cell = cells[first + (noise[:, 0].astype(np.uint64) * span >> np.uint64(32)).astype(np.intp)]
    bits = noise[:, 1]
    side = CANVAS // CELL
    xs = cell % side * CELL + (bits & 0xFF) % CELL
    ys = cell // side * CELL + (bits >> 8 & 0xFF) % CELL
    radii = np.asarray(FLOWER_SIZES)[(bits >> 16 & 0xFF) % len(FLOWER_SIZES)]
    keep = _edge_distance2(xs, ys, edges) >= (radii + (LINE + EDGE_GAP)) ** 2
    kept = np.add.reduceat(keep, np.cumsum([0, *tries[:-1]])).tolist()
    rows = list(zip(xs[keep].tolist(), ys[keep].tolist(), radii[keep].tolist(), strict=True))
    bounds = np.cumsum([0, *kept]).tolist()
    return [rows[bounds[i]:bounds[i + 1]] for i in range(len(tries))]


def _edge_distance2(xs: np.ndarray, ys: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Squared distance from each point to the nearest of ``edges`` (rows ``x1, y1, x2, y2``)."""
    x1, y1 = edges[:, 0], edges[:, 1]
    dx, dy = edges[:, 2] - x1, edges[:, 3] - y1
    px, py = xs[:, None] - x1, ys[:, None] - y1
    t = np.clip((px * dx + py * dy) / np.maximum(dx * dx + dy * dy, 1e-12), 0.0, 1.0)
    px -= t * dx
    py -= t * dy
    return (px * px + py * py).min(axis=1)


def _pack(candidates: list[tuple[int, int, int]], need: int,
          mine: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """``mine`` and then candidates (in order) that keep ``FLOWER_GAP`` from each other, up to
    ``need`` flowers."""
    mine = list(mine)
    for x, y, size in candidates:
        if len(mine) == need:
            break
        for px, py, ps in mine:
            dx, dy, reach = x - px, y - py, size + ps + FLOWER_GAP
            if dx * dx + dy * dy < reach * reach:
                break
        else:
            mine.append((x, y, size))
    return mine


def planned_quotas(template: int, answers: tuple[int, int], rng: random.Random
                   ) -> dict[str, int]:
    """Flowers per region giving exactly ``answers`` (original, counterfactual); the regions
    the answers do not fix are drawn as in ``quotas``. Template 2 fixes the original only (its
    premise removes N of those flowers)."""
    orig, cf = answers
    if template == 1:  # original = B + 0, counterfactual = 0
        return {"A": rng.randint(1, 6), "AB": rng.randint(1, 6), "B": orig - cf, "0": cf}
    if template == 2:
        both = rng.randint(max(1, orig - 12), min(orig - 1, 11))
        return {"A": orig - both, "AB": both, "B": rng.randint(1, 6), "0": rng.randint(1, 6)}
    # template 3: original = A + AB, counterfactual = A
    return {"A": cf, "AB": orig - cf, "B": rng.randint(0, 6), "0": rng.randint(1, 6)}


def flower_scene(template: int, rng: random.Random, answers: tuple[int, int] | None = None
                 ) -> tuple[Scene, str, str]:
    """A flower scene for template 1–3 and the (asked, other) polygon colours; with
    ``answers`` (the shortcut-free design), one whose programs give these answers."""
    want = quotas(template, rng) if answers is None else planned_quotas(template, answers, rng)
    while True:
        p1, p2 = _polygons(rng)
        asked = rng.randrange(2)
        placed = _place(rng, p1, p2, asked, want)
        if placed is not None:
            break
    rng.shuffle(placed)
    looks = rng.randbytes(4 * len(placed))  # petal colour, centre colour, turn, kind
    flowers = []
    for i, (x, y, size) in enumerate(placed):
        petal, centre, turn, kind = looks[4 * i:4 * i + 4]
        color = PETAL_COLORS[petal * len(PETAL_COLORS) >> 8]
        accents = ACCENTS[color]
        flowers.append(SceneObject(
            f"flower-{i + 1}", "flower", color, float(x), float(y), float(size),
            angle=15.0 * (turn * 24 >> 8), variant=FLOWER_KINDS[kind * len(FLOWER_KINDS) >> 8],
            accent=accents[centre * len(accents) >> 8]))
    colors = (p1.color, p2.color) if asked == 0 else (p2.color, p1.color)
    return Scene(CANVAS, CANVAS, (p1, p2, *flowers)), colors[0], colors[1]
