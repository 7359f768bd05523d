"""Scene records: objects with shape, colour, size, position, orientation on a canvas."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from whatifbench.scenes.palette import COLORS
from whatifbench.scenes.shapes import FLOWER_KINDS, SHAPES

STYLES = ("solid", "outline", "tinted")
"""How an object is drawn: filled, as a line, or as a translucent region with a line.

``outline`` and ``tinted`` objects are *containers*: other objects may sit inside them.
"""


class SceneError(ValueError):
    """A scene, selector, program or intervention that cannot be built or applied."""


Point = tuple[float, float]


@dataclass(frozen=True)
class SceneObject:
    """One object on the canvas. Coordinates are pixels, ``y`` grows downwards."""

    id: str
    """Unique within its scene (interventions and selectors refer to it)."""
    shape: str
    """One of ``shapes.SHAPES`` (circle, square, triangle, star, cross, polygon, flower ...)."""
    color: str
    """Palette name of the fill (``solid``) or line and tint (``outline``/``tinted``)."""
    x: float
    """Centre, horizontal."""
    y: float
    """Centre, vertical (downwards)."""
    size: float
    """Radius of the unstretched shape's bounding circle, in pixels."""
    angle: float = 0.0
    """Rotation in degrees, counter-clockwise as seen on screen."""
    sx: float = 1.0
    """Horizontal stretch of the shape before rotation (squash < 1 < stretch)."""
    sy: float = 1.0
    """Vertical stretch of the shape before rotation."""
    style: str = "solid"
    """One of ``STYLES``."""
    variant: str | None = None
    """Sub-kind, e.g. the flower kind (``shapes.FLOWER_KINDS``; ``None``: unknown, drawn as
    ``shapes.DEFAULT_FLOWER``)."""
    accent: str | None = None
    """Second colour (a flower's centre); ``None`` uses a default."""
    label: str | None = None
    """Optional text drawn at the object's centre."""
    vertices: tuple[Point, ...] = ()
    """For ``polygon``: vertices relative to the centre in units of ``size`` (before stretch and
    rotation), so that resizing scales the polygon."""
    line_width: int = 3
    """Line width of ``outline`` and ``tinted`` objects, in pixels."""

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise SceneError(f"object {self.id!r}: unknown shape {self.shape!r}")
        if self.style not in STYLES:
            raise SceneError(f"object {self.id!r}: unknown style {self.style!r}")
        for colour in (self.color, self.accent):
            if colour is not None and colour not in COLORS:
                raise SceneError(f"object {self.id!r}: unknown colour {colour!r}")
        if self.shape == "polygon" and len(self.vertices) < 3:
            raise SceneError(f"object {self.id!r}: a polygon needs at least 3 vertices")
        if self.shape == "flower" and self.variant not in (None, *FLOWER_KINDS):
            raise SceneError(f"object {self.id!r}: flower kind must be one of {FLOWER_KINDS}")
        if self.size <= 0 or self.sx <= 0 or self.sy <= 0:
            raise SceneError(f"object {self.id!r}: size and stretch must be positive")

    @property
    def is_container(self) -> bool:
        """True for outline and tinted objects (regions that can hold others)."""
        return self.style != "solid"

    def replace(self, **changes: Any) -> SceneObject:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """JSON form (fields at their default value are left out)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in ("id", "shape", "color", "x", "y", "size") or value != f.default:
                out[f.name] = [list(v) for v in value] if f.name == "vertices" else value
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> SceneObject:
        """Inverse of ``to_json``."""
        data = dict(obj)
        if "vertices" in data:
            data["vertices"] = tuple((float(a), float(b)) for a, b in data["vertices"])
        return cls(**data)


@dataclass(frozen=True)
class Scene:
    """A canvas and the objects on it, in drawing order."""

    width: int
    """Canvas width in pixels."""
    height: int
    """Canvas height in pixels."""
    objects: tuple[SceneObject, ...] = ()
    """Objects in drawing order (later objects are drawn over earlier ones)."""
    background: str = "white"
    """Palette name of the background."""
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Derived data computed on demand (e.g. the containment table); not part of the scene."""

    def __post_init__(self) -> None:
        if len({obj.id for obj in self.objects}) != len(self.objects):
            seen: set[str] = set()
            for obj in self.objects:
                if obj.id in seen:
                    raise SceneError(f"duplicate object id {obj.id!r}")
                seen.add(obj.id)
        if self.background not in COLORS:
            raise SceneError(f"unknown background colour {self.background!r}")

    def get(self, object_id: str) -> SceneObject:
        """The object with this id."""
        for obj in self.objects:
            if obj.id == object_id:
                return obj
        raise SceneError(f"the scene has no object {object_id!r}")

    def with_objects(self, objects: Iterable[SceneObject]) -> Scene:
        """The same canvas with other objects."""
        return Scene(self.width, self.height, tuple(objects), self.background)

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"width": self.width, "height": self.height, "background": self.background,
                "objects": [o.to_json() for o in self.objects]}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Scene:
        """Inverse of ``to_json``."""
        return cls(int(obj["width"]), int(obj["height"]),
                   tuple(SceneObject.from_json(o) for o in obj.get("objects", [])),
                   str(obj.get("background", "white")))
