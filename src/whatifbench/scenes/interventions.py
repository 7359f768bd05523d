"""Interventions: typed, pure functions Scene → Scene that record themselves for provenance.

Each takes selectors for the objects it changes (resolved on the scene it is applied to) and
``to_json()`` gives its name and parameters. ``apply_all`` applies a sequence in order.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from whatifbench.scenes.model import Scene, SceneError, SceneObject
from whatifbench.scenes.palette import COLORS
from whatifbench.scenes.selectors import All, Selector


class Intervention(ABC):
    """A change to a scene."""

    name: ClassVar[str] = "intervention"

    @abstractmethod
    def apply(self, scene: Scene) -> Scene:
        """The changed scene (the input is left as it is)."""

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """Parameters for provenance."""

    def to_json(self) -> dict[str, Any]:
        """``{"intervention": name, **params}``."""
        return {"intervention": self.name, **self.params()}

    def ambiguities(self, scene: Scene) -> list[str]:
        """Near-ties in the selections this intervention makes on ``scene``."""
        return [a for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if isinstance(value := getattr(self, f.name), Selector)
                for a in value.ambiguities(scene)]


def apply_all(scene: Scene, interventions: Sequence[Intervention]) -> Scene:
    """Apply interventions in order."""
    for intervention in interventions:
        scene = intervention.apply(scene)
    return scene


def _same_geometry(before: Scene, after: Scene) -> Scene:
    """Mark ``after`` (a subset of ``before``'s objects, geometry unchanged) so that its
    containment table is cut from ``before``'s instead of computed again."""
    after.cache["geometry_of"] = before
    return after


def _change(scene: Scene, target: Selector, **changes: Any) -> Scene:
    ids = {o.id for o in target.select(scene)}
    return scene.with_objects(o.replace(**changes) if o.id in ids else o for o in scene.objects)


def _map(scene: Scene, target: Selector, fn: Callable[[SceneObject], SceneObject]) -> Scene:
    ids = {o.id for o in target.select(scene)}
    return scene.with_objects(fn(o) if o.id in ids else o for o in scene.objects)


def _single(scene: Scene, selector: Selector, name: str) -> SceneObject:
    found = selector.select(scene)
    if len(found) != 1:
        raise SceneError(f"{name} needs exactly one object per side, found {len(found)}")
    return found[0]


@dataclass(frozen=True)
class Add(Intervention):
    """Add an object (drawn on top)."""

    obj: SceneObject
    """The new object (its id must be new)."""
    name: ClassVar[str] = "add"

    def apply(self, scene: Scene) -> Scene:
        if any(o.id == self.obj.id for o in scene.objects):
            raise SceneError(f"the scene already has an object {self.obj.id!r}")
        return scene.with_objects((*scene.objects, self.obj))

    def params(self) -> dict[str, Any]:
        return {"object": self.obj.to_json()}


@dataclass(frozen=True)
class Remove(Intervention):
    """Remove the selected objects."""

    target: Selector
    """What to remove (selected on the scene before removal)."""
    name: ClassVar[str] = "remove"

    def apply(self, scene: Scene) -> Scene:
        ids = {o.id for o in self.target.select(scene)}
        return _same_geometry(scene, scene.with_objects(o for o in scene.objects
                                                        if o.id not in ids))

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json()}


@dataclass(frozen=True)
class Recolor(Intervention):
    """Give the selected objects another colour."""

    target: Selector
    """What to recolour."""
    color: str
    """The new palette colour."""
    name: ClassVar[str] = "recolor"

    def __post_init__(self) -> None:
        if self.color not in COLORS:
            raise SceneError(f"unknown colour {self.color!r}")

    def apply(self, scene: Scene) -> Scene:
        return _same_geometry(scene, _change(scene, self.target, color=self.color))

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "color": self.color}


@dataclass(frozen=True)
class SwapColors(Intervention):
    """Two objects exchange their colours."""

    a: Selector
    """The first object (exactly one)."""
    b: Selector
    """The second object (exactly one)."""
    name: ClassVar[str] = "swap-colors"

    def apply(self, scene: Scene) -> Scene:
        a, b = _single(scene, self.a, self.name), _single(scene, self.b, self.name)
        new = {a.id: a.replace(color=b.color), b.id: b.replace(color=a.color)}
        return _same_geometry(scene, scene.with_objects(new.get(o.id, o) for o in scene.objects))

    def params(self) -> dict[str, Any]:
        return {"a": self.a.to_json(), "b": self.b.to_json()}


