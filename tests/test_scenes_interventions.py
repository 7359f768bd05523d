"""Every intervention on hand-built scenes: the answer is recomputed from the intervened scene."""

from __future__ import annotations

import json

from scene_builders import shapes_scene

from whatifbench.scenes import (
    Add,
    All,
    Attribute,
    Count,
    Ids,
    Larger,
    Mirror,
    MoreThan,
    Move,
    Recolor,
    Relation,
    Remove,
    Resize,
    Rotate,
    SceneObject,
    Stretch,
    SwapColors,
    SwapPositions,
    Where,
    WiderThanTall,
    apply_all,
)
from whatifbench.scenes.interventions import Intervention
from whatifbench.scenes.model import Scene
from whatifbench.scenes.programs import Program

SQUARE, CIRCLE, STAR, BAR = Ids(("square",)), Ids(("circle",)), Ids(("star",)), Ids(("bar",))
TRIANGLE = Ids(("triangle",))


def check(intervention: Intervention, program: Program, before: object, after: object) -> Scene:
    """The program answers ``before`` on the scene and ``after`` on the intervened scene."""
    scene = shapes_scene()
    snapshot = scene.to_json()
    changed = apply_all(scene, [intervention])
    assert scene.to_json() == snapshot  # pure: the input scene is untouched
    assert program.execute(scene) == before
    assert program.execute(changed) == after
    assert program.ambiguities(changed) == []
    record = intervention.to_json()
    assert record["intervention"] == intervention.name
    json.dumps(record)  # provenance is JSON
    return changed


def test_add() -> None:
    extra = SceneObject("triangle-2", "triangle", "red", 300, 420, 20)
    check(Add(extra), Count(Where(shape="triangle")), 1, 2)
    assert Add(extra).to_json()["object"]["id"] == "triangle-2"


def test_remove() -> None:
    check(Remove(Where(color="yellow")), Count(All()), 5, 4)


def test_recolor() -> None:
    check(Recolor(SQUARE, "blue"), Count(Where(color="blue")), 1, 2)
    check(Recolor(SQUARE, "blue"), Attribute(SQUARE, "color"), "red", "blue")


def test_swap_colors() -> None:
    changed = check(SwapColors(SQUARE, CIRCLE), Attribute(SQUARE, "color"), "red", "blue")
    assert Attribute(CIRCLE, "color").execute(changed) == "red"


def test_resize() -> None:
    check(Resize(CIRCLE, 3.0), Larger(CIRCLE, SQUARE), False, True)


def test_move() -> None:
    check(Move(CIRCLE, dx=-250, dy=0), Relation(CIRCLE, SQUARE, "left-of"), False, True)


def test_swap_positions() -> None:
    check(SwapPositions(SQUARE, TRIANGLE), Relation(SQUARE, TRIANGLE, "above"), True, False)


def test_mirror_left_right_and_top_bottom() -> None:
    check(Mirror("left-right"), Relation(SQUARE, CIRCLE, "left-of"), True, False)
    changed = check(Mirror("top-bottom"), Relation(SQUARE, TRIANGLE, "above"), True, False)
    # A mirrored triangle points the other way: its top vertex is now at the bottom.
    from whatifbench.scenes.geometry import outline
    before = outline(shapes_scene().get("triangle"))
    after = outline(changed.get("triangle"))
    assert min(p[1] for p in before) < 300 - 20 and max(p[1] for p in after) > 512 - 300 + 20


def test_rotate() -> None:
    check(Rotate(BAR, 90), WiderThanTall(BAR), True, False)


def test_stretch_squashes_and_stretches() -> None:
    # A circle is as wide as tall (a tie); squashed to half its height it is wider.
    scene = shapes_scene()
    assert WiderThanTall(CIRCLE).ambiguities(scene)
    check(Stretch(CIRCLE, sy=0.5), WiderThanTall(CIRCLE), False, True)
    check(Stretch(BAR, sx=0.25), WiderThanTall(BAR), True, False)


def test_counterfactual_comparison_of_counts() -> None:
    program = MoreThan(Where(color="red"), Where(color="blue"))
    scene = shapes_scene()
    assert program.ambiguities(scene)  # one red, one blue: a tie
    check(Recolor(TRIANGLE, "red"), program, False, True)


def test_interventions_compose_in_order() -> None:
    scene = shapes_scene()
    steps = [Recolor(All(), "green"), Remove(Where(shape="star"))]
    changed = apply_all(scene, steps)
    assert Count(Where(color="green")).execute(changed) == 4
    assert [s.to_json()["intervention"] for s in steps] == ["recolor", "remove"]
