"""Programs that answer in words, for two-option questions (CFMM style): yes/no, left/right or
above/below, which of two objects is larger, the name a shape is seen as, where a triangle
points. Each reports its near-ties through ``ambiguities(scene)`` like the other programs.

Interventions whose values come from other objects of the scene: ``MatchColor`` ("painted the
same colour as …"), ``SwapSizes`` ("… swapped sizes"), ``MatchSize`` ("as big as …"); sizes are
compared by area or by extent (the larger side of the bounding box).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from whatifbench.scenes.filters import POSITION_TIE, SIZE_TIE, size_tie
from whatifbench.scenes.geometry import area, object_bbox, outline
from whatifbench.scenes.interventions import Intervention
from whatifbench.scenes.model import Scene, SceneError, SceneObject
from whatifbench.scenes.programs import Program
from whatifbench.scenes.selectors import Selector


def one(selector: Selector, scene: Scene) -> SceneObject:
    """The one object a selector picks (``SceneError`` otherwise)."""
    found = selector.select(scene)
    if len(found) != 1:
        raise SceneError(f"the question refers to one object but {len(found)} match")
    return found[0]


def _one_problems(scene: Scene, *selectors: Selector) -> list[str]:
    counts = [len(s.select(scene)) for s in selectors]
    return [f"the question refers to one object but {n} match" for n in counts if n != 1]


@dataclass(frozen=True)
class YesNo(Program):
    """``yes`` or ``no``: a true/false program's answer as a word."""

    question: Program
    """A program returning a bool (``Larger``, ``Relation``, ``WiderThanTall`` ...)."""

    def execute(self, scene: Scene) -> str:
        return "yes" if self.question.execute(scene) else "no"

    def to_json(self) -> dict[str, Any]:
        return {"program": "yes-no", "question": self.question.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        return self.question.ambiguities(scene)


SIDE_WORDS = {"x": ("left", "right"), "y": ("above", "below")}
"""Answer words per axis: (``a`` before ``b``, ``a`` after ``b``)."""


@dataclass(frozen=True)
class Side(Program):
    """Is the one object of ``a`` left or right of (``x``), or above or below (``y``), the one
    object of ``b``? Decided by the centres; a near-tie is reported when the two objects'
    extents along the axis are less than ``POSITION_TIE`` pixels apart (overlapping extents
    leave "left of" open to interpretation)."""

    a: Selector
    """The object asked about."""
    b: Selector
    """The reference object."""
    axis: str = "x"
    """``x`` (left/right) or ``y`` (above/below)."""

    def __post_init__(self) -> None:
        if self.axis not in SIDE_WORDS:
            raise SceneError(f"unknown axis {self.axis!r}; use x or y")

    def execute(self, scene: Scene) -> str:
        a, b = one(self.a, scene), one(self.b, scene)
        k = 0 if self.axis == "x" else 1
        before = (a.x, a.y)[k] < (b.x, b.y)[k]
        return SIDE_WORDS[self.axis][0 if before else 1]

    def to_json(self) -> dict[str, Any]:
        return {"program": "side", "a": self.a.to_json(), "b": self.b.to_json(),
                "axis": self.axis}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = _one_problems(scene, self.a, self.b)
        if found:
            return found
        k = 0 if self.axis == "x" else 1
        a, b = object_bbox(one(self.a, scene)), object_bbox(one(self.b, scene))
        gap = max(b[k] - a[k + 2], a[k] - b[k + 2])
        if gap < POSITION_TIE:
            found.append(f"the objects are less than {POSITION_TIE:g} pixels apart along "
                         f"{self.axis}")
        return found


def extent(obj: SceneObject) -> float:
    """The larger side of the object's bounding box."""
    x0, y0, x1, y1 = object_bbox(obj)
    return max(x1 - x0, y1 - y0)


def size_problems(a: SceneObject, b: SceneObject) -> list[str]:
    """Why "which is larger" could be read two ways: areas within ``SIZE_TIE``, or area and
    extent disagreeing (a star spans more than a square of the same area)."""
    problems = []
    if size_tie(area(a), area(b)):
        problems.append(f"areas within {SIZE_TIE:.0%}")
    if (area(a) > area(b)) != (extent(a) > extent(b)):
        problems.append("area and extent disagree on which is larger")
    return problems


@dataclass(frozen=True)
class LargerOne(Program):
    """An attribute (default: the shape) of the larger (by area) of two objects, or of the
    smaller with ``smaller=True``."""

    a: Selector
    """First object."""
    b: Selector
    """Second object."""
    attribute: str = "shape"
    """What to answer with (``shape``, ``color`` ...)."""
    smaller: bool = False
    """Answer with the smaller object instead."""

    def execute(self, scene: Scene) -> str:
        a, b = one(self.a, scene), one(self.b, scene)
        pick = a if (area(a) > area(b)) != self.smaller else b
        return str(getattr(pick, self.attribute))

    def to_json(self) -> dict[str, Any]:
        return {"program": "larger-one", "a": self.a.to_json(), "b": self.b.to_json(),
                "attribute": self.attribute, "smaller": self.smaller}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = _one_problems(scene, self.a, self.b)
        if found:
            return found
        a, b = one(self.a, scene), one(self.b, scene)
        if getattr(a, self.attribute) == getattr(b, self.attribute):
            found.append(f"both objects have the same {self.attribute}")
        return found + size_problems(a, b)


ROUND_NAMES = ("circle", "oval")
BOX_NAMES = ("square", "rectangle")
SQUARE_RATIO = 1.1
"""Side ratios up to this are seen as equal (a square, a circle)."""
LONG_RATIO = 1.3
"""Side ratios from this on are clearly unequal (a rectangle, an oval); in between: a tie."""
RECTANGLE_ASPECT = 0.894 / 0.447
"""Width / height of the unit rectangle (``shapes.OUTLINES``)."""


def side_ratio(obj: SceneObject) -> float | None:
    """Long side / short side of a box or round shape along its own axes (``None`` for other
    shapes)."""
    if obj.shape in ("square", "circle", "dot"):
        w, h = obj.sx, obj.sy
    elif obj.shape == "rectangle":
        w, h = RECTANGLE_ASPECT * obj.sx, obj.sy
    else:
        return None
    return max(w, h) / min(w, h)


def seen_shape(obj: SceneObject) -> str | None:
    """The name the shape is seen as: a stretched square is a rectangle, a rectangle with equal
    sides a square, a stretched circle an oval; ``None`` when the sides are nearly but not
    quite equal. Other shapes keep their name (rotation never changes it)."""
    ratio = side_ratio(obj)
    if ratio is None:
        return obj.shape
    names = ROUND_NAMES if obj.shape in ("circle", "dot") else BOX_NAMES
    if ratio <= SQUARE_RATIO:
        return names[0]
    if ratio >= LONG_RATIO:
        return names[1]
    return None


@dataclass(frozen=True)
class SeenShape(Program):
    """The name the one selected object's shape is seen as (``seen_shape``)."""

    target: Selector
    """Must select exactly one object."""

    def execute(self, scene: Scene) -> str:
        obj = one(self.target, scene)
        return seen_shape(obj) or obj.shape

    def to_json(self) -> dict[str, Any]:
        return {"program": "seen-shape", "target": self.target.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = _one_problems(scene, self.target)
        if not found and seen_shape(one(self.target, scene)) is None:
            found.append("the sides are nearly equal: neither clearly equal nor unequal")
        return found


POINT_TIE = 0.1
"""``Pointing``: offsets below this share of the object's size are a near-tie."""


def _centroid(points: tuple[tuple[float, float], ...]) -> tuple[float, float]:
    n = len(points)
    a = cx = cy = 0.0
    for i in range(n):
        x0, y0 = points[i]
        x1, y1 = points[(i + 1) % n]
        cross = x0 * y1 - x1 * y0
        a += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    return cx / (3 * a), cy / (3 * a)


def pointing(obj: SceneObject) -> tuple[str, float]:
    """Where the object points (``up``, ``down``, ``left``, ``right``) and how clearly: its
    bounding box reaches further from its area's centroid on the side it points to. The second
    value is the winning offset minus the runner-up, in units of the object's size."""
    pts = outline(obj)
    cx, cy = _centroid(pts)
    x0, y0, x1, y1 = object_bbox(obj)
    offsets = {"up": (cy - y0) - (y1 - cy), "down": (y1 - cy) - (cy - y0),
               "left": (cx - x0) - (x1 - cx), "right": (x1 - cx) - (cx - x0)}
    ranked = sorted(offsets.items(), key=lambda kv: -kv[1])
    return ranked[0][0], (ranked[0][1] - max(ranked[1][1], 0.0)) / obj.size


@dataclass(frozen=True)
class Pointing(Program):
    """Where the one selected object (a triangle) points: up, down, left or right."""

    target: Selector
    """Must select exactly one object."""

    def execute(self, scene: Scene) -> str:
        return pointing(one(self.target, scene))[0]

    def to_json(self) -> dict[str, Any]:
        return {"program": "pointing", "target": self.target.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = _one_problems(scene, self.target)
        if not found and pointing(one(self.target, scene))[1] < POINT_TIE:
            found.append("the object does not clearly point one way")
        return found


@dataclass(frozen=True)
class MatchColor(Intervention):
    """Paint the selected objects the colour of another object ("the same colour as ...")."""

    target: Selector
    """What to recolour."""
    source: Selector
    """The one object whose colour is copied (selected before the change)."""
    name: ClassVar[str] = "match-color"

    def apply(self, scene: Scene) -> Scene:
        color = one(self.source, scene).color
        ids = {o.id for o in self.target.select(scene)}
        return scene.with_objects(o.replace(color=color) if o.id in ids else o
                                  for o in scene.objects)

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "source": self.source.to_json()}


SIZE_MEASURES = ("area", "extent")
"""What "as big as" compares: the area, or the larger side of the bounding box."""


def _measure(obj: SceneObject, measure: str) -> float:
    return area(obj) if measure == "area" else extent(obj)


def resized_to(obj: SceneObject, value: float, measure: str = "area") -> SceneObject:
    """The object scaled about its centre so that its ``measure`` becomes ``value``."""
    now = _measure(obj, measure)
    factor = (value / now) ** 0.5 if measure == "area" else value / now
    return obj.replace(size=obj.size * factor)


def _check_measure(measure: str) -> None:
    if measure not in SIZE_MEASURES:
        raise SceneError(f"unknown size measure {measure!r}; use area or extent")


@dataclass(frozen=True)
class SwapSizes(Intervention):
    """Two objects exchange their sizes (each is scaled to the other's area, or extent)."""

    a: Selector
    """The first object (exactly one)."""
    b: Selector
    """The second object (exactly one)."""
    measure: str = "area"
    """``area`` or ``extent`` (the larger side of the bounding box)."""
    name: ClassVar[str] = "swap-sizes"

    def __post_init__(self) -> None:
        _check_measure(self.measure)

    def apply(self, scene: Scene) -> Scene:
        a, b = one(self.a, scene), one(self.b, scene)
        new = {a.id: resized_to(a, _measure(b, self.measure), self.measure),
               b.id: resized_to(b, _measure(a, self.measure), self.measure)}
        return scene.with_objects(new.get(o.id, o) for o in scene.objects)

    def params(self) -> dict[str, Any]:
        return {"a": self.a.to_json(), "b": self.b.to_json(), "measure": self.measure}


@dataclass(frozen=True)
class MatchSize(Intervention):
    """Scale the selected objects to the size of another object ("as big as ...")."""

    target: Selector
    """What to resize."""
    source: Selector
    """The one object whose size is copied (selected before the change)."""
    measure: str = "area"
    """``area`` or ``extent``."""
    name: ClassVar[str] = "match-size"

    def __post_init__(self) -> None:
        _check_measure(self.measure)

    def apply(self, scene: Scene) -> Scene:
        value = _measure(one(self.source, scene), self.measure)
        ids = {o.id for o in self.target.select(scene)}
        return scene.with_objects(resized_to(o, value, self.measure) if o.id in ids else o
                                  for o in scene.objects)

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "source": self.source.to_json(),
                "measure": self.measure}
