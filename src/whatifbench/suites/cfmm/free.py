"""The shortcut-free design's colour, shape and direction templates: premises that leave the
answer open until the picture is read.

In the paper design a premise's words say whether the answer changes ("the square and the
circle swapped colours" when asked about the square; "the circle and the star swapped colours"
leaves it): a reader who sees the basic answer and reads that would answer the
counterfactual without imagining anything, and one who simply answers "the other option"
wins as often as the answers change. Here every premise names another object whose colour,
proportions, pointing or place decide the counterfactual answer, and that object is drawn
after the dealt answers: the counterfactual answer equals the basic one in exactly half of a
template's pairs (``generate.plan``), whatever the words, so that believing what you see and
flipping it both score chance, and a reader of both texts guesses a pair right a quarter of
the time.

- colour (swap, match, extreme): the asked object is painted the basic answer, the object the
  premise brings in (the one it swaps colours with, the one whose colour it copies, the shape
  that takes the extreme place) the counterfactual answer: the same colour when the answer
  stays;
- shape-aspect, shape-name: "if the red rectangle (object) were as wide and as tall as the
  blue one" (``scenes.matching.MatchProportions``); shape-name's rectangles and ovals keep the
  area of a square or circle of the same draw, so that ink says nothing about the name;
- shape-pointing: "if the red triangle were turned to point the same way as the blue one"
  (``MatchPointing``);
- direction-swap: the asked object or the reference swaps places with a third object, never
  with each other (that would always change the answer); scenes are redrawn until the
  programs give the dealt answers.

``direction-picture`` has no such premise (mirroring or turning the whole picture changes the
answer exactly when the words of its axis match the question's): the shortcut-free design
leaves it out.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from whatifbench.scenes.interventions import Mirror, SwapColors, SwapPositions
from whatifbench.scenes.matching import MatchPointing, MatchProportions
from whatifbench.scenes.model import SceneObject
from whatifbench.scenes.programs import Attribute, WiderThanTall
from whatifbench.scenes.selectors import All, Ranked, Where
from whatifbench.scenes.verbal import SIDE_WORDS, MatchColor, Pointing, SeenShape, Side, YesNo
from whatifbench.suites.cfmm.draw import Draw, Premise, two_way
from whatifbench.suites.cfmm.layout import COLORS, SHAPES, distinct, place, scene_of, solid
from whatifbench.suites.cfmm.tpl_color import EXTREMES, MIRROR_TEXT, RADIUS
from whatifbench.suites.cfmm.tpl_shape import FAMILIES, POINTS, SIDE, _dims, box

COLOR_KINDS = {"color-swap": ("swap-colors",), "color-match": ("match",),
               "color-extreme": ("mirror", "rotate-picture", "swap-places")}
"""Premise kinds of the colour templates."""
ASPECTS = (1.3, 2.6)
"""Long / short side ratios of the rectangles of shape-aspect."""
WAYS = {"vertical": ("up", "down"), "horizontal": ("left", "right")}
"""The two answers of shape-pointing, by the axis its question names."""
ANGLES = {way: angle for angle, way in POINTS.items()}
SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True)
class FreePlan:
    """What a shortcut-free colour, shape or direction pair is built to ask."""

    template: str
    """The template."""
    kind: str
    """Premise kind (colour templates; ``swap`` for direction-swap), else ``""``."""
    words: tuple[str, str]
    """The two options (colours: the dealt right colour and the other one; else the template's
    two words in their own order)."""
    answer: int
    """Index in ``words`` of the right basic answer."""
    changed: bool
    """The counterfactual answer is the other word."""

    @property
    def answers(self) -> tuple[str, str]:
        """(basic, counterfactual) answers."""
        b = self.words[self.answer]
        return b, (self.words[1 - self.answer] if self.changed else b)

    def offered(self) -> tuple[tuple[str, str], tuple[str, str]] | None:
        """(answer, other option) of both questions."""
        b = self.answer
        return two_way(True, self.changed, (self.words[b], self.words[1 - b]))


def draw_free_plan(template: str, changed: bool, rng: random.Random, answer: int,
                   colors: tuple[str, str]) -> FreePlan:
    """The plan of a pair (``colors``: the dealt (right, other) colours of colour templates;
    ``answer``: the dealt index of the right basic option elsewhere)."""
    if template in COLOR_KINDS:
        if not all(colors):  # none dealt (a pair drawn on its own): two at random
            first, second = distinct(rng, COLORS, 2)
            colors = (first, second)
        return FreePlan(template, rng.choice(COLOR_KINDS[template]), colors, 0, changed)
    if template == "shape-pointing":
        words = WAYS[rng.choice(tuple(WAYS))]
    elif template == "direction-swap":
        words = SIDE_WORDS[rng.choice(("x", "y"))]
    else:
        words = ("yes", "no") if template == "shape-aspect" else ("", "")
    return FreePlan(template, "", words, answer, changed)


def _the(obj: SceneObject) -> str:
    return f"the {obj.shape}"


def _colored(rng: random.Random, n: int, first: str, second: str) -> list[SceneObject] | None:
    """``n`` objects of different shapes; the first painted ``first``, the second ``second``,
    the others in other colours (every one keeps room for the largest, for swaps)."""
    shapes = distinct(rng, SHAPES, n)
    rest = distinct(rng, COLORS, n - 2, (first, second))
    objects = [solid(f"o{i}", shape, color, rng.uniform(*RADIUS)) for i, (shape, color)
               in enumerate(zip(shapes, (first, second, *rest), strict=True), start=1)]
    room = max(o.size for o in objects)
    return place(rng, objects, {o.id: room for o in objects})


def color_free(rng: random.Random, changed: bool, fixed: FreePlan) -> Draw | None:
    """color-swap, color-match: the asked object painted the basic answer, the object of the
    premise the counterfactual answer."""
    b, c = fixed.answers
    objects = _colored(rng, rng.randint(3, 5), b, c)
    if objects is None:
        return None
    a, x = objects[:2]
    ask = Attribute(Where(shape=a.shape), "color")
    if fixed.template == "color-swap":
        premise = Premise(f"{_the(a)} and {_the(x)} swapped colors",
                          (SwapColors(Where(shape=a.shape), Where(shape=x.shape)),),
                          f"The {a.shape} is {{b}} and the {x.shape} is {{c}}; after swapping "
                          f"colors the {a.shape} is {{c}}.", kind=fixed.kind)
    else:
        premise = Premise(f"{_the(a)} were painted the same color as {_the(x)}",
                          (MatchColor(Where(shape=a.shape), Where(shape=x.shape)),),
                          f"The {x.shape} is {{c}}, so the {a.shape} would be {{c}}.",
                          kind=fixed.kind)
    return Draw(fixed.template, scene_of(objects), f"What color is {_the(a)}?", ask,
                f"The {a.shape} is {{b}}.", "If {premise}, what color would the "
                f"{a.shape} be?", _the(a), ask, (premise,), "",
                {"shape": a.shape, "kind": fixed.kind}, offered=fixed.offered())


def color_extreme_free(rng: random.Random, changed: bool, fixed: FreePlan) -> Draw | None:
    """color-extreme: the extreme shape painted the basic answer, the shape the premise brings
    to its place the counterfactual answer."""
    b, c = fixed.answers
    objects = _colored(rng, rng.randint(3, 5), b, c)
    if objects is None:
        return None
    where = rng.choice(tuple(EXTREMES))
    key, descending = EXTREMES[where]
    ranked = sorted(objects, key=lambda o: getattr(o, key), reverse=descending)
    first = ranked[0]
    comes = ranked[-1] if fixed.kind != "swap-places" else rng.choice(ranked[1:])
    paint = {first.id: b, comes.id: c}
    rest = iter(distinct(rng, COLORS, len(objects) - 2, (b, c)))
    objects = [o.replace(color=paint[o.id] if o.id in paint else next(rest)) for o in objects]
    axis = "left-right" if key == "x" else "top-bottom"
    if fixed.kind == "mirror":
        premise = Premise(MIRROR_TEXT[axis], (Mirror(axis),),
                          f"Mirroring brings the {comes.shape} to the {where} place, so it "
                          "would be {c}.", kind="mirror")
    elif fixed.kind == "rotate-picture":
        premise = Premise("the picture were rotated by 180 degrees",
                          (Mirror("left-right"), Mirror("top-bottom")),
                          f"Rotating the picture brings the {comes.shape} to the {where} place, "
                          "so it would be {c}.", kind="rotate-picture")
    else:
        premise = Premise(f"{_the(first)} and {_the(comes)} swapped places",
                          (SwapPositions(Where(shape=first.shape), Where(shape=comes.shape)),),
                          f"The {comes.shape} would take the place of the {first.shape}, the "
                          f"{where} shape, so the answer would be {{c}}.", kind="swap-places")
    ask = Attribute(Ranked(All(), key, descending), "color")
    return Draw("color-extreme", scene_of(objects), f"What color is the {where} shape?", ask,
                f"The {where} shape is the {first.shape}, which is {{b}}.",
                f"If {{premise}}, what color would the {where} shape be?", "", ask, (premise,),
                "", {"position": where, "kind": fixed.kind}, offered=fixed.offered())


def _others(rng: random.Random, n: int, shapes: tuple[str, ...], colors: tuple[str, ...]
            ) -> list[SceneObject]:
    picked = distinct(rng, SHAPES, n, shapes)
    paints = distinct(rng, COLORS, n, colors)
    return [solid(f"x{i}", s, c, rng.uniform(18.0, 30.0))
            for i, (s, c) in enumerate(zip(picked, paints, strict=True), start=1)]


def aspect_free(rng: random.Random, changed: bool, fixed: FreePlan) -> Draw | None:
    """"Is the red rectangle wider than it is tall?" — if it were as wide and as tall as the
    blue rectangle."""
    wide, wide_after = (w == "yes" for w in fixed.answers)
    color, other = distinct(rng, COLORS, 2)
    rects = []
    for oid, paint, is_wide in (("o1", color, wide), ("o2", other, wide_after)):
        long = rng.uniform(26.0, 40.0)
        aspect = rng.uniform(*ASPECTS)
        half_w, half_h = (long, long / aspect) if is_wide else (long / aspect, long)
        rects.append(box(oid, "rectangle", paint, half_w, half_h))
    room = 1.5 * max(r.size for r in rects)
    objects = [*rects, *_others(rng, rng.randint(1, 2), ("rectangle", "square"), (color, other))]
    placed = place(rng, objects, {"o1": room, "o2": room})
    if placed is None:
        return None
    scene = scene_of(placed)
    name, source = f"the {color} rectangle", f"the {other} rectangle"
    sel = Where(shape="rectangle", color=color)
    match = MatchProportions(sel, Where(shape="rectangle", color=other))
    premise = Premise(f"{name} were as wide and as tall as {source}", (match,),
                      f"As wide and as tall as {source}, it would be "
                      f"{_dims(match.apply(scene), sel)}, so the answer is {{c}}.",
                      about_subject=True, kind="match-proportions")
    ask = YesNo(WiderThanTall(sel))
    return Draw("shape-aspect", scene, f"Is {name} wider than it is tall?", ask,
                f"The rectangle is {_dims(scene, sel)}, so the answer is {{b}}.",
                "If {premise}, would {subject} be wider than tall?", name, ask, (premise,), "",
                {"wide": wide, "kind": "match-proportions"}, offered=fixed.offered())


def name_free(rng: random.Random, changed: bool, fixed: FreePlan) -> Draw | None:
    """"What shape is the red object?" — if it were as wide and as tall as the blue object
    (which has equal sides exactly when the answer would be a square or a circle)."""
    family = rng.choice(tuple(FAMILIES))
    names = FAMILIES[family]
    equal = fixed.answer == 0
    equal_after = equal != fixed.changed
    color, other = distinct(rng, COLORS, 2)
    parts, reach = [], 0.0
    for oid, paint, same in (("o1", color, equal), ("o2", other, equal_after)):
        half = rng.uniform(16.0, 26.0)
        wide = rng.random() < 0.5
        # sides 2:1 around the same area (and box) as the square's, so that ink, area and size
        # say nothing about the name (the paper design doubles one side)
        long, short = half * SQRT2, half / SQRT2
        half_w, half_h = (half, half) if same else ((long, short) if wide else (short, long))
        kind = rng.choice(("square", "circle")) if oid == "o2" else \
            ("square" if family == "box" else "circle")
        parts.append(box(oid, kind, paint, half_w, half_h))
        reach = max(reach, box(oid, kind, paint, long, short).size)
    # room for the longer sides whatever the answers, so that which draws fit (and are kept)
    # does not depend on them: a room by the drawn sides kept smaller rectangles than squares
    room = 2.2 * reach
    objects = [*parts, *_others(rng, rng.randint(1, 2), (), (color, other))]
    placed = place(rng, objects, {"o1": room, "o2": room})
    if placed is None:
        return None
    scene = scene_of(placed)
    name, source = f"the {color} object", f"the {other} object"
    sel = Where(color=color)
    match = MatchProportions(sel, Where(color=other))
    premise = Premise(f"{name} were as wide and as tall as {source}", (match,),
                      f"As wide and as tall as {source}, it would be "
                      f"{_dims(match.apply(scene), sel)}, so the answer is {{c}}.",
                      about_subject=True, kind="match-proportions")
    ask = SeenShape(sel)
    words = (names[0], names[1])
    offered = two_way(True, fixed.changed, (words[0], words[1]) if equal else (words[1],
                                                                                words[0]))
    return Draw("shape-name", scene, f"What shape is {name}?", ask,
                f"It is {_dims(scene, sel)}, so the answer is {{b}}.",
                "If {premise}, what shape would {subject} be?", name, ask, (premise,), "",
                {"family": family, "equal_sides": equal, "kind": "match-proportions"},
                offered=offered)


def pointing_free(rng: random.Random, changed: bool, fixed: FreePlan) -> Draw | None:
    """"Does the red triangle point up or down?" — if it were turned to point the same way as
    the blue triangle."""
    b, c = fixed.answers
    color, other = distinct(rng, COLORS, 2)
    tris = [solid("o1", "triangle", color, rng.uniform(22.0, 34.0), angle=ANGLES[b]),
            solid("o2", "triangle", other, rng.uniform(22.0, 34.0), angle=ANGLES[c])]
    objects = [*tris, *_others(rng, rng.randint(1, 2), ("triangle",), (color, other))]
    placed = place(rng, objects, {"o1": 2.0 * tris[0].size, "o2": 2.0 * tris[1].size})
    if placed is None:
        return None
    words = " or ".join(fixed.words)
    name = f"the {color} triangle"
    sel = Where(shape="triangle", color=color)
    premise = Premise(f"{name} were turned to point the same way as the {other} triangle",
                      (MatchPointing(sel, Where(shape="triangle", color=other)),),
                      f"The {other} triangle points {{c}}, so turned like it the {color} "
                      "triangle would point {c}.", about_subject=True, kind="match-pointing")
    ask = Pointing(sel)
    return Draw("shape-pointing", scene_of(placed), f"Does {name} point {words}?", ask,
                f"Its tip is on the {SIDE[b]} side, so it points {{b}}.",
                f"If {{premise}}, would {{subject}} point {words}?", name, ask, (premise,), "",
                {"angle": ANGLES[b], "kind": "match-pointing"}, offered=fixed.offered())


def side_free(rng: random.Random, changed: bool, fixed: FreePlan) -> Draw | None:
    """direction-swap: "Is the star left or right of the square?" — if the star (or the
    square) and a third object swapped places."""
    shapes = distinct(rng, SHAPES, rng.randint(3, 5))
    objects = [solid(f"o{i}", s, rng.choice(COLORS), rng.uniform(18.0, 30.0))
               for i, s in enumerate(shapes, start=1)]
    room = max(o.size for o in objects)
    placed = place(rng, objects, {o.id: room for o in objects})
    if placed is None:
        return None
    a, ref, third = placed[:3]
    axis = "x" if fixed.words == SIDE_WORDS["x"] else "y"
    first, second = fixed.words
    tail = f"{first} or {second} of the {ref.shape}" if axis == "x" else \
        f"{first} or {second} the {ref.shape}"
    relation = "{} of" if axis == "x" else "{}"
    mover = a if rng.random() < 0.5 else ref
    premise = Premise(f"the {mover.shape} and the {third.shape} swapped places",
                      (SwapPositions(Where(shape=mover.shape), Where(shape=third.shape)),),
                      f"After the {mover.shape} and the {third.shape} swap places, the "
                      f"{a.shape} would be {relation.format('{c}')} the {ref.shape}.",
                      kind="swap-places")
    program = Side(Where(shape=a.shape), Where(shape=ref.shape), axis)
    return Draw("direction-swap", scene_of(placed), f"Is the {a.shape} {tail}?", program,
                f"In the picture the {a.shape} is {relation.format('{b}')} the {ref.shape}.",
                f"If {{premise}}, would the {a.shape} be {tail}?", "", program, (premise,), "",
                {"axis": axis, "kind": "swap-places"}, offered=fixed.offered())


FREE_TEMPLATES = {"color-swap": color_free, "color-match": color_free,
                  "color-extreme": color_extreme_free, "shape-aspect": aspect_free,
                  "shape-name": name_free, "shape-pointing": pointing_free,
                  "direction-swap": side_free}
"""The shortcut-free draws of these templates (``draw_free_plan`` gives their plans)."""
