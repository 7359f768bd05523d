"""A small CELLO for trying the suite and for tests (``Suite.example``), built by ``whatif build
cello`` from a procedural Visual-Genome-format world: scene graphs with the priors of real
photographs (streets, rooms, beaches and fields whose grounds carry people, vehicles and
furniture, tables carry dishes, people hold bags and wear hats, horses carry riders, walls hold
shelves; the sky, clouds, trees and buildings relate to nothing causally), a few relationships
against the priors, and tiny placeholder pictures. It is no benchmark: the pictures show
nothing; the scene graphs are the example's whole content.

``world(n, seed)`` returns ``n`` scene-graph records (``scene_graphs.json`` format);
``write_world(root, n, seed)`` writes them with ``image_data.json`` and the pictures.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

SIZE = (500, 375)
"""Image size written to ``image_data.json`` (the JPEGs themselves are tiny)."""

GROUNDS = {"street": ["street", "sidewalk", "road"], "room": ["floor", "carpet"],
           "beach": ["beach", "sand"], "field": ["grass", "field", "ground"],
           "kitchen": ["floor", "counter"], "snow": ["snow", "ground"]}
PEOPLE = ["man", "woman", "boy", "girl", "person", "skier", "player", "child"]
ANIMALS = ["dog", "cat", "horse", "elephant", "bird", "cow", "sheep"]
VEHICLES = {"street": ["car", "bus", "truck", "bike", "motorcycle", "skateboard"],
            "beach": ["surfboard", "boat"], "snow": ["skis", "snowboard"],
            "field": ["bike", "tractor"], "room": ["skateboard"], "kitchen": []}
FURNITURE = {"room": ["table", "desk", "bed", "couch", "chair", "shelf", "bench"],
             "kitchen": ["table", "counter", "shelf", "chair", "stove"],
             "street": ["bench", "table"], "beach": ["chair", "towel"],
             "field": ["bench", "table"], "snow": ["bench"]}
ITEMS = ["book", "box", "plate", "bowl", "tray", "laptop", "bag", "pillow", "blanket", "cup",
         "bottle", "vase", "phone", "pizza", "sandwich", "cake", "napkin", "basket", "remote",
         "frisbee", "umbrella", "kite", "ball", "racket"]
WORN = ["hat", "shirt", "jacket", "helmet", "backpack", "glasses", "shoe", "cap", "scarf"]
WALL_THINGS = ["clock", "picture", "sign", "mirror", "painting", "poster"]
BACKGROUND = ["sky", "cloud", "tree", "building", "window", "fence", "mountain", "pole",
              "light", "leaves", "door", "water", "shadow"]
SPATIAL = ["near", "behind", "next to", "in front of", "has", "of", "above", "by", "beside"]

ON = ["on", "ON", "on top of", "sitting on", "standing on", "lying on", "resting on"]
PREDICATES: dict[tuple[str, str], list[tuple[str, str]]] = {
    # (support kind, supported kind) → [(predicate, direction)]: "up" = "supported pred support"
    ("ground", "person"): [("standing on", "up"), ("walking on", "up"), ("on", "up")],
    ("ground", "animal"): [("standing on", "up"), ("on", "up"), ("walking on", "up")],
    ("ground", "vehicle"): [("parked on", "up"), ("on", "up")],
    ("ground", "furniture"): [("on", "up"), ("sitting on", "up")],
    ("ground", "item"): [("on", "up"), ("lying on", "up")],
    ("furniture", "item"): [(p, "up") for p in ON],
    ("furniture", "person"): [("sitting on", "up"), ("lying on", "up"), ("on", "up")],
    ("furniture", "animal"): [("sitting on", "up"), ("lying on", "up"), ("on", "up")],
    ("item", "item"): [(p, "up") for p in ON],
    ("person", "item"): [("holding", "down"), ("carrying", "down"), ("holds", "down")],
    ("person", "worn"): [("wearing", "down"), ("wears", "down"), ("on", "up")],
    ("animal", "person"): [("riding", "up"), ("sitting on", "up"), ("on", "up")],
    ("vehicle", "person"): [("riding", "up"), ("riding on", "up"), ("sitting on", "up")],
    ("vehicle", "item"): [("on", "up"), ("on top of", "up")],
    ("person", "animal"): [("holding", "down"), ("carrying", "down")],
    ("person", "person"): [("carrying", "down"), ("holding", "down")],
    ("animal", "item"): [("carrying", "down"), ("holding", "down"), ("wearing", "down")],
    ("wall", "wallthing"): [("hanging on", "up"), ("attached to", "up"), ("mounted on", "up")],
    ("wall", "furniture"): [("attached to", "up"), ("mounted on", "up")],
}
SUPPORTS: dict[str, list[str]] = {}
for _support, _supported in PREDICATES:
    SUPPORTS.setdefault(_supported, []).append(_support)


def _synset(name: str) -> str:
    return f"{name.split()[-1]}.n.01"


class _Scene:
    def __init__(self, image_id: int, rng: random.Random) -> None:
        self.image_id, self.rng = image_id, rng
        self.objects: list[dict[str, Any]] = []
        self.kinds: list[str] = []
        self.rels: list[dict[str, Any]] = []
        self.parents: dict[int, set[int]] = {}

    def add(self, name: str, kind: str) -> int:
        oid = self.image_id * 100 + len(self.objects)
        w, h = self.rng.randrange(10, 300), self.rng.randrange(10, 250)
        self.objects.append({"object_id": oid, "names": [name], "synsets": [_synset(name)],
                             "x": self.rng.randrange(0, SIZE[0] - w),
                             "y": self.rng.randrange(0, SIZE[1] - h), "w": w, "h": h})
        self.kinds.append(kind)
        self.parents[oid] = set()
        return oid

    def ancestors(self, oid: int) -> set[int]:
        out: set[int] = set()
        todo = [oid]
        while todo:
            for p in self.parents[todo.pop()]:
                if p not in out:
                    out.add(p)
                    todo.append(p)
        return out

    def support(self, support: int, supported: int, kinds: tuple[str, str]) -> None:
        if support == supported or supported in self.ancestors(support) | {support}:
            return
        if support in self.parents[supported]:
            return
        predicate, direction = self.rng.choice(PREDICATES[kinds])
        subject, obj = (supported, support) if direction == "up" else (support, supported)
        self.rels.append({"predicate": predicate, "subject_id": subject, "object_id": obj})
        self.parents[supported].add(support)

    def ids_of(self, kind: str) -> list[int]:
        return [o["object_id"] for o, k in zip(self.objects, self.kinds, strict=True)
                if k == kind]


def _scene(image_id: int, rng: random.Random) -> dict[str, Any]:
    place = rng.choice(sorted(GROUNDS))
    s = _Scene(image_id, rng)
    ground = s.add(rng.choice(GROUNDS[place]), "ground")
    for _ in range(rng.randint(2, 5)):
        s.add(rng.choice(BACKGROUND), "background")
    if place in ("room", "kitchen") and rng.random() < 0.6:
        s.add("wall", "wall")
    for kind, names, most in (("furniture", FURNITURE[place], 2), ("person", PEOPLE, 3),
                              ("animal", ANIMALS, 2), ("vehicle", VEHICLES[place], 2),
                              ("item", ITEMS, 4), ("worn", WORN, 3)):
        for _ in range(rng.randint(0, most)):
            if names:
                s.add(rng.choice(names), kind)
    if s.ids_of("wall"):
        for _ in range(rng.randint(0, 2)):
            s.add(rng.choice(WALL_THINGS), "wallthing")
    order = list(range(len(s.objects)))
    for index in order:
        oid, kind = s.objects[index]["object_id"], s.kinds[index]
        if kind in ("ground", "background", "wall") or rng.random() < 0.15:
            continue
        options = [(p, k) for k in SUPPORTS.get(kind, []) for p in s.ids_of(k) if p != oid]
        if kind in ("person", "animal", "vehicle", "furniture") and rng.random() < 0.7:
            options = [(ground, "ground")] if ("ground", kind) in PREDICATES else options
        rng.shuffle(options)
        for support, support_kind in options[:2 if rng.random() < 0.3 else 1]:
            s.support(support, oid, (support_kind, kind))
    for _ in range(rng.randint(0, 2)):  # against the priors, as photographs sometimes are
        a, b = rng.sample(range(len(s.objects)), 2)
        if s.kinds[a] not in ("background",) and s.kinds[b] not in ("background", "ground"):
            pair = rng.choice(sorted(PREDICATES))
            s.support(s.objects[a]["object_id"], s.objects[b]["object_id"], pair)
    for _ in range(rng.randint(2, 6)):
        one, other = rng.sample(s.objects, 2)
        s.rels.append({"predicate": rng.choice(SPATIAL), "subject_id": one["object_id"],
                       "object_id": other["object_id"]})
    return {"image_id": image_id, "objects": s.objects, "relationships": s.rels}


def world(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` scene-graph records, image ids ``1 … n``."""
    rng = random.Random(f"cello-world:{seed}")
    return [_scene(image_id, rng) for image_id in range(1, n + 1)]


