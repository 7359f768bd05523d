"""The six C-VQA-Synthetic templates: release wording, answer programs, interventions.

Each template turns a scene (and its parameters) into an ``Instance``: the original and
counterfactual question texts exactly as the release words them, the program that answers
both (the counterfactual one runs on the intervened scene), the intervention that the premise
describes, and a one-sentence explanation built from counts the programs compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from whatifbench.scenes.geometry import inside_table
from whatifbench.scenes.interventions import Intervention, Recolor, Remove, apply_all
from whatifbench.scenes.model import Scene
from whatifbench.scenes.programs import Count, MaxContents, Program
from whatifbench.scenes.selectors import Ids, MostContents, Ranked, Union, Where

TEMPLATES = (1, 2, 3, 4, 5, 6)
FLOWER_TEMPLATES = (1, 2, 3)
DOT_TEMPLATES = (4, 5, 6)

RANGES: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {
    1: ((2, 24), (1, 12)),
    2: ((3, 23), (0, 21)),
    3: ((2, 24), (1, 12)),
    4: ((9, 38), (0, 37)),
    5: ((3, 21), (2, 15)),
    6: ((4, 8), (2, 7)),
}
"""(original, counterfactual) answer ranges of the release, per template."""

TOP_RIGHT_PREMISE = ("if the two rightmost circles and dots in them were removed from the "
                     "circles")
"""Template 5's premise."""

N_RANGES = {2: (1, 22), 4: (1, 30)}
"""Range of N (flowers / dots removed) in the release."""

POLYGONS = Where(shape="polygon")
CIRCLES = Where(shape="circle")
DOTS = Where(shape="dot")
DOTS_IN_CIRCLES = Where(shape="dot", within=CIRCLES)
RIGHTMOST_TWO = Ranked(CIRCLES, "x", descending=True, k=2)
TOP_THREE = Ranked(CIRCLES, "y", descending=False, k=3)
MOST_DOTS = MostContents(CIRCLES, DOTS, k=1)


def polygons(color: str) -> Where:
    """The polygons of one colour."""
    return Where(shape="polygon", color=color)


def flowers_in(color: str) -> Where:
    """Flowers inside the polygons of one colour."""
    return Where(shape="flower", within=polygons(color))


def flowers_out(color: str) -> Where:
    """Flowers outside the polygons of one colour."""
    return Where(shape="flower", outside=polygons(color))


@dataclass(frozen=True)
class Instance:
    """One filled-in template for one scene."""

    template: int
    """1 … 6."""
    original: str
    """The original question (release wording, without the options)."""
    counterfactual: str
    """The counterfactual question (release wording, without the options)."""
    premise: str
    """The counterfactual premise (the ``if …`` clause) checked for leakage."""
    program: Program
    """Answers the original question on the scene."""
    cf_program: Program
    """Answers the counterfactual question on the intervened scene."""
    interventions: tuple[Intervention, ...]
    """What the premise changes."""
    params: dict[str, Any]
    """The template's parameters (colours, N)."""

    def intervened(self, scene: Scene) -> Scene:
        """The scene after the premise's interventions."""
        return apply_all(scene, self.interventions)

    def answers(self, scene: Scene, after: Scene | None = None) -> tuple[int, int]:
        """(original, counterfactual) answers, computed by the programs (``after`` is the
        intervened scene, computed when not given)."""
        after = self.intervened(scene) if after is None else after
        original = self.program.execute(scene)
        counterfactual = self.cf_program.execute(after)
        assert isinstance(original, int) and isinstance(counterfactual, int)
        return original, counterfactual

    def problems(self, scene: Scene, after: Scene | None = None) -> list[str]:
        """Near-ties in the question, the premise's selections and the counterfactual."""
        after = self.intervened(scene) if after is None else after
        found = self.program.ambiguities(scene)
        for intervention in self.interventions:
            found += intervention.ambiguities(scene)
        return found + self.cf_program.ambiguities(after)

    def to_json(self) -> dict[str, Any]:
        """Provenance: programs, interventions, parameters."""
        return {"program": self.program.to_json(), "cf_program": self.cf_program.to_json(),
                "interventions": [i.to_json() for i in self.interventions],
                "params": self.params}


def template_1(color: str) -> Instance:
    """Flowers outside the C polygons / … if all polygons were C (outside both)."""
    program = Count(flowers_out(color))
    premise = f"if all polygons were {color}"
    return Instance(
        1, f"How many flowers are outside the {color} polygons?",
        f"How many flowers would be outside the {color} polygons {premise}?", premise,
        program, program, (Recolor(POLYGONS, color),), {"color": color})


def template_2(color: str, removed: tuple[str, ...]) -> Instance:
    """Flowers inside the C polygons / … if we removed N flowers in C polygons."""
    program = Count(flowers_in(color))
    n = len(removed)
    premise = f"if we removed {n} flowers in {color} polygons"
    return Instance(
        2, f"How many flowers are inside the {color} polygons?",
        f"How many flowers would be inside {color} polygons {premise}?", premise,
        program, program, (Remove(Ids(removed)),), {"color": color, "n": n})


