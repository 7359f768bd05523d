"""Word-answer programs and the interventions CFMM-Synthetic adds (``scenes.verbal``) on
hand-built scenes: every answer is recomputed from the intervened scene; near-ties are reported."""

from __future__ import annotations

import json
import math

import pytest
from scene_builders import shapes_scene

from whatifbench.scenes import (
    Attribute,
    Ids,
    Larger,
    Mirror,
    Resize,
    Rotate,
    Scene,
    SceneObject,
    Stretch,
    apply_all,
)
from whatifbench.scenes.geometry import area
from whatifbench.scenes.interventions import Intervention
from whatifbench.scenes.programs import Program
from whatifbench.scenes.verbal import (
    LargerOne,
    MatchColor,
    MatchSize,
    Pointing,
    SeenShape,
    Side,
    SwapSizes,
    YesNo,
    extent,
    seen_shape,
    size_problems,
)

SQUARE, CIRCLE, TRIANGLE, STAR = (Ids((n,)) for n in ("square", "circle", "triangle", "star"))


def check(scene: Scene, steps: list[Intervention], program: Program, before: str,
          after: str) -> Scene:
    """``program`` answers ``before`` on the scene and ``after`` on the intervened scene,
    without near-ties; the scene is left as it was and the steps record themselves."""
    snapshot = scene.to_json()
    changed = apply_all(scene, steps)
    assert scene.to_json() == snapshot
    assert program.execute(scene) == before
    assert program.execute(changed) == after
    assert program.ambiguities(scene) == [] and program.ambiguities(changed) == []
    for step in steps:
        json.dumps(step.to_json())
    json.dumps(program.to_json())
    return changed


def test_yes_no_wraps_a_true_false_program() -> None:
    # The blue circle (radius 20) is smaller than the red square (radius 30).
    check(shapes_scene(), [Resize(CIRCLE, 3.0)], YesNo(Larger(CIRCLE, SQUARE)), "no", "yes")


def test_side_left_right_and_above_below() -> None:
    scene = shapes_scene()  # square (100, 100), circle (300, 100), triangle (200, 300)
    check(scene, [Mirror("left-right")], Side(SQUARE, CIRCLE, "x"), "left", "right")
    check(scene, [Mirror("top-bottom")], Side(SQUARE, CIRCLE, "x"), "left", "left")
    check(scene, [Mirror("left-right"), Mirror("top-bottom")], Side(TRIANGLE, SQUARE, "y"),
          "below", "above")


def test_side_reports_overlapping_extents() -> None:
    a = SceneObject("a", "square", "red", 100, 100, 20)
    stacked = Scene(512, 512, (a, a.replace(id="b", x=110, y=300)))
    assert Side(Ids(("a",)), Ids(("b",)), "x").ambiguities(stacked)  # one above the other
    assert not Side(Ids(("a",)), Ids(("b",)), "y").ambiguities(stacked)
    apart = Scene(512, 512, (a, a.replace(id="b", x=100 + 2 * 14.2 + 7, y=300)))
    assert not Side(Ids(("a",)), Ids(("b",)), "x").ambiguities(apart)
    assert Side(Ids(("a",)), Ids(("b",)), "x").execute(apart) == "left"


def test_larger_one_names_the_larger_shape_and_size_ties_are_reported() -> None:
    scene = shapes_scene()
    check(scene, [Resize(CIRCLE, 2.0)], LargerOne(SQUARE, CIRCLE), "square", "circle")
    check(scene, [], LargerOne(SQUARE, CIRCLE, smaller=True), "circle", "circle")
    square = SceneObject("a", "square", "red", 100, 100, 30)
    close = Scene(512, 512, (square, SceneObject("b", "circle", "blue", 300, 100, 23)))
    # areas 1800 and 1662: within 15 %
    assert "areas within 15%" in LargerOne(Ids(("a",)), Ids(("b",))).ambiguities(close)
    # A star spans more than a square of larger area: "larger" is open to interpretation.
    star = SceneObject("b", "star", "blue", 300, 100, 33)
    assert area(star) < area(square) / 1.15 and extent(star) > extent(square)
    assert any("disagree" in p for p in size_problems(square, star))


def test_seen_shape_follows_stretching() -> None:
    scene = Scene(512, 512, (SceneObject("s", "square", "red", 100, 100, 30),
                             SceneObject("r", "rectangle", "blue", 300, 100, 40),
                             SceneObject("c", "circle", "green", 100, 300, 30)))
    red, blue, green = (Ids((n,)) for n in "src")
    check(scene, [Stretch(red, sx=2.0)], SeenShape(red), "square", "rectangle")
    check(scene, [Stretch(blue, sx=0.5)], SeenShape(blue), "rectangle", "square")
    check(scene, [Stretch(green, sy=0.5)], SeenShape(green), "circle", "oval")
    check(scene, [Rotate(blue, 90)], SeenShape(blue), "rectangle", "rectangle")
    nearly = apply_all(scene, [Stretch(red, sx=1.2)])
    assert seen_shape(nearly.get("s")) is None and SeenShape(red).ambiguities(nearly)


def test_pointing_after_turning_and_mirroring() -> None:
    scene = shapes_scene()
    check(scene, [Rotate(TRIANGLE, 180)], Pointing(TRIANGLE), "up", "down")
    check(scene, [Rotate(TRIANGLE, 90)], Pointing(TRIANGLE), "up", "left")
    left = apply_all(scene, [Rotate(TRIANGLE, 90)])
    check(left, [Mirror("left-right")], Pointing(TRIANGLE), "left", "right")
    check(left, [Mirror("top-bottom")], Pointing(TRIANGLE), "left", "left")
    assert Pointing(SQUARE).ambiguities(scene) == ["the object does not clearly point one way"]
    assert Pointing(TRIANGLE).ambiguities(apply_all(scene, [Rotate(TRIANGLE, 45)]))


def test_match_color_copies_another_objects_colour() -> None:
    check(shapes_scene(), [MatchColor(SQUARE, STAR)], Attribute(SQUARE, "color"), "red",
          "yellow")


def test_swap_sizes_exchanges_areas_or_extents() -> None:
    scene = shapes_scene()
    changed = check(scene, [SwapSizes(SQUARE, CIRCLE)], YesNo(Larger(SQUARE, CIRCLE)), "yes",
                    "no")
    assert math.isclose(area(changed.get("square")), area(scene.get("circle")))
    assert math.isclose(area(changed.get("circle")), area(scene.get("square")))
    by_extent = apply_all(scene, [SwapSizes(SQUARE, CIRCLE, "extent")])
    assert math.isclose(extent(by_extent.get("square")), extent(scene.get("circle")))


def test_match_size_copies_another_objects_size() -> None:
    scene = shapes_scene()  # the star (radius 30) is smaller than the square (area 1800)
    changed = check(scene, [MatchSize(CIRCLE, STAR)], YesNo(Larger(CIRCLE, SQUARE)), "no", "no")
    assert math.isclose(area(changed.get("circle")), area(scene.get("star")))
    check(scene, [MatchSize(CIRCLE, Ids(("bar",)))], LargerOne(CIRCLE, SQUARE), "square",
          "circle")
    with pytest.raises(ValueError, match="unknown size measure"):
        MatchSize(CIRCLE, STAR, "volume")
