"""Color: what colour an object is, and would be after colours are swapped or copied, or after
objects swap places or the picture is mirrored ("the leftmost shape")."""

from __future__ import annotations

import random

from whatifbench.scenes.interventions import Mirror, SwapColors, SwapPositions
from whatifbench.scenes.model import SceneObject
from whatifbench.scenes.programs import Attribute
from whatifbench.scenes.selectors import All, Ranked, Where
from whatifbench.scenes.verbal import MatchColor
from whatifbench.suites.cfmm.draw import Draw, Premise
from whatifbench.suites.cfmm.layout import COLORS, SHAPES, distinct, place, scene_of, solid

RADIUS = (18.0, 32.0)
"""Object sizes in colour scenes."""
EXTREMES = {"leftmost": ("x", False), "rightmost": ("x", True), "highest": ("y", False),
            "lowest": ("y", True)}
"""Position words and their ranking (key, descending)."""
OPPOSITE = {"leftmost": "rightmost", "rightmost": "leftmost", "highest": "lowest",
            "lowest": "highest"}
MIRROR_TEXT = {"left-right": "the picture were mirrored left to right",
               "top-bottom": "the picture were flipped top to bottom"}
"""How a premise words mirroring the whole picture."""


def _scene_objects(rng: random.Random, n: int) -> list[SceneObject] | None:
    """``n`` objects of different shapes and colours at random places (swaps keep them
    apart: every object keeps room for the largest one)."""
    objects = [solid(f"o{i}", shape, color, rng.uniform(*RADIUS))
               for i, (shape, color) in enumerate(zip(distinct(rng, SHAPES, n),
                                                      distinct(rng, COLORS, n), strict=True),
                                                  start=1)]
    room = max(o.size for o in objects)
    return place(rng, objects, {o.id: room for o in objects})


def _the(obj: SceneObject) -> str:
    return f"the {obj.shape}"


def _by_shape(obj: SceneObject) -> Where:
    return Where(shape=obj.shape)


def color_swap(rng: random.Random, changed: bool) -> Draw | None:
    """"What color is the square?" — after it swaps colours with another object (or two others
    swap colours, or it swaps places)."""
    objects = _scene_objects(rng, rng.randint(3, 5))
    if objects is None:
        return None
    a, b, c = objects[:3]
    ask = Attribute(_by_shape(a), "color")
    premises: tuple[Premise, ...]
    if changed:
        premises = (Premise(f"{_the(a)} and {_the(b)} swapped colors",
                            (SwapColors(_by_shape(a), _by_shape(b)),),
                            f"The {a.shape} is {{b}} and the {b.shape} is {{c}}; after swapping "
                            f"colors the {a.shape} is {{c}}.", kind="swap-colors"),)
    else:
        premises = (Premise(f"{_the(b)} and {_the(c)} swapped colors",
                            (SwapColors(_by_shape(b), _by_shape(c)),),
                            f"The {a.shape} takes no part in the swap, so it stays {{c}}.",
                            kind="swap-colors-others"),
                    Premise(f"{_the(a)} and {_the(b)} swapped places",
                            (SwapPositions(_by_shape(a), _by_shape(b)),),
                            f"Swapping places does not change colors, so the {a.shape} stays "
                            "{c}.", kind="swap-places"))
    return Draw("color-swap", scene_of(objects), f"What color is {_the(a)}?", ask,
                f"The {a.shape} is {{b}}.", "If {premise}, what color would the "
                f"{a.shape} be?", _the(a), ask, premises, b.color, {"shape": a.shape})


def color_match(rng: random.Random, changed: bool) -> Draw | None:
    """"What color is the star?" — if it were painted the same colour as another object (or
    another object were repainted)."""
    objects = _scene_objects(rng, rng.randint(3, 5))
    if objects is None:
        return None
    a, b, c = objects[:3]
    ask = Attribute(_by_shape(a), "color")
    if changed:
        premise = Premise(f"{_the(a)} were painted the same color as {_the(b)}",
                          (MatchColor(_by_shape(a), _by_shape(b)),),
                          f"The {b.shape} is {{c}}, so the {a.shape} would become {{c}}.",
                          kind="match")
    else:
        premise = Premise(f"{_the(b)} were painted the same color as {_the(c)}",
                          (MatchColor(_by_shape(b), _by_shape(c)),),
                          f"Only the {b.shape} would change color; the {a.shape} stays {{c}}.",
                          kind="match-other")
    return Draw("color-match", scene_of(objects), f"What color is {_the(a)}?", ask,
                f"The {a.shape} is {{b}}.", "If {premise}, what color would the "
                f"{a.shape} be?", _the(a), ask, (premise,), b.color, {"shape": a.shape})


def color_extreme(rng: random.Random, changed: bool) -> Draw | None:
    """"What color is the leftmost shape?" — after the picture is mirrored or rotated, or two
    objects swap places."""
    objects = _scene_objects(rng, rng.randint(3, 5))
    if objects is None:
        return None
    scene = scene_of(objects)
    where = rng.choice(tuple(EXTREMES))
    key, descending = EXTREMES[where]
    ask = Attribute(Ranked(All(), key, descending), "color")
    first = Ranked(All(), key, descending).select(scene)[0]
    ranked = sorted(objects, key=lambda o: getattr(o, key), reverse=descending)
    last, middle = ranked[-1], ranked[1:-1]
    axis, other_axis = ("left-right", "top-bottom") if key == "x" else ("top-bottom",
                                                                        "left-right")
    premises: tuple[Premise, ...]
    if changed:
        premises = (
            Premise(MIRROR_TEXT[axis], (Mirror(axis),),
                    f"Mirroring brings the {OPPOSITE[where]} shape, the {last.shape}, to the "
                    f"{where} place, so it would be {{c}}.", kind="mirror"),
            Premise("the picture were rotated by 180 degrees",
                    (Mirror("left-right"), Mirror("top-bottom")),
                    f"Rotating the picture brings the {OPPOSITE[where]} shape, the "
                    f"{last.shape}, to the {where} place, so it would be {{c}}.",
                    kind="rotate-picture"),
            *(Premise(f"{_the(first)} and {_the(o)} swapped places",
                      (SwapPositions(_by_shape(first), _by_shape(o)),),
                      f"The {o.shape} would take the place of the {first.shape}, the {where} "
                      "shape, so the answer would be {c}.", kind="swap-places")
              for o in ranked[1:]),
        )
        distractor = last.color
    else:
        premises = (Premise(MIRROR_TEXT[other_axis], (Mirror(other_axis),),
                            f"That does not change which shape is {where}: it is still {{c}}.",
                            kind="mirror-other-axis"),)
        if len(middle) >= 2:
            x, y = rng.sample(middle, 2)
            premises += (Premise(f"{_the(x)} and {_the(y)} swapped places",
                                 (SwapPositions(_by_shape(x), _by_shape(y)),),
                                 f"The {first.shape} stays the {where} shape, so it is still "
                                 "{c}.", kind="swap-places-others"),)
        distractor = rng.choice(ranked[1:]).color
    return Draw("color-extreme", scene, f"What color is the {where} shape?", ask,
                f"The {where} shape is the {first.shape}, which is {{b}}.",
                f"If {{premise}}, what color would the {where} shape be?", "", ask, premises,
                distractor, {"position": where})