@dataclass(frozen=True)
class Resize(Intervention):
    """Scale the selected objects about their centres."""

    target: Selector
    """What to resize."""
    factor: float
    """Scale factor (2 = twice as big)."""
    name: ClassVar[str] = "resize"

    def __post_init__(self) -> None:
        if self.factor <= 0:
            raise SceneError("a resize factor must be positive")

    def apply(self, scene: Scene) -> Scene:
        return _map(scene, self.target, lambda o: o.replace(size=o.size * self.factor))

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "factor": self.factor}


@dataclass(frozen=True)
class Move(Intervention):
    """Shift the selected objects."""

    target: Selector
    """What to move."""
    dx: float
    """Shift to the right, in pixels."""
    dy: float
    """Shift downwards, in pixels."""
    name: ClassVar[str] = "move"

    def apply(self, scene: Scene) -> Scene:
        return _map(scene, self.target, lambda o: o.replace(x=o.x + self.dx, y=o.y + self.dy))

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "dx": self.dx, "dy": self.dy}


@dataclass(frozen=True)
class SwapPositions(Intervention):
    """Two objects exchange their positions."""

    a: Selector
    """The first object (exactly one)."""
    b: Selector
    """The second object (exactly one)."""
    name: ClassVar[str] = "swap-positions"

    def apply(self, scene: Scene) -> Scene:
        a, b = _single(scene, self.a, self.name), _single(scene, self.b, self.name)
        new = {a.id: a.replace(x=b.x, y=b.y), b.id: b.replace(x=a.x, y=a.y)}
        return scene.with_objects(new.get(o.id, o) for o in scene.objects)

    def params(self) -> dict[str, Any]:
        return {"a": self.a.to_json(), "b": self.b.to_json()}


MIRROR_AXES = ("left-right", "top-bottom")


@dataclass(frozen=True)
class Mirror(Intervention):
    """Mirror the selected objects (by default the whole picture) across the canvas' middle."""

    axis: str
    """``left-right`` (x → width − x) or ``top-bottom`` (y → height − y)."""
    target: Selector = field(default_factory=All)
    """What to mirror."""
    name: ClassVar[str] = "mirror"

    def __post_init__(self) -> None:
        if self.axis not in MIRROR_AXES:
            raise SceneError(f"unknown mirror axis {self.axis!r}; use {' or '.join(MIRROR_AXES)}")

    def apply(self, scene: Scene) -> Scene:
        flip = self.axis == "left-right"

        def mirrored(o: SceneObject) -> SceneObject:
            # A flip equals mirroring the shape in its own frame (u → −u) and turning it:
            # left-right: angle → −angle; top-bottom: angle → 180° − angle.
            vertices = tuple((-u, v) for u, v in o.vertices)
            if flip:
                return o.replace(x=scene.width - o.x, angle=(-o.angle) % 360, vertices=vertices)
            return o.replace(y=scene.height - o.y, angle=(180 - o.angle) % 360,
                             vertices=vertices)

        return _map(scene, self.target, mirrored)

    def params(self) -> dict[str, Any]:
        return {"axis": self.axis, "target": self.target.to_json()}


@dataclass(frozen=True)
class Rotate(Intervention):
    """Turn the selected objects about their centres."""

    target: Selector
    """What to turn."""
    degrees: float
    """Counter-clockwise, as seen on screen."""
    name: ClassVar[str] = "rotate"

    def apply(self, scene: Scene) -> Scene:
        return _map(scene, self.target, lambda o: o.replace(angle=(o.angle + self.degrees) % 360))

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "degrees": self.degrees}


@dataclass(frozen=True)
class Stretch(Intervention):
    """Squash or stretch the selected objects along their own axes."""

    target: Selector
    """What to deform."""
    sx: float = 1.0
    """Horizontal factor (0.5 squashes to half the width)."""
    sy: float = 1.0
    """Vertical factor (0.5 squashes to half the height)."""
    name: ClassVar[str] = "stretch"

    def __post_init__(self) -> None:
        if self.sx <= 0 or self.sy <= 0:
            raise SceneError("stretch factors must be positive")

    def apply(self, scene: Scene) -> Scene:
        return _map(scene, self.target, lambda o: o.replace(sx=o.sx * self.sx, sy=o.sy * self.sy))

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "sx": self.sx, "sy": self.sy}
