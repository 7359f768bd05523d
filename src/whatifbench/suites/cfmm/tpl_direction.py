"""Direction: is one object left or right of (above or below) another, and would it be if the
picture were mirrored or rotated, or two objects swapped places."""

from __future__ import annotations

import random
from itertools import combinations

from whatifbench.scenes.interventions import Mirror, SwapPositions
from whatifbench.scenes.model import SceneObject
from whatifbench.scenes.selectors import Where
from whatifbench.scenes.verbal import SIDE_WORDS, Side
from whatifbench.suites.cfmm.draw import Draw, Premise
from whatifbench.suites.cfmm.layout import COLORS, SHAPES, distinct, place, scene_of, solid

RADIUS = (18.0, 30.0)
"""Object sizes in direction scenes."""


def _objects(rng: random.Random, n: int) -> list[SceneObject] | None:
    """``n`` objects of different shapes; every one keeps room for the largest (swaps)."""
    objects = [solid(f"o{i}", shape, rng.choice(COLORS), rng.uniform(*RADIUS))
               for i, shape in enumerate(distinct(rng, SHAPES, n), start=1)]
    room = max(o.size for o in objects)
    return place(rng, objects, {o.id: room for o in objects})


def _question(rng: random.Random, a: SceneObject, b: SceneObject) -> tuple[str, str, Side, str]:
    """(basic question, counterfactual question format, program, relation phrase format)."""
    axis = rng.choice(("x", "y"))
    first, second = SIDE_WORDS[axis]
    words = f"{first} or {second}"
    tail = f"{words} of the {b.shape}" if axis == "x" else f"{words} the {b.shape}"
    relation = "{} of" if axis == "x" else "{}"
    return (f"Is the {a.shape} {tail}?", f"If {{premise}}, would the {a.shape} be {tail}?",
            Side(Where(shape=a.shape), Where(shape=b.shape), axis), relation)


def _rel(relation: str, answer: str, a: SceneObject, b: SceneObject, verb: str = "would be"
         ) -> str:
    return f"the {a.shape} {verb} {relation.format(answer)} the {b.shape}"


def direction_picture(rng: random.Random, changed: bool) -> Draw | None:
    """"Is the star left or right of the square?" — if the picture were mirrored left to
    right (or flipped top to bottom, or rotated by 180 degrees)."""
    objects = _objects(rng, rng.randint(2, 4))
    if objects is None:
        return None
    a, b = objects[:2]
    basic, cf, program, relation = _question(rng, a, b)
    x_axis = program.axis == "x"
    after = _rel(relation, "{c}", a, b)
    mirror = ("Mirroring the picture left to right swaps left and right" if x_axis
              else "Mirroring the picture left to right does not change above and below")
    flip = ("Flipping the picture top to bottom does not change left and right" if x_axis
            else "Flipping the picture top to bottom swaps above and below")
    premises = (
        Premise("the picture were mirrored left to right", (Mirror("left-right"),),
                f"{mirror}, so {after}.", kind="mirror"),
        Premise("the picture were flipped top to bottom", (Mirror("top-bottom"),),
                f"{flip}, so {after}.", kind="flip"),
        Premise("the picture were rotated by 180 degrees",
                (Mirror("left-right"), Mirror("top-bottom")),
                f"Rotating the picture by 180 degrees swaps both left and right and above and "
                f"below, so {after}.", kind="rotate-picture"),
    )
    return Draw("direction-picture", scene_of(objects), basic, program,
                f"In the picture {_rel(relation, '{b}', a, b, 'is')}.", cf, "", program, premises,
                "", {"axis": program.axis}, pair=SIDE_WORDS[program.axis])


def direction_swap(rng: random.Random, changed: bool) -> Draw | None:
    """"Is the star above or below the square?" — if the star and the circle swapped
    places."""
    objects = _objects(rng, rng.randint(3, 5))
    if objects is None:
        return None
    a, b = objects[:2]
    basic, cf, program, relation = _question(rng, a, b)
    premises = tuple(
        Premise(f"the {x.shape} and the {y.shape} swapped places",
                (SwapPositions(Where(shape=x.shape), Where(shape=y.shape)),),
                f"After the {x.shape} and the {y.shape} swap places, "
                f"{_rel(relation, '{c}', a, b)}.", kind="swap-places")
        for x, y in combinations(objects[:3], 2))
    return Draw("direction-swap", scene_of(objects), basic, program,
                f"In the picture {_rel(relation, '{b}', a, b, 'is')}.", cf, "", program, premises,
                "", {"axis": program.axis}, pair=SIDE_WORDS[program.axis])
