"""Small hand-written Visual Genome scene graphs (and images) for the CELLO tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw


def obj(oid: int, name: str, box: tuple[int, int, int, int], synset: str | None = None) -> dict:
    """A VG object record."""
    x, y, w, h = box
    return {"object_id": oid, "names": [name], "synsets": [synset] if synset else [],
            "x": x, "y": y, "w": w, "h": h}


def rel(subject: int, predicate: str, object_id: int) -> dict:
    """A VG relationship record."""
    return {"predicate": predicate, "subject_id": subject, "object_id": object_id}


def scene(image_id: int, objects: list[dict], relationships: list[dict]) -> dict:
    """A VG scene-graph record."""
    return {"image_id": image_id, "objects": objects, "relationships": relationships}


BEACH = scene(1001, [
    obj(1, "beach", (4, 194, 493, 174), "beach.n.01"),
    obj(2, "horse", (101, 170, 107, 110), "horse.n.01"),
    obj(3, "women", (290, 126, 70, 113), "woman.n.01"),
    obj(4, "sky", (0, 0, 500, 100), "sky.n.01"),
    obj(5, "cloud", (50, 10, 80, 40), "cloud.n.01"),
], [rel(2, "ON", 1), rel(3, "ON", 1), rel(3, "riding", 2), rel(5, "in", 4)])
"""Confounding, like the release's example record: beach → horse, beach → women, horse → women."""

SHELF = scene(1002, [
    obj(11, "wall", (0, 0, 400, 300), "wall.n.01"),
    obj(12, "shelf", (50, 100, 300, 20), "shelf.n.01"),
    obj(13, "books", (60, 60, 120, 40), "book.n.01"),
    obj(14, "window", (300, 10, 80, 80), "window.n.01"),
    obj(15, "lamp", (10, 200, 40, 90), "lamp.n.01"),
], [rel(12, "attached to", 11), rel(13, "sitting on", 12), rel(15, "near", 14)])
"""Chain: wall → shelf → books."""

TABLE = scene(1003, [
    obj(21, "table", (0, 150, 400, 150), "table.n.02"),
    obj(22, "hand", (250, 50, 60, 60), "hand.n.01"),
    obj(23, "cup", (200, 110, 50, 50), "cup.n.01"),
    obj(24, "chair", (0, 100, 80, 200), "chair.n.01"),
    obj(25, "curtain", (320, 0, 80, 200), "curtain.n.01"),
], [rel(23, "on", 21), rel(22, "holding", 23), rel(24, "next to", 21)])
"""Collision: table → cup ← hand."""

STREET = scene(1004, [
    obj(31, "street", (0, 200, 500, 133), "street.n.01"),
    obj(32, "car", (100, 150, 200, 100), "car.n.01"),
    obj(33, "tree", (400, 0, 100, 250), "tree.n.01"),
    obj(34, "building", (0, 0, 300, 150), "building.n.01"),
], [rel(32, "parked on", 31), rel(33, "behind", 32)])
"""Direct: street → car."""

SADDLE = scene(1005, [
    obj(41, "horse", (10, 10, 200, 200), "horse.n.01"),
    obj(42, "saddle", (60, 40, 60, 30), "saddle.n.01"),
    obj(43, "beach", (0, 150, 300, 100), "beach.n.01"),
    obj(44, "bookend", (250, 40, 30, 40), "bookend.n.01"),
    obj(45, "books", (200, 40, 50, 40), "book.n.01"),
    obj(46, "shelf", (190, 80, 100, 10), "shelf.n.01"),
], [rel(41, "wears", 42), rel(41, "standing on", 43), rel(44, "next to", 45),
    rel(45, "ARE ON", 46)])
"""Helps the text distractors: saddle co-occurs with horse/beach, bookend with books/shelf."""

SCENES = [BEACH, SHELF, TABLE, STREET, SADDLE]


def write_images(folder: Path, image_ids: list[int], size: tuple[int, int] = (500, 333)) -> None:
    """Small deterministic JPEGs ``<image_id>.jpg``."""
    folder.mkdir(parents=True, exist_ok=True)
    for k, image_id in enumerate(image_ids):
        img = Image.new("RGB", size, (40 * k % 255, 120, 200))
        ImageDraw.Draw(img).rectangle((20, 20, 120, 90), fill=(250, 200, 30))
        img.save(folder / f"{image_id}.jpg", quality=85)


def write_input(root: Path, scenes: list[dict[str, Any]] | None = None,
                sizes: tuple[int, int] = (500, 333),
                pixels: tuple[int, int] | None = None) -> tuple[Path, Path, Path]:
    """``scene_graphs.json``, ``image_data.json`` and an image folder under ``root``
    (``pixels``: the JPEGs' own size when not ``sizes``, e.g. tiny files for many scenes)."""
    scenes = SCENES if scenes is None else scenes
    root.mkdir(parents=True, exist_ok=True)
    sg = root / "scene_graphs.json"
    sg.write_text(json.dumps(scenes), encoding="utf-8")
    data = root / "image_data.json"
    data.write_text(json.dumps([{"image_id": s["image_id"], "width": sizes[0],
                                 "height": sizes[1]} for s in scenes]), encoding="utf-8")
    write_images(root / "images", [s["image_id"] for s in scenes], pixels or sizes)
    return sg, data, root / "images"
