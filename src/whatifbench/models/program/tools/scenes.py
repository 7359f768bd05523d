"""The objects the oracle sees in each image of a generated item.

The scene behind an image comes from the ``scene_source`` of the generator that made the item
(``scenes.source``: rebuilt from the item's seed, or read from the worlds the items carry); a
dataset made by another generator version cannot be rebuilt and is refused with a message
(regenerate it with this version). Here scenes become ``Thing``s, what the program tools see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from whatifbench.core.item import Item
from whatifbench.core.registry import lookup
from whatifbench.errors import WhatifError
from whatifbench.models.program.tools.base import Box
from whatifbench.scenes.bodies import World
from whatifbench.scenes.geometry import object_bbox, within
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.source import SceneMissing, SceneSource


@dataclass(frozen=True)
class Thing:
    """One object the oracle can see."""

    id: str
    """Unique within its image."""
    name: str
    """What it is: a shape (``flower``, ``circle``, ``polygon`` ...) or a body kind (``ball``,
    ``block``, ``ice`` ...)."""
    color: str
    """Its palette colour."""
    box: Box
    """Bounding box, pixels with ``y`` downwards."""
    kind: str | None = None
    """A sub-kind (a flower's kind), also accepted as its name."""
    style: str = "solid"
    """``solid``, ``outline`` or ``tinted`` (the last two are regions that hold others)."""
    shape: SceneObject | None = None
    """The scene object, for exact containment."""

    @property
    def center(self) -> tuple[float, float]:
        """Its centre."""
        if self.shape is not None:
            return self.shape.x, self.shape.y
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2

    def holds(self, other: Thing) -> bool:
        """True when ``other``'s centre lies inside this object's region (outlined and tinted
        shapes: inside the outline; others: inside the box)."""
        if other.id == self.id:
            return False
        if self.shape is not None and self.style != "solid":
            return within(other.shape or _point(other), self.shape)
        x, y = other.center
        return self.box[0] <= x <= self.box[2] and self.box[1] <= y <= self.box[3]


def _point(thing: Thing) -> SceneObject:
    x, y = thing.center
    return SceneObject(f"{thing.id}-centre", "dot", "black", x, y, 0.5)


def scene_things(scene: Scene) -> tuple[Thing, ...]:
    """The objects of a scene-engine scene."""
    out = []
    for obj in scene.objects:
        box = object_bbox(obj)
        out.append(Thing(obj.id, obj.shape, obj.color, (box[0], box[1], box[2], box[3]),
                         obj.variant, obj.style, obj))
    return tuple(out)


def world_things(world: World) -> tuple[Thing, ...]:
    """The bodies of a side-view world (MuCR-Synthetic's pictures)."""
    return tuple(Thing(b.id, b.kind, b.color, (float(b.x0), float(b.y0), float(b.x1),
                                                  float(b.y1)))
                 for b in world.bodies)


class SceneBook:
    """The scenes of every image of the items a run evaluates, from the ``scene_source`` of the
    generator each item's provenance names (``scenes.source``)."""

    def __init__(self) -> None:
        self._sources: dict[str, SceneSource] = {}

    def _source(self, generator: str | None) -> SceneSource | None:
        if generator is None:
            return None
        if generator not in self._sources:
            try:
                made = getattr(lookup("generator", generator).obj, "scene_source", None)
            except WhatifError:
                made = None
            if made is None:
                return None
            self._sources[generator] = made()
        return self._sources[generator]

    def learn(self, items: Sequence[Item]) -> None:
        """Show each generator's source the items it made (an item's images may show the
        scenes of other items of the run)."""
        mine: dict[str, list[Item]] = {}
        for item in items:
            generator = item.provenance.get("generator")
            if isinstance(generator, str):
                mine.setdefault(generator, []).append(item)
        for generator, made in mine.items():
            source = self._source(generator)
            if source is not None:
                source.learn(made)

    def things(self, item: Item) -> list[tuple[Thing, ...]]:
        """The objects of each of the item's images; ``SceneMissing`` when unknown."""
        generator = item.provenance.get("generator")
        source = self._source(generator if isinstance(generator, str) else None)
        if source is None:
            raise SceneMissing(
                f"item {item.id} has no ground-truth scene (its provenance names no generator "
                "whose pictures the scene engine draws): oracle perception works on datasets "
                "made by such a generator (see 'whatif suites'). Use -M detector=PATH for "
                "others.")
        return [world_things(s) if isinstance(s, World) else scene_things(s)
                for s in source.scenes(item)]