def template_3(color: str, removed_color: str) -> Instance:
    """Flowers inside the C1 polygons / … if all flowers in C2 polygons were removed."""
    program = Count(flowers_in(color))
    premise = f"if all flowers in {removed_color} polygons were removed"
    return Instance(
        3, f"How many flowers are inside the {color} polygons?",
        f"How many flowers would be inside {color} polygons {premise}?", premise,
        program, program, (Remove(flowers_in(removed_color)),),
        {"color": color, "removed_color": removed_color})


def template_4(removed: tuple[str, ...]) -> Instance:
    """Dots in all the circles / … if N dots were removed from the circles."""
    program = Count(DOTS_IN_CIRCLES)
    n = len(removed)
    premise = f"if {n} dots were removed from the circles"
    return Instance(
        4, "How many dots are there in all the circles together?",
        f"How many dots would there be in all the circles together {premise}?", premise,
        program, program, (Remove(Ids(removed)),), {"n": n})


def template_5() -> Instance:
    """Dots in the top three circles / … if the two rightmost circles were removed."""
    program = Count(Where(shape="dot", within=TOP_THREE))
    premise = TOP_RIGHT_PREMISE
    removal = Remove(Union((RIGHTMOST_TWO, Where(shape="dot", within=RIGHTMOST_TWO))))
    return Instance(
        5, "How many dots are there in the top three circles together?",
        f"How many dots would there be in the top three circles together {premise}?", premise,
        program, program, (removal,), {})


def template_6() -> Instance:
    """Most dots in a circle / … if one of the circles with most dots were removed."""
    program = MaxContents(CIRCLES, DOTS)
    premise = "if one of the circles with most dots were removed"
    removal = Remove(Union((MOST_DOTS, Where(shape="dot", within=MOST_DOTS))))
    return Instance(
        6, "How many dots do a circle contain at most?",
        f"How many dots would a circle contain at most {premise}?", premise,
        program, program, (removal,), {})


def regions(scene: Scene, color: str, other: str) -> dict[str, int]:
    """Flowers per region of the two polygons: ``only`` (inside ``color`` only), ``both``,
    ``other`` (inside ``other`` only) and ``none``, from the scene's geometry."""
    flowers = Where(shape="flower").select(scene)
    table = inside_table(scene, flowers, [*polygons(color).select(scene),
                                          *polygons(other).select(scene)])
    none, only, other_only, both = np.bincount(table[:, 0] + 2 * table[:, 1].astype(np.intp),
                                               minlength=4).tolist()
    return {"only": only, "both": both, "other": other_only, "none": none}


def explain(instance: Instance, scene: Scene, after: Scene, answers: tuple[int, int],
            other: str | None = None) -> tuple[str, str]:
    """One sentence each on how the original and the counterfactual answer follow.

    ``after`` is the intervened scene; ``other`` the colour of the polygon the question does
    not name (flower templates).
    """
    orig, cf = answers
    k, p = instance.template, instance.params
    if k in FLOWER_TEMPLATES:
        assert other is not None
        c = p["color"]
        n = regions(scene, c, other)
        if k == 1:
            first = (f"{_f(n['none'])} {_be(n['none'])} outside both polygons and "
                     f"{n['other']} only inside the {other} polygon, so {_f(orig)} {_be(orig)} "
                     f"outside the {c} polygon.")
            second = (f"If all polygons were {c}, only the {_f(cf)} outside both polygons "
                      f"would be outside the {c} polygons.")
            return first, second
        first = (f"{_f(n['only'])} {_be(n['only'])} only inside the {c} polygon and "
                 f"{n['both']} inside both polygons, so {_f(orig)} {_be(orig)} inside the {c} "
                 "polygons.")
        if k == 2:
            return first, f"Removing {p['n']} of the {_f(orig)} in the {c} polygons leaves {cf}."
        second = (f"Removing every flower in the {other} polygon takes away the "
                  f"{_f(n['both'])} inside both polygons, leaving the {_f(cf)} only inside the "
                  f"{c} polygon.")
        return first, second
    if k == 4:
        return (f"The circles hold {_sum(dot_counts(scene))} = {orig} dots.",
                f"Removing {p['n']} of the {orig} dots leaves {cf}.")
    if k == 5:
        first = f"The top three circles hold {_sum(dot_counts(scene, TOP_THREE))} = {orig} dots."
        second = (f"Without the two rightmost circles, the top three remaining circles hold "
                  f"{_sum(dot_counts(after, TOP_THREE))} = {cf} dots.")
        return first, second
    ranked = sorted(dot_counts(scene), reverse=True)
    first = f"The circles hold {', '.join(map(str, ranked))} dots, so the most is {orig}."
    second = (f"Without the circle holding {orig} dots, the most any remaining circle holds "
              f"is {cf}.")
    return first, second


def _f(count: int) -> str:
    """``1 flower``, ``3 flowers``."""
    return f"{count} flower" if count == 1 else f"{count} flowers"


def _be(count: int) -> str:
    return "is" if count == 1 else "are"


def _sum(counts: list[int]) -> str:
    return " + ".join(map(str, counts))


def dot_counts(scene: Scene, circles: Ranked | Where = CIRCLES) -> list[int]:
    """Dots inside each selected circle, circles from left to right."""
    chosen = sorted(circles.select(scene), key=lambda c: (c.x, c.id))
    return [int(n) for n in inside_table(scene, DOTS.select(scene), chosen).sum(axis=0).tolist()]
