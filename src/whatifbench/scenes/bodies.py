"""Side-view worlds of rigid bodies on a ground line (cause → effect scenes).

A ``World`` is a canvas seen from the side: a gray ground strip at the bottom, blocks (some of
them ice) standing in stacks, balls, flames, scissors, a beam with ropes holding blocks, and
puddles. Every body is an axis-aligned box in integer pixels (inclusive corners), so a pixel
reader recovers the exact numbers that the generator used. Bodies that rest on one another are
separated by ``GAP`` empty pixel rows (a visible seam, so equal colours never merge).

``to_scene`` turns a world into a ``scenes.Scene`` in one of two drawing styles, ``flat``
(filled shapes) and ``outline`` (line drawings; thin bodies stay filled); ``world_distance``
compares two worlds body by body (used to match a predicted effect with an image).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from whatifbench.scenes.model import Scene, SceneObject

GAP = 3
"""Empty pixel rows between a body and the body it rests on."""
KINDS = ("ground", "beam", "rope", "block", "ice", "puddle", "ball", "flame", "scissors")
"""Body kinds."""
MOVABLE = ("block", "ice")
"""Kinds that fall when they lose their support."""
AGENTS = ("ball", "flame", "scissors")
"""Kinds that can trigger a consequence."""
STYLES = ("flat", "outline")
"""Drawing styles."""
THIN = ("ground", "beam", "rope", "puddle")
"""Kinds always drawn filled (a line drawing of a thin strip is the strip)."""
LINE = 2
"""Thickness of a rolling ball's motion lines (pixels)."""
MOTION = ((-3, 12), (0, 16), (3, 12))
"""Motion lines behind a rolling ball: (vertical offset from its centre, length)."""
MOTION_GAP = 4
"""Pixels between a rolling ball and its motion lines."""
OUTLINE_WIDTH = 3
"""Line width of the ``outline`` style."""
UNMATCHED = 200.0
"""``world_distance`` cost of a body without a counterpart."""

FLAME = ((0.0, -1.0), (0.4, -0.45), (0.95, 0.1), (1.0, 0.5), (0.7, 0.85), (0.25, 1.0),
         (-0.25, 1.0), (-0.7, 0.85), (-1.0, 0.5), (-0.95, 0.1), (-0.4, -0.45))
"""A flame's outline in its box (coordinates in [-1, 1], y down)."""


def _scissors() -> tuple[tuple[float, float], ...]:
    """An X of two thin bars (its outline in [-1, 1])."""
    a = 0.2
    arm = ((-a, -1.0), (a, -1.0), (a, -a), (1.0, -a), (1.0, a), (a, a), (a, 1.0), (-a, 1.0),
           (-a, a), (-1.0, a), (-1.0, -a), (-a, -a))
    k = 1.0 / (1.0 + a)
    return tuple(((u - v) * k, (u + v) * k) for u, v in arm)


SCISSORS = _scissors()
"""A pair of scissors drawn as an X (outline in its box, coordinates in [-1, 1])."""


@dataclass(frozen=True)
class Body:
    """One body: an axis-aligned box in integer pixels (inclusive corners, y down)."""

    id: str
    """Unique within its world."""
    kind: str
    """One of ``KINDS``."""
    color: str
    """Palette name."""
    x0: int
    """Left column."""
    y0: int
    """Top row."""
    x1: int
    """Right column (inclusive)."""
    y1: int
    """Bottom row (inclusive)."""
    facing: int = 0
    """A rolling ball's direction (+1 right, -1 left); 0 for bodies at rest."""

    @property
    def width(self) -> int:
        """Width in pixels."""
        return self.x1 - self.x0 + 1

    @property
    def height(self) -> int:
        """Height in pixels."""
        return self.y1 - self.y0 + 1

    @property
    def cx(self) -> float:
        """Centre, horizontal."""
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        """Centre, vertical."""
        return (self.y0 + self.y1) / 2

    def moved(self, dx: int = 0, dy: int = 0) -> Body:
        """The body shifted by ``dx``, ``dy``."""
        return replace(self, x0=self.x0 + dx, x1=self.x1 + dx, y0=self.y0 + dy, y1=self.y1 + dy)

    def overlaps_x(self, other: Body) -> bool:
        """Do the two bodies share a column?"""
        return self.x0 <= other.x1 and other.x0 <= self.x1

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "color": self.color,
                               "box": [self.x0, self.y0, self.x1, self.y1]}
        if self.facing:
            out["facing"] = self.facing
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Body:
        """Inverse of ``to_json``."""
        x0, y0, x1, y1 = (int(v) for v in obj["box"])
        return cls(str(obj["id"]), str(obj["kind"]), str(obj["color"]), x0, y0, x1, y1,
                   int(obj.get("facing", 0)))


