"""Size: is one object larger than another, or which of two is larger, and would it be if
they swapped sizes, if one were as big as a third object, or were resized ("twice as big").

Sizes are planned from the answer wanted: the area ratios are drawn from the range where the
premise does (or does not) flip the comparison. "Twice as big" can mean twice the width or twice
the area, "as big as" the same area or the same extent; a pair is kept only when every reading
gives the same answer and area and extent agree on which object is larger by a clear margin
(``verbal.size_problems``).

A resize names a direction ("twice as big"), and when it flips the answer the answer follows
that direction. So that the wording does not give the answer away, resizes that flip the answer
("resize") are about as frequent, at the default 80 % answer-changed share, as resizes in the
same direction that are too small to flip it ("resize-against").
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from whatifbench.scenes.geometry import area
from whatifbench.scenes.interventions import Intervention, Resize
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.programs import Larger, Program
from whatifbench.scenes.selectors import Where
from whatifbench.scenes.verbal import LargerOne, MatchSize, SwapSizes, YesNo, one, size_problems
from whatifbench.suites.cfmm.draw import Draw, Premise
from whatifbench.suites.cfmm.layout import COLORS, distinct, place, scene_of, solid

SHAPES = ("circle", "square", "triangle", "hexagon", "diamond")
"""Convex shapes only: the size of a star or a cross is open to interpretation."""
FACTORS = {2.0: "twice", 3.0: "three times", 4.0: "four times", 1.5: "one and a half times",
           0.5: "half", 1 / 3: "a third", 0.25: "a quarter", 2 / 3: "two thirds"}
"""Resize factors (of width and height) and their words ("... as big")."""
FLIP_FACTORS = {True: (0.5, 1 / 3, 0.25), False: (2.0, 3.0, 4.0)}
"""Factors that flip the comparison, by "the asked object is larger"."""
WEAK_FACTORS = {True: (0.5, 2 / 3), False: (1.5, 2.0)}
"""Factors pushing the same way that are kept too small to flip it."""
CHANGED_KINDS = {"swap-sizes": 0.45, "match-size": 0.43, "resize": 0.12}
KEPT_KINDS = {"resize-against": 0.45, "match-size": 0.25, "resize-other": 0.30}
"""Premise kinds and their probabilities when the answer changes / does not change."""
WHICH_KINDS = {True: {"swap-sizes": 1.0}, False: {"resize-other": 1.0}}
"""``size-which`` premises name both options or neither."""
MARGIN = 1.3
"""Planned area ratios stay this far from 1 on each side of a comparison (in every reading)."""
REFERENCE = (18.0, 30.0)
"""Size of the reference object and of the others."""
WORDS = ("larger", "bigger", "smaller")


@dataclass(frozen=True)
class Plan:
    """What a size pair is built to ask."""

    larger: bool
    """The asked object (A) is larger than the reference (B), by area."""
    kind: str
    """Premise kind (``CHANGED_KINDS`` / ``KEPT_KINDS``)."""
    factor: float
    """Resize factor (resize kinds)."""
    ratio: float
    """Area of A / area of B."""
    third: float
    """Area of the third object C / area of B (``match-size``), else 0 (any size)."""


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def _clear(rng: random.Random, larger: bool) -> float:
    r = _log_uniform(rng, MARGIN, 3.0)
    return r if larger else 1 / r


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(tuple(weights), tuple(weights.values()))[0]


def plan(rng: random.Random, changed: bool, kinds: dict[str, float] | None = None) -> Plan:
    """Draw the comparison, the premise kind (from ``kinds``, default ``CHANGED_KINDS`` or
    ``KEPT_KINDS``) and area ratios that give the wanted outcome."""
    larger = rng.random() < 0.5
    kind = _pick(rng, kinds or (CHANGED_KINDS if changed else KEPT_KINDS))
    factor, ratio, third = 1.0, _clear(rng, larger), 0.0
    if kind == "match-size":  # C on the other side of B (changed) or on the same side
        third = _clear(rng, larger != changed)
    elif kind == "resize":  # shrinking (growing) by f makes A smaller (larger) in both readings
        factor = rng.choice(FLIP_FACTORS[larger])
        low, high = ((MARGIN, 1 / (MARGIN * factor)) if larger
                     else (MARGIN / factor, 1 / MARGIN))
        ratio = _log_uniform(rng, low, high)
    elif kind == "resize-against":  # too small a change: r·f² stays on the same side
        factor = rng.choice(WEAK_FACTORS[larger])
        edge = MARGIN / factor ** 2 if larger else 1 / (MARGIN * factor ** 2)
        ratio = edge * _log_uniform(rng, 1.0, 1.5) ** (1 if larger else -1)
    elif kind == "resize-other":
        factor = rng.choice(tuple(FACTORS))
    return Plan(larger, kind, factor, ratio, third)


def _unit_area(shape: str) -> float:
    return area(solid("u", shape, "red", 1.0))


def _sized(shape: str, ratio: float, ref_shape: str, ref: float) -> float:
    return math.sqrt(ratio * _unit_area(ref_shape) / _unit_area(shape)) * ref


def _objects(rng: random.Random, p: Plan) -> list[SceneObject] | None:
    """A (o1), the reference B (o2), a third object C (o3), sometimes a fourth; A keeps room
    for the size the premise gives it."""
    shapes = distinct(rng, SHAPES, rng.randint(3, 4))
    ref = rng.uniform(*REFERENCE)
    sizes = [_sized(shapes[0], p.ratio, shapes[1], ref), ref]
    sizes += [_sized(shapes[2], p.third, shapes[1], ref) if p.third else rng.uniform(*REFERENCE)]
    sizes += [rng.uniform(*REFERENCE) for _ in shapes[3:]]
    if not all(9.0 <= s <= 60.0 for s in sizes):
        return None
    objects = [solid(f"o{i}", shape, rng.choice(COLORS), size)
               for i, (shape, size) in enumerate(zip(shapes, sizes, strict=True), start=1)]
    grow = {"swap-sizes": 1 / p.ratio, "match-size": p.third / p.ratio,
            "resize": p.factor ** 2, "resize-against": p.factor ** 2}.get(p.kind, 1.0)
    room = {"o1": objects[0].size * max(1.0, math.sqrt(grow)) * 1.05,
            "o2": objects[1].size * max(1.0, math.sqrt(p.ratio)) * 1.05}
    if p.kind == "resize-other":
        room["o3"] = objects[2].size * max(1.0, p.factor) * 1.05
    return place(rng, objects, room)


def _premise(p: Plan, a: SceneObject, b: SceneObject, c: SceneObject, tail: str) -> Premise:
    """The premise of the planned kind; ``tail`` ends its explanation (": {c}." ...)."""
    sa, sb, sc = Where(shape=a.shape), Where(shape=b.shape), Where(shape=c.shape)
    now = "larger" if p.larger else "smaller"
    then = "smaller" if p.larger else "larger"
    steps: tuple[Intervention, ...]
    if p.kind == "swap-sizes":
        return Premise(f"the {a.shape} and the {b.shape} swapped sizes", (SwapSizes(sa, sb),),
                       f"Swapping sizes, the {a.shape} would be {then} than the {b.shape}{tail}",
                       readings=((SwapSizes(sa, sb, "extent"),),), kind=p.kind)
    if p.kind == "match-size":
        rel = "larger" if p.third > 1 else "smaller"
        result = then if rel != now else now
        return Premise(f"the {a.shape} were as big as the {c.shape}", (MatchSize(sa, sc),),
                       f"The {c.shape} is {rel} than the {b.shape}, so as big as the {c.shape} "
                       f"the {a.shape} would be {result} than the {b.shape}{tail}",
                       about_subject=True, readings=((MatchSize(sa, sc, "extent"),),),
                       kind=p.kind)
    word = FACTORS[p.factor]
    target = c if p.kind == "resize-other" else a
    steps = (Resize(Where(shape=target.shape), p.factor),)
    reading = (Resize(Where(shape=target.shape), math.sqrt(p.factor)),)
    if p.kind == "resize-other":
        why = f"Resizing the {c.shape} changes neither the {a.shape} nor the {b.shape}{tail}"
    else:
        still = "still " if p.kind == "resize-against" else ""
        why = (f"{word[0].upper()}{word[1:]} as big, the {a.shape} would {still}be "
               f"{then if p.kind == 'resize' else now} than the {b.shape}{tail}")
    return Premise(f"the {target.shape} were {word} as big", steps, why,
                   about_subject=target is a, readings=(reading,), kind=p.kind)


def _checks(a: SceneObject, b: SceneObject) -> Callable[[Scene], list[str]]:
    sa, sb = Where(shape=a.shape), Where(shape=b.shape)

    def check(scene: Scene) -> list[str]:
        return size_problems(one(sa, scene), one(sb, scene))

    return check


def _setup(rng: random.Random, changed: bool, kinds: dict[str, float] | None = None
           ) -> tuple[Plan, list[SceneObject]] | None:
    p = plan(rng, changed, kinds)
    objects = _objects(rng, p)
    return None if objects is None else (p, objects)


def _params(p: Plan, word: str) -> dict[str, object]:
    return {"word": word, "kind": p.kind, "factor": round(p.factor, 4),
            "area_ratio": round(p.ratio, 3)}


def size_yes_no(rng: random.Random, changed: bool) -> Draw | None:
    """"Is the square larger than the circle?" — if they swapped sizes, if the square were as
    big as the hexagon, or three times as big."""
    setup = _setup(rng, changed)
    if setup is None:
        return None
    p, objects = setup
    a, b, c = objects[:3]
    word = rng.choice(WORDS)
    sa, sb = Where(shape=a.shape), Where(shape=b.shape)
    program: Program = YesNo(Larger(sb, sa) if word == "smaller" else Larger(sa, sb))
    yes_now = p.larger == (word != "smaller")
    return Draw("size-yes-no", scene_of(objects), f"Is the {a.shape} {word} than the {b.shape}?",
                program, f"The {a.shape} is {'larger' if p.larger else 'smaller'} than the "
                f"{b.shape}: {{b}}.", f"If {{premise}}, would {{subject}} be {word} than the "
                f"{b.shape}?", f"the {a.shape}", program, (_premise(p, a, b, c, ": {c}."),),
                "no" if yes_now else "yes", _params(p, word), _checks(a, b))


def size_which(rng: random.Random, changed: bool) -> Draw | None:
    """"Which is larger, the square or the circle?" — if they swapped sizes, or a third object
    were resized (a premise naming only one of the two options would single it out)."""
    setup = _setup(rng, changed, WHICH_KINDS[changed])
    if setup is None:
        return None
    p, objects = setup
    a, b, c = objects[:3]
    word = rng.choice(WORDS)
    program = LargerOne(Where(shape=a.shape), Where(shape=b.shape), smaller=word == "smaller")
    first, second = (a, b) if rng.random() < 0.5 else (b, a)
    pair = f"the {first.shape} or the {second.shape}"
    a_now = p.larger == (word != "smaller")
    premise = _premise(p, a, b, c, f", so the {word} one would be the {{c}}.")
    return Draw("size-which", scene_of(objects), f"Which is {word}, {pair}?", program,
                f"The {a.shape} is {'larger' if p.larger else 'smaller'} than the {b.shape}, "
                f"so the {word} one is the {{b}}.", f"If {{premise}}, which would be {word}, "
                f"{pair}?", "", program, (premise,), b.shape if a_now else a.shape,
                _params(p, word), _checks(a, b))
