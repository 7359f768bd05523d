"""Selectors: typed descriptions of a set of objects ("the flowers inside the red polygons").

A selector is evaluated on a scene (``select``); programs and interventions take selectors, so
provenance records *which* objects a question or premise refers to, not just their ids.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from whatifbench.scenes.filters import POSITION_TIE, SIZE_TIE, crossing_pairs
from whatifbench.scenes.geometry import area, inside_table, object_bbox
from whatifbench.scenes.model import Scene, SceneError, SceneObject


class Selector(ABC):
    """A set of objects of a scene, in scene order."""

    def select(self, scene: Scene) -> tuple[SceneObject, ...]:
        """The selected objects, in drawing order (remembered per scene: scenes are
        immutable, and questions select the same sets many times)."""
        memo = scene.cache.setdefault("selections", {})
        found = memo.get(self)
        if found is None:
            found = memo[self] = self._select(scene)
        return found

    @abstractmethod
    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        """Compute the selection."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """Provenance form."""

    def ambiguities(self, scene: Scene) -> list[str]:
        """Near-ties that make the selection depend on a few pixels (empty when clear)."""
        return []


@dataclass(frozen=True)
class All(Selector):
    """Every object."""

    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        return scene.objects

    def to_json(self) -> dict[str, Any]:
        return {"select": "all"}


@dataclass(frozen=True)
class Ids(Selector):
    """Objects named by id (every id must exist)."""

    ids: tuple[str, ...]
    """The object ids."""

    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        wanted = set(self.ids)
        found = tuple(o for o in scene.objects if o.id in wanted)
        if len(found) != len(wanted):
            missing = sorted(wanted - {o.id for o in found})
            raise SceneError(f"the scene has no object(s) {', '.join(missing)}")
        return found

    def to_json(self) -> dict[str, Any]:
        return {"select": "ids", "ids": list(self.ids)}


@dataclass(frozen=True)
class Where(Selector):
    """Objects with the given attributes, optionally inside / outside some containers."""

    shape: str | None = None
    """Required shape, or any."""
    color: str | None = None
    """Required colour, or any."""
    variant: str | None = None
    """Required variant (e.g. flower kind), or any."""
    within: Selector | None = None
    """Keep objects inside at least one of these containers."""
    outside: Selector | None = None
    """Keep objects inside none of these containers."""

    def _matching(self, scene: Scene) -> list[SceneObject]:
        return [o for o in scene.objects
                if (self.shape is None or o.shape == self.shape)
                and (self.color is None or o.color == self.color)
                and (self.variant is None or o.variant == self.variant)]

    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        found = self._matching(scene)
        if self.within is not None:
            inside = inside_table(scene, found, self.within.select(scene))
            found = [found[i] for i in np.flatnonzero(inside.any(axis=1)).tolist()]
        if self.outside is not None:
            inside = inside_table(scene, found, self.outside.select(scene))
            found = [found[i] for i in np.flatnonzero(~inside.any(axis=1)).tolist()]
        return tuple(found)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"select": "where"}
        for name in ("shape", "color", "variant"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.within is not None:
            out["within"] = self.within.to_json()
        if self.outside is not None:
            out["outside"] = self.outside.to_json()
        return out

    def ambiguities(self, scene: Scene) -> list[str]:
        found: list[str] = []
        for sub in (self.within, self.outside):
            if sub is not None:
                found += sub.ambiguities(scene)
                found += [f"{a} touches the line of {b}"
                          for a, b in crossing_pairs(scene, self._matching(scene),
                                                     sub.select(scene))]
        return found


KEYS: dict[str, Callable[[SceneObject], float]] = {
    "x": lambda o: o.x,
    "y": lambda o: o.y,
    "area": area,
}
"""Keys objects can be ranked by."""


@dataclass(frozen=True)
class Ranked(Selector):
    """The ``k`` objects of ``base`` with the smallest (or largest) ``key``."""

    base: Selector
    """Objects to rank."""
    key: str
    """``x`` (left to right), ``y`` (top to bottom) or ``area``."""
    descending: bool = False
    """Largest first (rightmost, bottom-most, biggest)."""
    k: int = 1
    """How many to keep."""

    def __post_init__(self) -> None:
        if self.key not in KEYS:
            raise SceneError(f"unknown ranking key {self.key!r}; use one of {', '.join(KEYS)}")

    def _order(self, scene: Scene, key: Callable[[SceneObject], float]) -> list[SceneObject]:
        sign = -1.0 if self.descending else 1.0
        return sorted(self.base.select(scene), key=lambda o: (sign * key(o), o.id))

    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        keep = {o.id for o in self._order(scene, KEYS[self.key])[: self.k]}
        return tuple(o for o in scene.objects if o.id in keep)

    def to_json(self) -> dict[str, Any]:
        return {"select": "ranked", "base": self.base.to_json(), "key": self.key,
                "descending": self.descending, "k": self.k}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = self.base.ambiguities(scene)
        ranked = self._order(scene, KEYS[self.key])
        if len(ranked) <= self.k:
            return found
        # The cut must be clear for the centres and for the near edges alike.
        keys = [KEYS[self.key]]
        if self.key in ("x", "y"):
            axis = 0 if self.key == "x" else 1
            keys.append(lambda o: object_bbox(o)[axis + (2 if self.descending else 0)])
        for key in keys:
            order = self._order(scene, key)
            a, b = key(order[self.k - 1]), key(order[self.k])
            tie = (abs(a - b) < SIZE_TIE * max(abs(a), abs(b)) if self.key == "area"
                   else abs(a - b) < POSITION_TIE)
            if tie or {o.id for o in order[: self.k]} != {o.id for o in ranked[: self.k]}:
                found.append(f"the {self.k} object(s) ranked by {self.key} are not clear "
                              f"({order[self.k - 1].id} vs {order[self.k].id})")
                break
        return found


@dataclass(frozen=True)
class MostContents(Selector):
    """The ``k`` containers holding the most ``contents`` objects."""

    containers: Selector
    """Candidate containers."""
    contents: Selector
    """What is counted inside them."""
    k: int = 1
    """How many to keep."""

    def counts(self, scene: Scene) -> list[tuple[SceneObject, int]]:
        """Each container with its number of contents, most first (ties by id)."""
        boxes = self.containers.select(scene)
        totals = inside_table(scene, self.contents.select(scene), boxes).sum(axis=0).tolist()
        return sorted(zip(boxes, totals, strict=True), key=lambda pair: (-pair[1], pair[0].id))

    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        keep = {c.id for c, _ in self.counts(scene)[: self.k]}
        return tuple(o for o in scene.objects if o.id in keep)

    def to_json(self) -> dict[str, Any]:
        return {"select": "most-contents", "containers": self.containers.to_json(),
                "contents": self.contents.to_json(), "k": self.k}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = self.containers.ambiguities(scene) + self.contents.ambiguities(scene)
        counts = self.counts(scene)
        if len(counts) > self.k and counts[self.k - 1][1] == counts[self.k][1]:
            found.append(f"equal counts: {counts[self.k - 1][0].id} and {counts[self.k][0].id} "
                         f"both hold {counts[self.k][1]}")
        return found


@dataclass(frozen=True)
class Take(Selector):
    """The first ``k`` objects of ``base`` in scene order (when which ones does not matter)."""

    base: Selector
    """Objects to take from."""
    k: int
    """How many."""

    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        found = self.base.select(scene)
        if len(found) < self.k:
            raise SceneError(f"cannot take {self.k} objects from a selection of {len(found)}")
        return found[: self.k]

    def to_json(self) -> dict[str, Any]:
        return {"select": "take", "base": self.base.to_json(), "k": self.k}

    def ambiguities(self, scene: Scene) -> list[str]:
        return self.base.ambiguities(scene)


@dataclass(frozen=True)
class Union(Selector):
    """Objects selected by any part."""

    parts: tuple[Selector, ...]
    """The selectors joined."""

    def _select(self, scene: Scene) -> tuple[SceneObject, ...]:
        keep = {o.id for part in self.parts for o in part.select(scene)}
        return tuple(o for o in scene.objects if o.id in keep)

    def to_json(self) -> dict[str, Any]:
        return {"select": "union", "parts": [p.to_json() for p in self.parts]}

    def ambiguities(self, scene: Scene) -> list[str]:
        return [a for part in self.parts for a in part.ambiguities(scene)]
