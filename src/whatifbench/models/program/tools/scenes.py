"""The ground-truth scene behind each image of a procedurally generated item.

Our generators store in every item's provenance the generator, its version and the seed of the
image's own random stream (C-VQA-Synthetic ``image_seed``, CFMM-Synthetic ``pair_seed``); MuCR-
Synthetic stores the cause and effect worlds themselves. The scenes of the first two are rebuilt
here with the generator's own sampling code from that seed — deterministic, a few milliseconds
per image, and checked against the answer stored on the item — so datasets need not carry them
twice. A dataset made by another generator version cannot be rebuilt and is refused with a
message (regenerate it with this version).
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from whatifbench.core.item import Item
from whatifbench.models.program.tools.base import Box
from whatifbench.scenes.geometry import object_bbox, within
from whatifbench.scenes.model import Scene, SceneObject


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


def world_things(world: dict[str, Any]) -> tuple[Thing, ...]:
    """The bodies of a MuCR-Synthetic world (its JSON form)."""
    from whatifbench.scenes.bodies import World

    parsed = World.from_json(world)
    return tuple(Thing(b.id, b.kind, b.color, (float(b.x0), float(b.y0), float(b.x1),
                                                  float(b.y1)))
                 for b in parsed.bodies)


class SceneMissing(Exception):
    """The item's scene cannot be known (the message says why and what to do)."""


@functools.lru_cache(maxsize=4096)
def _cvqa(template: int, image_seed: int, dealt: int | None) -> tuple[Scene, tuple[int, int]]:
    from whatifbench.suites.cvqa.synthetic.pair import sample, sample_planned

    rng = random.Random(image_seed)
    s = sample(template, rng) if dealt is None else sample_planned(template, rng, dealt)
    return s.scene, s.answers


def cvqa_synthetic(item: Item) -> Scene:
    """The scene of a C-VQA-Synthetic image, rebuilt from its seed (and, for the shortcut-free
    design, the dealt answer; checked against the answer stored on the item)."""
    p = item.provenance
    dealt = int(p["dealt"]) if p.get("design") == "shortcut-free" else None
    scene, answers = _cvqa(int(p["template"]), int(p["image_seed"]), dealt)
    expected = answers[0] if item.role == "original" else answers[1]
    if "answer" in p and p["answer"] != expected:
        raise SceneMissing(f"item {item.id}: the C-VQA-Synthetic scene rebuilt from its seed "
                           "gives another answer than the item's; regenerate the dataset with "
                           "this version of whatifbench.")
    return scene


@functools.lru_cache(maxsize=4096)
def _cfmm(template: str, changed: bool, pair_seed: int, design: str, answer: int,
          colors: tuple[str, str]) -> tuple[Scene, str, str, str, str]:
    from whatifbench.suites.cfmm.synth import sample

    s = sample(template, changed, random.Random(pair_seed), design, answer, colors)
    return (s.draw.scene, s.draw.basic, s.draw.question(s.premise), s.answers[0], s.answers[1])


def cfmm_synthetic(item: Item) -> Scene:
    """The scene of a CFMM-Synthetic pair, rebuilt from its seed and, for the shortcut-free
    design, the dealt answer (the plan's "answer changes" choice is the one that reproduces the
    item's question and answer)."""
    p = item.provenance
    dealt = p.get("dealt") or {}
    design = str(p.get("design", "paper"))
    index, colors = int(dealt.get("answer", 0)), dealt.get("colors", ("", ""))
    for changed in (True, False):
        scene, basic, cf, b, c = _cfmm(str(p["template"]), changed, int(p["pair_seed"]),
                                       design, index, (str(colors[0]), str(colors[1])))
        text, answer = (basic, b) if item.role == "basic" else (cf, c)
        if text == item.question and answer == str(p.get("answer", item.target)):
            return scene
    raise SceneMissing(f"item {item.id}: the CFMM-Synthetic scene rebuilt from its seed does "
                       "not match the item's question; regenerate the dataset with this version "
                       "of whatifbench.")


_MUCR_IMAGE = re.compile(r"(?P<rid>[^/]+)-(?P<part>cause|effect)\.png$")


class SceneBook:
    """The scenes of every image of the items a run evaluates."""

    def __init__(self) -> None:
        self._worlds: dict[str, dict[str, Any]] = {}

    def learn(self, items: Sequence[Item]) -> None:
        """Remember the worlds MuCR-Synthetic items carry (an item's images may show the
        worlds of other pairs of its group)."""
        for item in items:
            scene = item.provenance.get("scene")
            if item.provenance.get("generator") == "mucr-synthetic" and isinstance(scene, dict):
                self._worlds[str(item.pair_id)] = scene

    def things(self, item: Item) -> list[tuple[Thing, ...]]:
        """The objects of each of the item's images; ``SceneMissing`` when unknown."""
        p = item.provenance
        generator = p.get("generator")
        if generator == "cvqa-synthetic":
            _check_version(item, "cvqa-synthetic")
            return [scene_things(cvqa_synthetic(item))] * len(item.images)
        if generator == "cfmm-synthetic":
            _check_version(item, "cfmm-synthetic")
            return [scene_things(cfmm_synthetic(item))] * len(item.images)
        if generator == "mucr-synthetic":
            return [self._mucr(item, path) for path in item.images]
        raise SceneMissing(
            f"item {item.id} has no ground-truth scene (its provenance names no procedural "
            "generator): oracle perception works on datasets made by 'whatif generate "
            "cvqa-synthetic|cfmm-synthetic|mucr-synthetic'. Use -M detector=PATH for others.")

    def _mucr(self, item: Item, path: str) -> tuple[Thing, ...]:
        match = _MUCR_IMAGE.search(PurePosixPath(path).name)
        world = self._worlds.get(match.group("rid")) if match else None
        if match is None or world is None:
            raise SceneMissing(
                f"item {item.id}: the scene of its image {path} is not known; oracle perception "
                "on MuCR-Synthetic needs every pair of a group in the run (evaluate whole groups "
                "of four pairs, e.g. --limit in multiples of 16 items).")
        return world_things(world[match.group("part")])


def _check_version(item: Item, generator: str) -> None:
    from whatifbench.suites.cfmm.synth import VERSION as CFMM_VERSION
    from whatifbench.suites.cvqa.synthetic.pair import VERSION as CVQA_VERSION

    version = {"cvqa-synthetic": CVQA_VERSION, "cfmm-synthetic": CFMM_VERSION}[generator]
    found = item.provenance.get("version")
    if found != version:
        raise SceneMissing(
            f"item {item.id} was generated by {generator} version {found}, and this whatifbench "
            f"rebuilds scenes of version {version}; regenerate the dataset ('whatif generate "
            f"{generator}') to use oracle perception.")
    needed = ("template", "image_seed") if generator == "cvqa-synthetic" else \
        ("template", "pair_seed")
    missing = [k for k in needed if k not in item.provenance]
    if missing:
        raise SceneMissing(f"item {item.id}: its provenance lacks {', '.join(missing)}, so its "
                           "scene cannot be rebuilt; regenerate the dataset.")
