"""The six templates on hand-built scenes: wording, original and counterfactual answers."""

from __future__ import annotations

from scene_builders import dot_scene, flower_scene

from whatifbench.suites.cvqa.synthetic.templates import (
    explain,
    template_1,
    template_2,
    template_3,
    template_4,
    template_5,
    template_6,
)

# flower_scene: red only 2, both 1, blue only 2, outside 3 (flower-1 … flower-8 in that order)


def answers_and_explanations(instance, scene, other=None):  # type: ignore[no-untyped-def]
    after = instance.intervened(scene)
    answers = instance.answers(scene, after)
    assert instance.problems(scene, after) == []
    return answers, explain(instance, scene, after, answers, other)


def test_template_1_outside_then_all_polygons_recoloured() -> None:
    t = template_1("red")
    assert t.original == "How many flowers are outside the red polygons?"
    assert t.counterfactual == ("How many flowers would be outside the red polygons if all "
                                "polygons were red?")
    (orig, cf), (why, why_cf) = answers_and_explanations(t, flower_scene(), "blue")
    assert (orig, cf) == (5, 3)  # blue only + outside; then outside both
    assert "3 flowers are outside both polygons and 2 only inside the blue polygon" in why
    assert "only the 3 flowers outside both polygons" in why_cf
    (orig, cf), _ = answers_and_explanations(template_1("blue"), flower_scene(), "red")
    assert (orig, cf) == (5, 3)


def test_template_2_inside_then_n_removed() -> None:
    t = template_2("red", ("flower-1", "flower-3"))
    assert t.original == "How many flowers are inside the red polygons?"
    assert t.counterfactual == ("How many flowers would be inside red polygons if we removed 2 "
                                "flowers in red polygons?")
    (orig, cf), (_, why_cf) = answers_and_explanations(t, flower_scene(), "blue")
    assert (orig, cf) == (3, 1)
    assert why_cf == "Removing 2 of the 3 flowers in the red polygons leaves 1."


def test_template_3_inside_then_other_colour_emptied() -> None:
    t = template_3("red", "blue")
    assert t.counterfactual == ("How many flowers would be inside red polygons if all flowers "
                                "in blue polygons were removed?")
    (orig, cf), (why, why_cf) = answers_and_explanations(t, flower_scene(), "blue")
    assert (orig, cf) == (3, 2)  # the flower in both polygons goes
    assert why.startswith("2 flowers are only inside the red polygon and 1 inside both")
    assert "takes away the 1 flower inside both polygons" in why_cf
    (orig, cf), _ = answers_and_explanations(template_3("blue", "red"), flower_scene(), "red")
    assert (orig, cf) == (3, 2)


def test_template_4_all_dots_then_n_removed() -> None:
    t = template_4(("dot-1", "dot-2", "dot-7", "dot-20"))
    assert t.original == "How many dots are there in all the circles together?"
    assert t.counterfactual == ("How many dots would there be in all the circles together if 4 "
                                "dots were removed from the circles?")
    (orig, cf), (why, _) = answers_and_explanations(t, dot_scene())
    assert (orig, cf) == (21, 17)
    assert why == "The circles hold 3 + 2 + 1 + 4 + 6 + 5 = 21 dots."


def test_template_5_top_three_then_two_rightmost_removed() -> None:
    t = template_5()
    assert t.original == "How many dots are there in the top three circles together?"
    assert t.counterfactual == (
        "How many dots would there be in the top three circles together if the two rightmost "
        "circles and dots in them were removed from the circles?")
    (orig, cf), (_, why_cf) = answers_and_explanations(t, dot_scene())
    assert (orig, cf) == (9, 6)  # 3 + 1 + 5, then 3 + 1 + 2 (circle-4 moves up)
    assert why_cf.endswith("3 + 2 + 1 = 6 dots.")


def test_template_6_most_then_the_fullest_circle_removed() -> None:
    t = template_6()
    assert t.original == "How many dots do a circle contain at most?"
    assert t.counterfactual == ("How many dots would a circle contain at most if one of the "
                                "circles with most dots were removed?")
    (orig, cf), _ = answers_and_explanations(t, dot_scene())
    assert (orig, cf) == (6, 5)


def test_premises_are_the_if_clauses() -> None:
    for t in (template_1("red"), template_2("red", ("flower-1",)), template_3("red", "blue"),
              template_4(("dot-1",)), template_5(), template_6()):
        assert t.counterfactual.endswith(f" {t.premise}?")
        assert t.premise.startswith("if ")
