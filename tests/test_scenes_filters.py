"""Validity filters: deliberately ambiguous scenes and questions are rejected."""

from __future__ import annotations

from scene_builders import dot_scene, flower_scene

from whatifbench.scenes import (
    Count,
    Ids,
    Larger,
    MostContents,
    Ranked,
    Relation,
    SceneObject,
    Where,
)
from whatifbench.scenes.filters import leaks, scene_problems
from whatifbench.scenes.model import Scene

A, B = Ids(("a",)), Ids(("b",))


def two(a: SceneObject, b: SceneObject) -> Scene:
    return Scene(512, 512, (a, b))


def test_size_near_tie_is_ambiguous() -> None:
    a = SceneObject("a", "circle", "red", 100, 100, 20)
    assert Larger(A, B).ambiguities(two(a, a.replace(id="b", x=300, size=21)))
    assert not Larger(A, B).ambiguities(two(a, a.replace(id="b", x=300, size=30)))


def test_position_near_tie_is_ambiguous() -> None:
    a = SceneObject("a", "square", "red", 100, 100, 20)
    assert Relation(A, B, "left-of").ambiguities(two(a, a.replace(id="b", x=103, y=300)))
    assert not Relation(A, B, "left-of").ambiguities(two(a, a.replace(id="b", x=150, y=300)))


def test_equal_counts_are_ambiguous_where_a_comparison_is_asked() -> None:
    scene = dot_scene()
    most = MostContents(Where(shape="circle"), Where(shape="dot"))
    assert not most.ambiguities(scene)  # 6 dots in one circle, 5 at most elsewhere
    tied = scene.with_objects(o for o in scene.objects if o.id != "dot-21")  # 6 → 5
    assert any("equal counts" in p for p in most.ambiguities(tied))


def test_ranking_near_tie_is_ambiguous() -> None:
    scene = dot_scene()
    top = Ranked(Where(shape="circle"), "y", k=3)
    assert not top.ambiguities(scene)
    # Move the 4th circle up to 3 px below the 3rd: "the top three" is no longer clear.
    close = scene.with_objects(o.replace(y=103) if o.id == "circle-4" else o
                               for o in scene.objects if o.shape != "dot")
    assert top.ambiguities(close)


def test_hidden_and_touching_objects_are_rejected() -> None:
    assert scene_problems(flower_scene()) == []
    a = SceneObject("a", "star", "red", 100, 100, 20)
    problems = scene_problems(two(a, a.replace(id="b", x=125)))
    assert problems and "overlaps" in problems[0]
    scene = flower_scene()
    on_edge = scene.with_objects((*scene.objects, SceneObject(
        "flower-x", "flower", "red", 250, 100, 10, variant="daisy")))
    assert any("touches the line of polygon-1" in p for p in scene_problems(on_edge))
    count = Count(Where(shape="flower", within=Where(shape="polygon", color="red")))
    assert count.ambiguities(on_edge) and not count.ambiguities(scene)
    off = two(a, a.replace(id="b", x=505))
    assert any("leaves the canvas" in p for p in scene_problems(off))


def test_leakage_of_the_answer_in_the_premise() -> None:
    assert leaks("if we removed 3 flowers in red polygons", 3)
    assert leaks("if the two rightmost circles and dots in them were removed", 2)
    assert leaks("if all polygons were red", "red")
    assert not leaks("if we removed 3 flowers in red polygons", 13)
    assert not leaks("if all polygons were red", 5)
