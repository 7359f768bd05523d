"""Geometry of scene objects: outlines, bounding boxes, containment, overlap, distances.

Containment is decided by an object's centre (``within``); ``crosses`` tells whether the object
touches a container's line, so that scenes where the two could disagree are rejected by the
validity filters. Vectorised helpers serve generators that test many candidate points at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from whatifbench.scenes.model import Point, Scene, SceneObject
from whatifbench.scenes.shapes import OUTLINES, ROUND

Box = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)``."""


def transform(obj: SceneObject, points: Sequence[Point]) -> list[Point]:
    """World coordinates of unit points of ``obj`` (stretched, scaled, rotated, moved)."""
    t = math.radians(obj.angle)
    c, s = math.cos(t), math.sin(t)
    kx, ky = obj.size * obj.sx, obj.size * obj.sy
    out = []
    for u, v in points:
        u, v = u * kx, v * ky
        out.append((obj.x + u * c + v * s, obj.y - u * s + v * c))
    return out


@lru_cache(maxsize=8192)
def outline(obj: SceneObject) -> tuple[Point, ...]:
    """The object's outline as a polygon in world coordinates."""
    unit = obj.vertices if obj.shape == "polygon" else OUTLINES[obj.shape]
    return tuple(transform(obj, unit))


def footprint(obj: SceneObject) -> float:
    """Radius of a circle around the centre that holds everything drawn for the object."""
    if obj.shape == "polygon":
        reach = max(math.hypot(u * obj.sx, v * obj.sy) for u, v in obj.vertices) * obj.size
    else:
        reach = obj.size * max(obj.sx, obj.sy)
    return reach + (obj.line_width / 2 if obj.is_container else 0.0)


def bbox(points: Sequence[Point]) -> Box:
    """Bounding box of points."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def object_bbox(obj: SceneObject) -> Box:
    """Bounding box of the object's outline."""
    if is_round(obj):
        r = obj.size * obj.sx
        return (obj.x - r, obj.y - r, obj.x + r, obj.y + r)
    return bbox(outline(obj))


def is_round(obj: SceneObject) -> bool:
    """True when the outline is an exact circle (round shape, not stretched)."""
    return obj.shape in ROUND and obj.sx == obj.sy


def polygon_area(points: Sequence[Point]) -> float:
    """Area of a simple polygon (shoelace formula)."""
    n = len(points)
    twice = sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1]
                for i in range(n))
    return abs(twice) / 2.0


def area(obj: SceneObject) -> float:
    """Area of the object's shape."""
    if is_round(obj):
        return math.pi * (obj.size * obj.sx) ** 2
    return polygon_area(outline(obj))


def point_in_polygon(x: float, y: float, points: Sequence[Point]) -> bool:
    """Even-odd rule: is the point inside the polygon?"""
    inside = False
    x1, y1 = points[-1]
    for x2, y2 in points:
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
        x1, y1 = x2, y2
    return inside


def segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Distance from a point to a segment."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def distance_to_outline(x: float, y: float, points: Sequence[Point]) -> float:
    """Distance from a point to the nearest edge of a polygon."""
    n = len(points)
    return min(segment_distance(x, y, *points[i], *points[(i + 1) % n]) for i in range(n))


def contains_point(container: SceneObject, x: float, y: float) -> bool:
    """Is the point inside the container's region?"""
    if is_round(container):
        return math.hypot(x - container.x, y - container.y) < container.size * container.sx
    return point_in_polygon(x, y, outline(container))


def within(obj: SceneObject, container: SceneObject) -> bool:
    """Is the object inside the container (decided by its centre)?"""
    return obj.id != container.id and contains_point(container, obj.x, obj.y)


def edge_distance(obj: SceneObject, container: SceneObject) -> float:
    """Distance from the object's centre to the container's line (its centre line)."""
    if is_round(container):
        return abs(math.hypot(obj.x - container.x, obj.y - container.y)
                   - container.size * container.sx)
    return distance_to_outline(obj.x, obj.y, outline(container))


def crosses(obj: SceneObject, container: SceneObject, margin: float = 0.0) -> bool:
    """Does the object come within ``margin`` pixels of the container's line?

    The line is counted with its full width on both sides of the geometric outline (renderers
    may draw it inside or centred), so a ``False`` answer holds for either convention.
    """
    reach = footprint(obj) + container.line_width + margin
    return edge_distance(obj, container) < reach


