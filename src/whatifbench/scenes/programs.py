"""Questions as programs over a scene (CLEVR style): ``execute(scene)`` computes the answer.

A counterfactual answer is the same program executed on the intervened scene. Every program
reports its near-ties through ``ambiguities(scene)`` (see ``filters``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from whatifbench.scenes.filters import POSITION_TIE, SIZE_TIE, size_tie
from whatifbench.scenes.geometry import area, inside_table, object_bbox
from whatifbench.scenes.model import Scene, SceneError, SceneObject
from whatifbench.scenes.selectors import Selector

Answer = int | str | bool
"""What a program returns: a count, a word (colour, shape ...) or yes/no."""


class Program(ABC):
    """A question as an executable program."""

    @abstractmethod
    def execute(self, scene: Scene) -> Answer:
        """The answer on this scene."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """Provenance form."""

    def ambiguities(self, scene: Scene) -> list[str]:
        """Near-ties that make the answer depend on a few pixels (empty when clear)."""
        return []


def _one(selector: Selector, scene: Scene, what: str) -> SceneObject:
    found = selector.select(scene)
    if len(found) != 1:
        raise SceneError(f"{what} must select exactly one object, found {len(found)}")
    return found[0]


def _one_problem(selector: Selector, scene: Scene) -> list[str]:
    n = len(selector.select(scene))
    return [] if n == 1 else [f"the question refers to one object but {n} match"]


@dataclass(frozen=True)
class Count(Program):
    """How many objects are selected."""

    target: Selector
    """What to count."""

    def execute(self, scene: Scene) -> int:
        return len(self.target.select(scene))

    def to_json(self) -> dict[str, Any]:
        return {"program": "count", "target": self.target.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        return self.target.ambiguities(scene)


@dataclass(frozen=True)
class MaxContents(Program):
    """The largest number of ``contents`` objects inside any one container (0 if none)."""

    containers: Selector
    """The containers."""
    contents: Selector
    """What is counted inside each."""

    def execute(self, scene: Scene) -> int:
        counts = inside_table(scene, self.contents.select(scene), self.containers.select(scene))
        return int(counts.sum(axis=0).max()) if counts.shape[1] else 0

    def to_json(self) -> dict[str, Any]:
        return {"program": "max-contents", "containers": self.containers.to_json(),
                "contents": self.contents.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        return self.containers.ambiguities(scene) + self.contents.ambiguities(scene)


@dataclass(frozen=True)
class MoreThan(Program):
    """Are there more objects in ``a`` than in ``b``?"""

    a: Selector
    """First set."""
    b: Selector
    """Second set."""

    def execute(self, scene: Scene) -> bool:
        return len(self.a.select(scene)) > len(self.b.select(scene))

    def to_json(self) -> dict[str, Any]:
        return {"program": "more-than", "a": self.a.to_json(), "b": self.b.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = self.a.ambiguities(scene) + self.b.ambiguities(scene)
        if len(self.a.select(scene)) == len(self.b.select(scene)):
            found.append("equal counts where a comparison is asked")
        return found


ATTRIBUTES = ("color", "shape", "variant", "label")


@dataclass(frozen=True)
class Attribute(Program):
    """An attribute (colour, shape, variant, label) of the one selected object."""

    target: Selector
    """Must select exactly one object."""
    attribute: str
    """One of ``ATTRIBUTES``."""

    def __post_init__(self) -> None:
        if self.attribute not in ATTRIBUTES:
            raise SceneError(f"unknown attribute {self.attribute!r}")

    def execute(self, scene: Scene) -> str:
        return str(getattr(_one(self.target, scene, "the attribute query"), self.attribute))

    def to_json(self) -> dict[str, Any]:
        return {"program": "attribute", "target": self.target.to_json(),
                "attribute": self.attribute}

    def ambiguities(self, scene: Scene) -> list[str]:
        return self.target.ambiguities(scene) + _one_problem(self.target, scene)


@dataclass(frozen=True)
class Larger(Program):
    """Is the one object of ``a`` larger (in area) than the one object of ``b``?"""

    a: Selector
    """First object."""
    b: Selector
    """Second object."""

    def execute(self, scene: Scene) -> bool:
        return area(_one(self.a, scene, "a")) > area(_one(self.b, scene, "b"))

    def to_json(self) -> dict[str, Any]:
        return {"program": "larger", "a": self.a.to_json(), "b": self.b.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = _one_problem(self.a, scene) + _one_problem(self.b, scene)
        if not found and size_tie(area(_one(self.a, scene, "a")), area(_one(self.b, scene, "b"))):
            found.append(f"sizes within {SIZE_TIE:.0%}")
        return found


RELATIONS = {"left-of": (0, -1), "right-of": (0, 1), "above": (1, -1), "below": (1, 1)}
"""Spatial relations: (axis, sign) of ``a`` relative to ``b``."""


@dataclass(frozen=True)
class Relation(Program):
    """Is the one object of ``a`` left of / right of / above / below the one of ``b``?"""

    a: Selector
    """First object."""
    b: Selector
    """Second object."""
    relation: str
    """One of ``RELATIONS`` (decided by the centres)."""

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise SceneError(f"unknown relation {self.relation!r}")

    def _coords(self, scene: Scene) -> tuple[float, float]:
        axis, _ = RELATIONS[self.relation]
        a, b = _one(self.a, scene, "a"), _one(self.b, scene, "b")
        return ((a.x, b.x) if axis == 0 else (a.y, b.y))

    def execute(self, scene: Scene) -> bool:
        ca, cb = self._coords(scene)
        return (ca - cb) * RELATIONS[self.relation][1] > 0

    def to_json(self) -> dict[str, Any]:
        return {"program": "relation", "a": self.a.to_json(), "b": self.b.to_json(),
                "relation": self.relation}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = _one_problem(self.a, scene) + _one_problem(self.b, scene)
        if not found:
            ca, cb = self._coords(scene)
            if abs(ca - cb) < POSITION_TIE:
                found.append(f"positions within {POSITION_TIE:g} pixels")
        return found


@dataclass(frozen=True)
class WiderThanTall(Program):
    """Is the one selected object wider than it is tall (its bounding box)?"""

    target: Selector
    """Must select exactly one object."""

    def _size(self, scene: Scene) -> tuple[float, float]:
        x0, y0, x1, y1 = object_bbox(_one(self.target, scene, "the shape query"))
        return x1 - x0, y1 - y0

    def execute(self, scene: Scene) -> bool:
        w, h = self._size(scene)
        return w > h

    def to_json(self) -> dict[str, Any]:
        return {"program": "wider-than-tall", "target": self.target.to_json()}

    def ambiguities(self, scene: Scene) -> list[str]:
        found = _one_problem(self.target, scene)
        if not found and size_tie(*self._size(scene)):
            found.append(f"width and height within {SIZE_TIE:.0%}")
        return found
