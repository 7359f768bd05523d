"""Interventions that give one object a property of another: its width and height ("as wide
and as tall as the blue rectangle"), or the way it points ("turned to point the same way as
the blue triangle").

Premises built on them leave the answer open until the picture is read: whether the red
rectangle is wider than tall once it takes the blue one's proportions depends on the blue one,
which the words do not describe. ``MatchColor`` and ``MatchSize`` (``scenes.verbal``) do the
same for colour and size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from whatifbench.scenes.geometry import object_bbox
from whatifbench.scenes.interventions import Intervention
from whatifbench.scenes.model import Scene, SceneError, SceneObject
from whatifbench.scenes.selectors import Selector
from whatifbench.scenes.verbal import one


def _sides(obj: SceneObject) -> tuple[float, float]:
    x0, y0, x1, y1 = object_bbox(obj)
    return x1 - x0, y1 - y0


@dataclass(frozen=True)
class MatchProportions(Intervention):
    """Stretch the selected objects (upright ones) so that their bounding boxes get the width
    and height of another object's ("as wide and as tall as ...")."""

    target: Selector
    """What to stretch."""
    source: Selector
    """The one object whose width and height are copied (selected before the change)."""
    name: ClassVar[str] = "match-proportions"

    def apply(self, scene: Scene) -> Scene:
        width, height = _sides(one(self.source, scene))
        ids = {o.id for o in self.target.select(scene)}

        def stretched(obj: SceneObject) -> SceneObject:
            w, h = _sides(obj)
            if w <= 0 or h <= 0:
                raise SceneError(f"{obj.id} has no width or height to stretch")
            return obj.replace(sx=round(obj.sx * width / w, 6), sy=round(obj.sy * height / h, 6))

        return scene.with_objects(stretched(o) if o.id in ids else o for o in scene.objects)

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "source": self.source.to_json()}


@dataclass(frozen=True)
class MatchPointing(Intervention):
    """Turn the selected objects to the angle of another object ("turned to point the same way
    as ...": two triangles)."""

    target: Selector
    """What to turn."""
    source: Selector
    """The one object whose angle is copied (selected before the change)."""
    name: ClassVar[str] = "match-pointing"

    def apply(self, scene: Scene) -> Scene:
        angle = one(self.source, scene).angle
        ids = {o.id for o in self.target.select(scene)}
        return scene.with_objects(o.replace(angle=angle) if o.id in ids else o
                                  for o in scene.objects)

    def params(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "source": self.source.to_json()}
