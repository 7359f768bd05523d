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

The shortcut-free design (``draw_plan``) fixes first what the text shows (the shapes named,
the word, the premise) and which object is larger (dealt), then redraws only sizes and
places until every check passes: no shape is then more often the larger one because the
checks reject it more often in some role. Its one premise, "if the square were as big as the
star", changes the answer or not as the star's size (drawn after the dealt answers) decides,
so that the words never tell whether the answer changes (``SF_KINDS``).
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
from whatifbench.suites.cfmm.draw import Draw, Premise, two_way
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


def _clear(rng: random.Random, larger: bool, high: float = 3.0) -> float:
    r = _log_uniform(rng, MARGIN, high)
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


def _objects(rng: random.Random, p: Plan, named: tuple[str, ...] = ()
             ) -> list[SceneObject] | None:
    """A (o1), the reference B (o2), a third object C (o3), sometimes a fourth; A keeps room
    for the size the premise gives it. ``named``: the shapes of A, B, C (shortcut-free)."""
    count = rng.randint(3, 4)
    shapes = (distinct(rng, SHAPES, count) if not named
              else [*named, *distinct(rng, SHAPES, count - 3, named)])
    ref = rng.uniform(*REFERENCE)
    sizes = [_sized(shapes[0], p.ratio, shapes[1], ref), ref]
    sizes += [_sized(shapes[2], p.third, shapes[1], ref) if p.third else rng.uniform(*REFERENCE)]
    sizes += [rng.uniform(*REFERENCE) for _ in shapes[3:]]
    if not all(9.0 <= s <= 60.0 for s in sizes):
        return None
    objects = [solid(f"o{i}", shape, rng.choice(COLORS), size)
               for i, (shape, size) in enumerate(zip(shapes, sizes, strict=True), start=1)]
    grow = {"swap-sizes": 1 / p.ratio, "match-size": p.third / p.ratio,
            "resize": p.factor ** 2, "resize-against": p.factor ** 2,
            "resize-kept": p.factor ** 2}.get(p.kind, 1.0)
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
        still = "still " if p.kind in ("resize-against", "resize-kept") else ""
        why = (f"{word[0].upper()}{word[1:]} as big, the {a.shape} would {still}be "
               f"{then if p.kind == 'resize' else now} than the {b.shape}{tail}")
    return Premise(f"the {target.shape} were {word} as big", steps, why,
                   about_subject=target is a, readings=(reading,), kind=p.kind)


def _checks(a: SceneObject, b: SceneObject) -> Callable[[Scene], list[str]]:
    sa, sb = Where(shape=a.shape), Where(shape=b.shape)

    def check(scene: Scene) -> list[str]:
        return size_problems(one(sa, scene), one(sb, scene))

    return check


def _setup(rng: random.Random, changed: bool, kinds: dict[str, float] | None = None,
           fixed: SizePlan | None = None) -> tuple[Plan, list[SceneObject]] | None:
    p = plan(rng, changed, kinds) if fixed is None else fixed.sizes(rng)
    objects = _objects(rng, p, () if fixed is None else fixed.shapes)
    return None if objects is None else (p, objects)


def _params(p: Plan, word: str) -> dict[str, object]:
    return {"word": word, "kind": p.kind, "factor": round(p.factor, 4),
            "area_ratio": round(p.ratio, 3)}


def size_yes_no(rng: random.Random, changed: bool, fixed: SizePlan | None = None
                ) -> Draw | None:
    """"Is the square larger than the circle?" — if they swapped sizes, if the square were as
    big as the hexagon, or three times as big (``fixed``: the shortcut-free plan)."""
    setup = _setup(rng, changed, fixed=fixed)
    if setup is None:
        return None
    p, objects = setup
    a, b, c = objects[:3]
    word = rng.choice(WORDS) if fixed is None else fixed.word
    sa, sb = Where(shape=a.shape), Where(shape=b.shape)
    program: Program = YesNo(Larger(sb, sa) if word == "smaller" else Larger(sa, sb))
    yes_now = p.larger == (word != "smaller")
    return Draw("size-yes-no", scene_of(objects), f"Is the {a.shape} {word} than the {b.shape}?",
                program, f"The {a.shape} is {'larger' if p.larger else 'smaller'} than the "
                f"{b.shape}: {{b}}.", f"If {{premise}}, would {{subject}} be {word} than the "
                f"{b.shape}?", f"the {a.shape}", program, (_premise(p, a, b, c, ": {c}."),),
                "no" if yes_now else "yes", _params(p, word), _checks(a, b),
                offered=two_way(fixed is not None, changed,
                                ("yes", "no") if yes_now else ("no", "yes")))