@dataclass(frozen=True)
class World:
    """A canvas and its bodies (drawing order: as listed)."""

    width: int
    """Canvas width."""
    height: int
    """Canvas height."""
    bodies: tuple[Body, ...]
    """The bodies, the ground first."""

    def get(self, body_id: str) -> Body:
        """The body with this id."""
        for body in self.bodies:
            if body.id == body_id:
                return body
        raise KeyError(body_id)

    def of_kind(self, *kinds: str) -> list[Body]:
        """Bodies of the given kinds, in order."""
        return [b for b in self.bodies if b.kind in kinds]

    @property
    def ground(self) -> Body | None:
        """The ground strip."""
        found = self.of_kind("ground")
        return found[0] if found else None

    def with_bodies(self, bodies: Iterable[Body]) -> World:
        """The same canvas with other bodies."""
        return World(self.width, self.height, tuple(bodies))

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"width": self.width, "height": self.height,
                "bodies": [b.to_json() for b in self.bodies]}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> World:
        """Inverse of ``to_json``."""
        return cls(int(obj["width"]), int(obj["height"]),
                   tuple(Body.from_json(b) for b in obj["bodies"]))


def _box_object(oid: str, shape: str, color: str, box: tuple[float, float, float, float],
                unit: tuple[tuple[float, float], ...], style: str) -> SceneObject:
    """A polygon object whose unit outline (in [-1, 1]) is stretched over ``box``."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hw, hh = (x1 - x0) / 2, (y1 - y0) / 2
    size = max(hw, hh, 0.5)
    vertices = tuple((u * hw / size, v * hh / size) for u, v in unit)
    return SceneObject(oid, shape, color, cx, cy, size, style=style, vertices=vertices,
                       line_width=OUTLINE_WIDTH)


RECT = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))


def motion_lines(ball: Body) -> list[tuple[int, int, int, int]]:
    """Boxes of the motion lines drawn behind a rolling ball."""
    if not ball.facing:
        return []
    out = []
    cy = round(ball.cy)
    for dy, length in MOTION:
        if ball.facing > 0:
            x1 = ball.x0 - MOTION_GAP
            x0 = x1 - length + 1
        else:
            x0 = ball.x1 + MOTION_GAP
            x1 = x0 + length - 1
        y0 = cy + dy * 2 - LINE // 2
        out.append((x0, y0, x1, y0 + LINE - 1))
    return out


def to_scene(world: World, style: str = "flat") -> Scene:
    """The world as a scene-engine ``Scene`` (rendered with ``scenes.render``)."""
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; use one of {', '.join(STYLES)}")
    objects: list[SceneObject] = []
    for b in world.bodies:
        look = "solid" if style == "flat" or b.kind in THIN else "outline"
        box = (float(b.x0), float(b.y0), float(b.x1), float(b.y1))
        if b.kind == "ball":
            r = (b.x1 - b.x0) / 2
            objects.append(SceneObject(b.id, "circle", b.color, b.x0 + r, b.y0 + r, r,
                                       style=look, line_width=OUTLINE_WIDTH))
            for k, (x0, y0, x1, y1) in enumerate(motion_lines(b)):
                objects.append(_box_object(f"{b.id}-motion-{k}", "polygon", "black",
                                           (x0, y0, x1, y1), RECT, "solid"))
            continue
        unit = FLAME if b.kind == "flame" else SCISSORS if b.kind == "scissors" else RECT
        objects.append(_box_object(b.id, "polygon", b.color, box, unit, look))
    return Scene(world.width, world.height, tuple(objects))


def world_distance(a: World, b: World) -> float:
    """How different two worlds look: bodies are matched by kind and colour (centres measured
    from each world's ground corner), each matched pair costs its centre distance plus its size
    difference, each body left without a counterpart ``UNMATCHED``; rolling and resting balls
    differ by ``UNMATCHED / 2``."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    def origin(w: World) -> tuple[float, float]:
        g = w.ground
        return (g.x0, g.y0) if g is not None else (0.0, float(w.height))

    (ax, ay), (bx, by) = origin(a), origin(b)
    groups: dict[tuple[str, str], tuple[list[Body], list[Body]]] = {}
    for body in a.bodies:
        if body.kind != "ground":
            groups.setdefault((body.kind, body.color), ([], []))[0].append(body)
    for body in b.bodies:
        if body.kind != "ground":
            groups.setdefault((body.kind, body.color), ([], []))[1].append(body)
    total = 0.0
    for left, right in groups.values():
        if not left or not right:
            total += UNMATCHED * (len(left) + len(right))
            continue
        cost = np.array([[abs((p.cx - ax) - (q.cx - bx)) + abs((p.cy - ay) - (q.cy - by))
                          + abs(p.width - q.width) + abs(p.height - q.height)
                          + (UNMATCHED / 2 if bool(p.facing) != bool(q.facing) else 0.0)
                          for q in right] for p in left])
        rows, cols = linear_sum_assignment(cost)
        total += float(cost[rows, cols].sum())
        total += UNMATCHED * (len(left) + len(right) - 2 * len(rows))
    return total
