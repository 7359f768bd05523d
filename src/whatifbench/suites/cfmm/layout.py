"""Scenes of CFMM-Synthetic: solid shapes well apart on a white canvas, and their words.

Objects are placed at random so that their bounding circles (``geometry.footprint``) stay
``GAP`` pixels apart and ``EDGE`` pixels inside the canvas; an object that an intervention will
grow gets room for its grown size (``reserve``), so the intervened scene is valid too.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from whatifbench.scenes.geometry import footprint
from whatifbench.scenes.model import Scene, SceneObject

CANVAS = 448
"""Width and height of every image, in pixels."""
EDGE = 8
"""Least distance between an object's bounding circle and the canvas edge."""
GAP = 12
"""Least distance between the bounding circles of two objects."""
TRIES = 300
"""Random positions tried per object before the scene is drawn again."""

SHAPES = ("circle", "square", "triangle", "star", "hexagon", "cross", "diamond")
"""Shapes objects are drawn from (``rectangle`` only where a template asks for it)."""
COLORS = ("red", "green", "blue", "yellow", "purple", "orange", "pink", "black", "gray",
          "brown")
"""Colours objects are painted in (white is the background)."""

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten")
"""Numbers as they are written in premises."""


def plural(shape: str) -> str:
    """``triangle`` → ``triangles``, ``cross`` → ``crosses``."""
    return shape + ("es" if shape.endswith("ss") else "s")


def noun(shape: str, n: int) -> str:
    """The shape's word for ``n`` objects."""
    return shape if n == 1 else plural(shape)


def number_word(n: int) -> str:
    """``2`` → ``two``."""
    return NUMBER_WORDS[n]


def solid(oid: str, shape: str, color: str, size: float, *, sx: float = 1.0, sy: float = 1.0,
          angle: float = 0.0) -> SceneObject:
    """An unplaced solid object (position 0, 0)."""
    return SceneObject(oid, shape, color, 0.0, 0.0, round(size, 1), angle, sx, sy)


def place(rng: random.Random, objects: Sequence[SceneObject],
          reserve: Mapping[str, float] | None = None, existing: Sequence[SceneObject] = (),
          width: int = CANVAS, height: int = CANVAS) -> list[SceneObject] | None:
    """``objects`` at random free positions (``None`` when one does not fit).

    ``reserve`` gives some objects a larger radius to keep free (room to grow); ``existing``
    objects are already placed and must be kept clear of. Larger objects are placed first;
    the result keeps the order of ``objects``.
    """
    reserve = reserve or {}
    taken = [(o.x, o.y, footprint(o)) for o in existing]
    reach = {o.id: max(footprint(o), reserve.get(o.id, 0.0)) for o in objects}
    spots: dict[str, tuple[float, float]] = {}
    for obj in sorted(objects, key=lambda o: -reach[o.id]):
        r = reach[obj.id]
        low, high_x, high_y = r + EDGE, width - r - EDGE, height - r - EDGE
        if high_x < low or high_y < low:
            return None
        for _ in range(TRIES):
            x, y = round(rng.uniform(low, high_x), 1), round(rng.uniform(low, high_y), 1)
            if all((x - tx) ** 2 + (y - ty) ** 2 >= (r + tr + GAP) ** 2 for tx, ty, tr in taken):
                break
        else:
            return None
        taken.append((x, y, r))
        spots[obj.id] = (x, y)
    return [o.replace(x=spots[o.id][0], y=spots[o.id][1]) for o in objects]


def scene_of(objects: Sequence[SceneObject]) -> Scene:
    """A canvas holding the objects."""
    return Scene(CANVAS, CANVAS, tuple(objects))


def distinct(rng: random.Random, pool: Sequence[str], k: int,
             avoid: Sequence[str] = ()) -> list[str]:
    """``k`` different values of ``pool`` (none of ``avoid``), in random order."""
    return rng.sample([v for v in pool if v not in avoid], k)
