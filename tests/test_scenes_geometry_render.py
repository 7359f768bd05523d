"""Scene records, geometry helpers and deterministic rendering."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from PIL import Image
from scene_builders import SQUARE, dot_scene, flower_scene, shapes_scene

from whatifbench.scenes.geometry import (
    area,
    contains_point,
    crosses,
    footprint,
    object_bbox,
    overlaps,
    point_in_polygon,
    polygon_area,
    segments_intersect,
    within,
)
from whatifbench.scenes.model import Scene, SceneError, SceneObject
from whatifbench.scenes.palette import COLORS, composite
from whatifbench.scenes.render import render, render_png


def test_point_in_polygon_and_areas() -> None:
    square = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]
    assert point_in_polygon(5, 5, square)
    assert not point_in_polygon(11, 5, square)
    concave = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (5.0, 3.0), (0.0, 10.0)]
    assert not point_in_polygon(5, 8, concave)  # in the notch
    assert point_in_polygon(2, 2, concave)
    assert polygon_area(square) == pytest.approx(100.0)
    assert segments_intersect((0, 0), (10, 10), (0, 10), (10, 0))
    assert not segments_intersect((0, 0), (1, 1), (2, 2), (3, 0))


def test_object_outline_bbox_and_transforms() -> None:
    sq = SceneObject("p", "polygon", "red", 100, 100, 50, vertices=SQUARE)
    assert object_bbox(sq) == pytest.approx((50, 50, 150, 150))
    turned = sq.replace(angle=45)
    x0, y0, x1, y1 = object_bbox(turned)
    assert x1 - x0 == pytest.approx(100 * math.sqrt(2))
    squashed = SceneObject("r", "rectangle", "red", 0, 0, 10, sy=0.5)
    x0, y0, x1, y1 = object_bbox(squashed)
    assert (x1 - x0) / (y1 - y0) == pytest.approx(4.0)
    circle = SceneObject("c", "circle", "red", 0, 0, 10)
    assert area(circle) == pytest.approx(math.pi * 100)
    assert footprint(SceneObject("o", "circle", "red", 0, 0, 10, style="outline",
                                 line_width=4)) == pytest.approx(12)


def test_containment_overlap_and_crossing() -> None:
    scene = flower_scene()
    red, blue = scene.get("polygon-1"), scene.get("polygon-2")
    inside_red = {f.id for f in scene.objects if f.shape == "flower" and within(f, red)}
    inside_blue = {f.id for f in scene.objects if f.shape == "flower" and within(f, blue)}
    assert inside_red == {"flower-1", "flower-2", "flower-3"}
    assert inside_blue == {"flower-3", "flower-4", "flower-5"}
    assert not any(crosses(f, p) for f in scene.objects if f.shape == "flower"
                   for p in (red, blue))
    edge = SceneObject("edge", "flower", "red", 250, 100, 10, variant="daisy")
    assert crosses(edge, red)
    a = SceneObject("a", "circle", "red", 0, 0, 10)
    assert overlaps(a, a.replace(id="b", x=19))
    assert not overlaps(a, a.replace(id="b", x=21))
    assert overlaps(SceneObject("s", "square", "red", 0, 0, 10),
                    SceneObject("t", "triangle", "red", 12, 0, 10))
    ring = SceneObject("ring", "circle", "black", 0, 0, 40, style="outline")
    assert contains_point(ring, 10, 10) and not contains_point(ring, 40, 40)


def test_records_validate_and_round_trip() -> None:
    scene = dot_scene()
    assert Scene.from_json(scene.to_json()) == scene
    with pytest.raises(SceneError):
        SceneObject("x", "blob", "red", 0, 0, 1)
    with pytest.raises(SceneError):
        SceneObject("x", "circle", "mauve", 0, 0, 1)
    with pytest.raises(SceneError):
        Scene(10, 10, (SceneObject("x", "dot", "red", 0, 0, 1),) * 2)


def test_rendering_is_deterministic_and_draws_what_the_scene_says() -> None:
    scene = flower_scene()
    assert render_png(scene) == render_png(scene)
    moved = scene.with_objects(o.replace(x=o.x + 3) if o.id == "flower-8" else o
                               for o in scene.objects)
    assert render_png(moved) != render_png(scene)
    pixels = np.asarray(Image.open(io.BytesIO(render_png(scene))).convert("RGB"))
    white, red, blue = COLORS["white"], COLORS["red"], COLORS["blue"]
    assert tuple(pixels[120, 60]) == composite(white, [red])  # red only, no flower there
    assert tuple(pixels[170, 230]) == composite(white, [red, blue])  # overlap
    assert tuple(pixels[400, 330]) == white
    # Every flower pixel lies within the flower's footprint.
    flower = scene.get("flower-8")  # (60, 450), outside both squares
    ys, xs = np.nonzero((pixels != np.array(white)).any(axis=2)[430:470, 40:80])
    assert np.hypot(xs + 40 - flower.x, ys + 430 - flower.y).max() <= footprint(flower) + 1


def test_solid_shapes_and_labels_render() -> None:
    scene = shapes_scene()
    img = render(scene)
    assert img.mode == "P" and img.size == (512, 512)
    rgb = np.asarray(img.convert("RGB"))
    for obj in scene.objects:
        assert tuple(rgb[int(obj.y), int(obj.x)]) == COLORS[obj.color], obj.id
    labelled = scene.with_objects((*scene.objects, SceneObject("l", "circle", "white", 250, 480,
                                                               20, label="A")))
    assert render_png(labelled) != render_png(scene.with_objects(
        (*scene.objects, SceneObject("l", "circle", "white", 250, 480, 20))))