def size_which(rng: random.Random, changed: bool, fixed: SizePlan | None = None
               ) -> Draw | None:
    """"Which is larger, the square or the circle?" — if they swapped sizes, or a third object
    were resized (a premise naming only one of the two options would single it out;
    ``fixed``: the shortcut-free plan)."""
    setup = _setup(rng, changed, WHICH_KINDS[changed], fixed)
    if setup is None:
        return None
    p, objects = setup
    a, b, c = objects[:3]
    word = rng.choice(WORDS) if fixed is None else fixed.word
    program = LargerOne(Where(shape=a.shape), Where(shape=b.shape), smaller=word == "smaller")
    a_first = rng.random() < 0.5 if fixed is None else fixed.a_first
    first, second = (a, b) if a_first else (b, a)
    pair = f"the {first.shape} or the {second.shape}"
    a_now = p.larger == (word != "smaller")
    premise = _premise(p, a, b, c, f", so the {word} one would be the {{c}}.")
    return Draw("size-which", scene_of(objects), f"Which is {word}, {pair}?", program,
                f"The {a.shape} is {'larger' if p.larger else 'smaller'} than the {b.shape}, "
                f"so the {word} one is the {{b}}.", f"If {{premise}}, which would be {word}, "
                f"{pair}?", "", program, (premise,), b.shape if a_now else a.shape,
                _params(p, word), _checks(a, b),
                offered=two_way(fixed is not None, changed,
                                (a.shape, b.shape) if a_now else (b.shape, a.shape)))



SF_KINDS = {(template, changed): {"match-size": 1.0} for template in ("size-yes-no",
                                                                      "size-which")
            for changed in (True, False)}
"""Premise kinds of the shortcut-free design, by (template, answer changes): "if the square
were as big as the star" only, whether the answer changes or not (the star's size decides),
so that the words never tell (a swap of sizes always changes the answer, a resize of another
object never does, a resize of the asked object only one way)."""
SF_RATIO = 5.0
"""Largest area ratio of the shortcut-free design (some shapes need a clear lead for both
readings of "swapped sizes" to agree; with the paper's 3.0 those pairs would be drawn again,
which would make the other shapes more often the larger one)."""
KEPT_FACTORS = (2 / 3, 1.5)
"""``resize-kept`` factors: small enough that the larger object can be large enough not to
flip whichever way the resize goes ("half as big" would ask for areas five times apart)."""
UNEVEN = ({"circle", "diamond"}, {"square", "diamond"}, {"square", "triangle"})
"""Shape pairs the shortcut-free design does not compare: the first (second) could be the
larger one in both readings of "swapped sizes" (area, extent) only with areas more than five
times apart, so it would almost never be the larger one."""


@dataclass(frozen=True)
class SizePlan:
    """What a shortcut-free size pair is built to ask (sizes are drawn per attempt)."""

    larger: bool
    """The right answer: A is larger than B (from the dealt answer)."""
    kind: str
    """Premise kind (``SF_KINDS``)."""
    factor: float
    """Resize factor (``resize-kept``, ``resize-other``), else 1."""
    shapes: tuple[str, str, str]
    """A, B and the third object C."""
    word: str
    """``larger``, ``bigger`` or ``smaller``."""
    a_first: bool
    """size-which: A is named first."""
    changed: bool
    """The premise changes the answer."""

    def sizes(self, rng: random.Random) -> Plan:
        """Area ratios for one attempt, giving the planned answers."""
        ratio, third = _clear(rng, self.larger, SF_RATIO), 0.0
        if self.kind == "match-size":  # C on the other side of B (changed) or the same side
            third = _clear(rng, self.larger != self.changed, SF_RATIO)
        elif self.kind == "resize-kept" and (self.factor < 1) == self.larger:
            edge = (MARGIN / self.factor ** 2 if self.larger
                    else 1 / (MARGIN * self.factor ** 2))  # too little to flip
            ratio = edge * _log_uniform(rng, 1.0, 1.5) ** (1 if self.larger else -1)
        return Plan(self.larger, self.kind, self.factor, ratio, third)


def draw_plan(template: str, changed: bool, rng: random.Random, answer: int | None = None
              ) -> SizePlan:
    """The shortcut-free plan of a size pair; ``answer`` (dealt, else a coin) picks the right
    basic option: 0 = yes (size-yes-no), the object named first (size-which)."""
    kind = _pick(rng, SF_KINDS[template, changed])
    factor = (rng.choice(KEPT_FACTORS) if kind == "resize-kept"
              else rng.choice(tuple(FACTORS)) if kind == "resize-other" else 1.0)
    while True:
        a, b, c = distinct(rng, SHAPES, 3)
        if {a, b} not in UNEVEN:
            break
    word, a_first = rng.choice(WORDS), rng.random() < 0.5
    first = (rng.random() < 0.5) if answer is None else answer == 0
    # yes (or: A named first is right) <=> A is the `word` one <=> larger == (word != smaller)
    a_right = first if template == "size-yes-no" else first == a_first
    larger = a_right == (word != "smaller")
    return SizePlan(larger, kind, factor, (a, b, c), word, a_first, changed)