def segments_intersect(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Do segments ab and cd intersect (touching counts)?"""
    def orient(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    d1, d2 = orient(c, d, a), orient(c, d, b)
    d3, d4 = orient(a, b, c), orient(a, b, d)
    if ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)) and 0 not in (d1, d2, d3, d4):
        return True
    return any(v == 0 and _on_segment(p, q, r) for v, p, q, r in
               ((d1, c, d, a), (d2, c, d, b), (d3, a, b, c), (d4, a, b, d)))


def _on_segment(p: Point, q: Point, r: Point) -> bool:
    return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])


def polygons_overlap(p: Sequence[Point], q: Sequence[Point]) -> bool:
    """Do two polygons share any area or boundary point?"""
    for i in range(len(p)):
        for j in range(len(q)):
            if segments_intersect(p[i], p[(i + 1) % len(p)], q[j], q[(j + 1) % len(q)]):
                return True
    return point_in_polygon(*p[0], q) or point_in_polygon(*q[0], p)


def overlaps(a: SceneObject, b: SceneObject, gap: float = 0.0) -> bool:
    """Do two objects' shapes overlap or come closer than ``gap`` pixels?"""
    dist = math.hypot(a.x - b.x, a.y - b.y)
    if dist >= footprint(a) + footprint(b) + gap:
        return False
    if is_round(a) and is_round(b):
        return dist < a.size * a.sx + b.size * b.sx + gap
    return polygons_overlap(outline(a), outline(b))


# -- vectorised helpers for generators ---------------------------------------------------------
def points_in_polygon(xs: np.ndarray, ys: np.ndarray, points: Sequence[Point]) -> np.ndarray:
    """``point_in_polygon`` for arrays of points."""
    inside = np.zeros(xs.shape, dtype=bool)
    x1, y1 = points[-1]
    for x2, y2 in points:
        if y1 != y2:
            crossing = (y1 > ys) != (y2 > ys)
            inside ^= crossing & (xs < (x2 - x1) * (ys - y1) / (y2 - y1) + x1)
        x1, y1 = x2, y2
    return inside


def distances_to_outline(xs: np.ndarray, ys: np.ndarray, points: Sequence[Point]) -> np.ndarray:
    """``distance_to_outline`` for arrays of points."""
    best = np.full(xs.shape, np.inf)
    x1, y1 = points[-1]
    for x2, y2 in points:
        dx, dy = x2 - x1, y2 - y1
        length2 = dx * dx + dy * dy or 1e-12
        t = np.clip(((xs - x1) * dx + (ys - y1) * dy) / length2, 0.0, 1.0)
        np.minimum(best, np.hypot(xs - x1 - t * dx, ys - y1 - t * dy), out=best)
        x1, y1 = x2, y2
    return best


def edges(points: Sequence[Point]) -> np.ndarray:
    """The polygon's edges as an ``(n, 4)`` array of ``x1, y1, x2, y2``."""
    n = len(points)
    return np.array([(*points[i], *points[(i + 1) % n]) for i in range(n)], dtype=float)


def segment_distances(xs: np.ndarray, ys: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """``(points, segments)`` matrix of distances (segment rows ``x1, y1, x2, y2``)."""
    x1, y1, x2, y2 = (segments[:, i][None, :] for i in range(4))
    px, py = xs[:, None], ys[:, None]
    dx, dy = x2 - x1, y2 - y1
    length2 = np.maximum(dx * dx + dy * dy, 1e-12)
    t = np.clip(((px - x1) * dx + (py - y1) * dy) / length2, 0.0, 1.0)
    return np.hypot(px - x1 - t * dx, py - y1 - t * dy)


def distances_to_segments(xs: np.ndarray, ys: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Distance from each point to the nearest of ``segments``."""
    return segment_distances(xs, ys, segments).min(axis=1)


@lru_cache(maxsize=8192)
def edge_array(obj: SceneObject) -> np.ndarray:
    """``edges(outline(obj))``, cached (do not modify the result)."""
    return edges(outline(obj))


def _ray_crossings(xs: np.ndarray, ys: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """``(points, segments)``: does a ray from the point to the right cross the segment?"""
    x1, y1, x2, y2 = (segments[:, i] for i in range(4))
    dy = y2 - y1
    slope = (x2 - x1) / np.where(dy == 0, 1.0, dy)  # horizontal edges never cross a ray
    px, py = xs[:, None], ys[:, None]
    return ((y1 > py) != (y2 > py)) & (px < x1 + (py - y1) * slope)


def inside_edges(xs: np.ndarray, ys: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Even-odd containment of each point in the polygon given by its ``edges``."""
    return np.count_nonzero(_ray_crossings(xs, ys, segments), axis=1) % 2 == 1


def contains_points(container: SceneObject, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """``contains_point`` for arrays of points."""
    if is_round(container):
        return np.hypot(xs - container.x, ys - container.y) < container.size * container.sx
    return inside_edges(xs, ys, edge_array(container))


def within_matrix(objects: Sequence[SceneObject],
                  containers: Sequence[SceneObject]) -> np.ndarray:
    """``within(objects[i], containers[j])`` as an ``(objects, containers)`` boolean array."""
    out = np.zeros((len(objects), len(containers)), dtype=bool)
    if not objects or not containers:
        return out
    xs = np.array([o.x for o in objects], dtype=float)
    ys = np.array([o.y for o in objects], dtype=float)
    index = {o.id: i for i, o in enumerate(objects)}
    for j, c in enumerate(containers):
        out[:, j] = contains_points(c, xs, ys)
        if c.id in index:
            out[index[c.id], j] = False
    return out


@dataclass(frozen=True)
class Containment:
    """Every object against every container of a scene (computed once per scene)."""

    rows: dict[str, int]
    """Object id → row."""
    cols: dict[str, int]
    """Container id → column."""
    inside: np.ndarray
    """``(objects, containers)``: the object's centre lies inside the container."""
    clearance: np.ndarray
    """``(objects, containers)``: pixels between the object's footprint and the container's
    line, the line counted with its full width on both sides (negative: they touch)."""
    xs: np.ndarray
    """Object centres, horizontal (row order)."""
    ys: np.ndarray
    """Object centres, vertical (row order)."""
    reach: np.ndarray
    """Object footprints (row order)."""

    def subset(self, scene: Scene) -> Containment:
        """The table of ``scene``, whose objects are a subset of this table's objects with
        unchanged geometry (e.g. after removals or recolouring)."""
        keep = [self.rows[o.id] for o in scene.objects]
        kept = {o.id for o in scene.objects}
        cols = [j for c, j in self.cols.items() if c in kept]
        names = [c for c in self.cols if c in kept]
        return Containment({o.id: i for i, o in enumerate(scene.objects)},
                           {c: j for j, c in enumerate(names)},
                           self.inside.take(keep, axis=0).take(cols, axis=1),
                           self.clearance.take(keep, axis=0).take(cols, axis=1),
                           self.xs.take(keep), self.ys.take(keep), self.reach.take(keep))


def containment(scene: Scene) -> Containment:
    """The scene's containment table (cached on the scene)."""
    table = scene.cache.get("containment")
    if table is None:
        source = scene.cache.get("geometry_of")
        table = containment(source).subset(scene) if source is not None else _containment(scene)
        scene.cache["containment"] = table
    assert isinstance(table, Containment)
    return table


def _containment(scene: Scene) -> Containment:
    """Vectorised over all objects, and over all edges of all polygon containers at once."""
    objects = scene.objects
    containers = [o for o in objects if o.is_container]
    xs = np.array([o.x for o in objects], dtype=float)
    ys = np.array([o.y for o in objects], dtype=float)
    reach = np.array([footprint(o) for o in objects], dtype=float)
    inside = np.zeros((len(objects), len(containers)), dtype=bool)
    clearance = np.zeros((len(objects), len(containers)), dtype=float)
    polys = [j for j, c in enumerate(containers) if not is_round(c)]
    if polys and objects:
        segments = [edge_array(containers[j]) for j in polys]
        starts = np.cumsum([0] + [len(e) for e in segments[:-1]])
        edges_all = np.vstack(segments)
        clearance[:, polys] = np.minimum.reduceat(segment_distances(xs, ys, edges_all), starts,
                                                  axis=1)
        crossings = np.add.reduceat(_ray_crossings(xs, ys, edges_all), starts, axis=1)
        inside[:, polys] = crossings % 2 == 1
    rounds = [j for j, c in enumerate(containers) if is_round(c)]
    if rounds and objects:  # every round container at once
        cx, cy, radius = np.array([(containers[j].x, containers[j].y,
                                    containers[j].size * containers[j].sx) for j in rounds]).T
        dist = np.hypot(xs[:, None] - cx, ys[:, None] - cy)
        inside[:, rounds] = dist < radius
        clearance[:, rounds] = np.abs(dist - radius)
    clearance -= reach[:, None] + np.array([c.line_width for c in containers], dtype=float)
    rows = {o.id: i for i, o in enumerate(objects)}
    cols = {c.id: j for j, c in enumerate(containers)}
    for c in containers:
        inside[rows[c.id], cols[c.id]] = False
    return Containment(rows, cols, inside, clearance, xs, ys, reach)


def inside_table(scene: Scene, objects: Sequence[SceneObject],
                 containers: Sequence[SceneObject]) -> np.ndarray:
    """``within(objects[i], containers[j])`` for objects of ``scene`` (uses the cached table
    when every container is an outline/tinted container)."""
    if not all(c.is_container for c in containers):
        return within_matrix(objects, containers)
    table = containment(scene)
    rows = [table.rows[o.id] for o in objects]
    cols = [table.cols[c.id] for c in containers]
    return table.inside.take(rows, axis=0).take(cols, axis=1)
