"""CFMM-Synthetic validity checks on hand-built scenes: deliberately ambiguous pairs are
rejected; every template keeps only pairs that pass and change their answer as asked."""

from __future__ import annotations

import random

import pytest

from whatifbench.scenes import Ids, Larger, Resize, Scene, SceneObject, apply_all
from whatifbench.scenes.programs import Attribute
from whatifbench.scenes.verbal import MatchColor, Side, YesNo, size_problems
from whatifbench.suites.cfmm.draw import Draw, Premise, pair_problems, scene_ok, singles_out
from whatifbench.suites.cfmm.synth import TEMPLATES, sample

A, B, C = Ids(("a",)), Ids(("b",)), Ids(("c",))


def _draw(scene: Scene, program: object, premise: Premise, **fields: object) -> Draw:
    return Draw("test", scene, "Basic?", program, "{b}.", "If {premise}, {subject}?", "the a",
                program, (premise,), "other", **fields)  # type: ignore[arg-type]


def _problems(draw: Draw) -> list[str]:
    premise = draw.premises[0]
    after = apply_all(draw.scene, premise.interventions)
    b = str(draw.basic_program.execute(draw.scene))
    c = str(draw.cf_program.execute(after))
    options = draw.options(b, c, random.Random(0))
    assert options is not None
    return pair_problems(draw, premise, after, (b, c), options)


def test_a_side_question_about_stacked_objects_is_rejected() -> None:
    a = SceneObject("a", "square", "red", 100, 100, 20)
    scene = Scene(448, 448, (a, a.replace(id="b", color="blue", x=112, y=300)))
    draw = _draw(scene, Side(A, B, "x"), Premise("nothing", (), "{c}."), pair=("left", "right"))
    assert not scene_ok(draw)
    clear = Scene(448, 448, (a, a.replace(id="b", color="blue", x=200, y=300)))
    assert scene_ok(_draw(clear, Side(A, B, "x"), Premise("nothing", (), "{c}.")))


def test_a_size_question_where_area_and_extent_disagree_is_rejected() -> None:
    square = SceneObject("a", "square", "red", 100, 100, 30)
    star = SceneObject("b", "star", "blue", 300, 100, 33)
    scene = Scene(448, 448, (square, star))
    draw = _draw(scene, YesNo(Larger(A, B)), Premise("nothing", (), "{c}."),
                 checks=lambda s: size_problems(s.get("a"), s.get("b")))
    assert not scene_ok(draw)


def test_a_premise_whose_readings_disagree_is_rejected() -> None:
    # The circle's area is 0.36 of the square's: "twice as big" makes it larger when read as
    # twice the width (area × 4) but not as twice the area (× 2).
    square = SceneObject("a", "square", "red", 100, 100, 30)
    circle = SceneObject("b", "circle", "blue", 300, 100, 14.4)
    scene = Scene(448, 448, (square, circle))
    premise = Premise("the circle were twice as big", (Resize(B, 2.0),), "{c}.",
                      readings=((Resize(B, 2 ** 0.5),),))
    draw = _draw(scene, YesNo(Larger(B, A)), premise)
    assert "another reading of the premise gives another answer" in _problems(draw)
    clear = Premise("the circle were four times as big", (Resize(B, 4.0),), "{c}.",
                    readings=((Resize(B, 2.0),),))
    assert _problems(_draw(scene, YesNo(Larger(B, A)), clear)) == []


def test_a_premise_that_hides_an_object_is_rejected() -> None:
    square = SceneObject("a", "square", "red", 100, 100, 30)
    circle = SceneObject("b", "circle", "blue", 180, 100, 25)  # 34 px apart; 3 × 25 > 34 + 25
    premise = Premise("the circle were three times as big", (Resize(B, 3.0),), "{c}.")
    problems = _problems(_draw(Scene(448, 448, (square, circle)), YesNo(Larger(B, A)), premise))
    assert any("overlaps" in p for p in problems)


def test_a_question_that_names_one_option_is_rejected() -> None:
    assert singles_out("If the square were painted red, what color would it be?",
                       ("red", "blue"))
    assert not singles_out("Is the star left or right of the square?", ("left", "right"))
    assert singles_out("If two more stars were added, how many stars would there be?",
                       ("2", "5"))
    objects = (SceneObject("a", "square", "red", 100, 100, 30),
               SceneObject("b", "circle", "blue", 300, 100, 25),
               SceneObject("c", "star", "green", 200, 300, 25))
    leak = Premise("the square were painted blue like the circle", (MatchColor(A, B),), "{c}.")
    draw = _draw(Scene(448, 448, objects), Attribute(A, "color"), leak)
    assert any("names one of the options" in p for p in _problems(draw))


def test_count_options_stay_non_negative_and_off_the_tie() -> None:
    draw = _draw(Scene(448, 448), Attribute(A, "color"), Premise("x", (), "{c}."),
                 steps=(1, 2))
    rng = random.Random(1)
    seen: dict[str, set[str]] = {"b": set(), "c": set(), "zero": set()}
    for _ in range(200):
        (b, ob), (c, oc) = draw.options("4", "5", rng)  # type: ignore[misc]
        assert (b, c) == ("4", "5")
        seen["b"].add(ob)
        seen["c"].add(oc)
        seen["zero"].add(draw.options("0", "0", rng)[0][1])  # type: ignore[index]
    assert seen["b"] == {"2", "3", "5", "6"}
    # Never 3 (as near to the basic 4 as the answer 5) nor 7: no step of twice the change.
    assert seen["c"] == {"4", "6"}
    assert seen["zero"] == {"1", "2"}


@pytest.mark.parametrize("template", [t for ts in TEMPLATES.values() for t in ts])
def test_every_template_keeps_only_valid_pairs_as_asked(template: str) -> None:
    rng = random.Random(template)
    for changed in (True, False, True):
        s = sample(template, changed, rng)
        b, c = s.answers
        # shortcut-free counts: every counterfactual option differs from the basic ones
        assert (b != c) is (changed or template.startswith("count"))
        assert s.options[0][0] == b and s.options[1][0] == c
        assert pair_problems(s.draw, s.premise, s.after, s.answers, s.options) == []
        assert scene_ok(s.draw)
        assert s.after == apply_all(s.draw.scene, s.premise.interventions)