def write_world(root: Path, n: int, seed: int = 0, pixels: tuple[int, int] = (8, 6)
                ) -> tuple[Path, Path, Path]:
    """``scene_graphs.json``, ``image_data.json`` (``SIZE``) and ``images/`` (JPEGs of
    ``pixels``) of ``world(n, seed)`` under ``root``."""
    return write_scenes(root, world(n, seed), SIZE, pixels)


def write_scenes(root: Path, scenes: list[dict[str, Any]], sizes: tuple[int, int] = SIZE,
                 pixels: tuple[int, int] | None = None) -> tuple[Path, Path, Path]:
    """``scenes`` as ``scene_graphs.json``, with ``image_data.json`` (``sizes``) and small
    deterministic JPEGs ``<image_id>.jpg`` (``pixels``: their own size, when not ``sizes``)."""
    root.mkdir(parents=True, exist_ok=True)
    sg = root / "scene_graphs.json"
    sg.write_text(json.dumps(scenes), encoding="utf-8")
    data = root / "image_data.json"
    data.write_text(json.dumps([{"image_id": s["image_id"], "width": sizes[0],
                                 "height": sizes[1]} for s in scenes]), encoding="utf-8")
    folder = root / "images"
    folder.mkdir(parents=True, exist_ok=True)
    for k, scene in enumerate(scenes):
        img = Image.new("RGB", pixels or sizes, (40 * k % 255, 120, 200))
        ImageDraw.Draw(img).rectangle((20, 20, 120, 90), fill=(250, 200, 30))
        img.save(folder / f"{scene['image_id']}.jpg", quality=85)
    return sg, data, folder


EXAMPLE_SCENES = 300
"""Scenes of the example's world."""
EXAMPLE_PER_TASK = 6
"""Questions per task type in the example."""


def write_example(out: str | Path, seed: int = 0, overwrite: bool = False) -> None:
    """Build the example CELLO (``EXAMPLE_PER_TASK`` questions per task type, the default
    design) from a world of ``EXAMPLE_SCENES`` scenes, to ``out``."""
    from whatifbench.suites.cello.build import build_cello

    with tempfile.TemporaryDirectory(prefix="whatif-cello-example-") as tmp:
        sg, data, images = write_world(Path(tmp), EXAMPLE_SCENES, seed)
        build_cello(sg, images, out, image_data=data, per_task=EXAMPLE_PER_TASK, seed=seed,
                    overwrite=overwrite)
