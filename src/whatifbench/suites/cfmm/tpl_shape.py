"""Shape: is a rectangle wider than tall, what shape an object is seen as (square or
rectangle, circle or oval), where a triangle points — and would be after squashing,
stretching, turning, mirroring.

The shortcut-free design draws these templates in ``cfmm.free`` (premises that copy another
object's proportions or pointing); this module keeps the paper design's draws.
"""

from __future__ import annotations

import random

from whatifbench.scenes.geometry import object_bbox
from whatifbench.scenes.interventions import (
    Intervention,
    Mirror,
    Resize,
    Rotate,
    Stretch,
    apply_all,
)
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.programs import WiderThanTall
from whatifbench.scenes.selectors import Selector, Where
from whatifbench.scenes.shapes import OUTLINES
from whatifbench.scenes.verbal import Pointing, SeenShape, YesNo, one
from whatifbench.suites.cfmm.draw import Draw, Premise
from whatifbench.suites.cfmm.layout import COLORS, SHAPES, distinct, place, scene_of, solid

CHANGES: tuple[tuple[str, str, float, float], ...] = (
    ("squashed to half its width", "stretch", 0.5, 1.0),
    ("squashed to half its height", "stretch", 1.0, 0.5),
    ("stretched to twice its width", "stretch", 2.0, 1.0),
    ("stretched to twice its height", "stretch", 1.0, 2.0),
    ("turned by 90 degrees", "rotate", 90.0, 0.0),
    ("rotated by 180 degrees", "rotate", 180.0, 0.0),
)
"""Changes of one object: wording, kind and parameters (stretch sx, sy / rotate degrees)."""
POINTS = {0.0: "up", 90.0: "left", 180.0: "down", 270.0: "right"}
"""Triangle angles and where the triangle points."""
SIDE = {"up": "top", "down": "bottom", "left": "left", "right": "right"}


def _half_extents(shape: str) -> tuple[float, float]:
    points = OUTLINES[shape]
    return max(abs(u) for u, _ in points), max(abs(v) for _, v in points)


def box(oid: str, shape: str, color: str, half_w: float, half_h: float) -> SceneObject:
    """A square, rectangle or circle stretched to the given half width and half height."""
    ux, uy = _half_extents(shape)
    size = max(half_w / ux, half_h / uy)
    return solid(oid, shape, color, size, sx=round(half_w / (ux * size), 4),
                 sy=round(half_h / (uy * size), 4))


def _change(sel: Selector, kind: str, p: float, q: float) -> Intervention:
    return Stretch(sel, p, q) if kind == "stretch" else Rotate(sel, p)


def _dims(scene: Scene, sel: Selector) -> str:
    x0, y0, x1, y1 = object_bbox(one(sel, scene))
    return f"{round(x1 - x0)} pixels wide and {round(y1 - y0)} pixels tall"


def _others(rng: random.Random, n: int, avoid_shapes: tuple[str, ...], avoid_color: str
            ) -> list[SceneObject]:
    shapes = distinct(rng, SHAPES, n, avoid_shapes)
    colors = distinct(rng, COLORS, n, (avoid_color,))
    return [solid(f"o{i}", s, c, rng.uniform(18.0, 30.0))
            for i, (s, c) in enumerate(zip(shapes, colors, strict=True), start=2)]


def _premise(scene: Scene, sel: Selector, name: str, text: str, kind: str, p: float,
             q: float) -> Premise:
    after = apply_all(scene, [_change(sel, kind, p, q)])
    return Premise(f"{name} were {text}", (_change(sel, kind, p, q),),
                   f"{text[0].upper()}{text[1:]}, it would be {_dims(after, sel)}, so the answer "
                   "is {c}.", about_subject=True, kind=kind)


def _premises(scene: Scene, sel: Selector, name: str) -> tuple[Premise, ...]:
    return tuple(_premise(scene, sel, name, *change) for change in CHANGES)


ASPECT_KINDS = {True: {"turn": 0.85, "flip": 0.15},
                False: {"rotate": 0.3, "against": 0.5, "resize": 0.2}}
"""Premise kinds of ``shape-aspect`` and their probabilities, by "the answer changes".

Squashing or stretching names a direction (towards wider or towards taller), and when it flips
the answer the answer follows it; at the default 80 % answer-changed share, flips ("flip") are
about as frequent as pushes the same way that are too weak to flip ("against"), so the wording
does not give the answer away. Turning by 90 or 180 degrees names no direction.
"""
FLIPPABLE = (1.25, 1.6)
"""Long / short side ratios that halving the long side (or doubling the short) flips."""
STUBBORN = (2.6, 3.2)
"""Ratios that stay the same way round when halved."""
TOWARDS_TALL = (CHANGES[0], CHANGES[3])
TOWARDS_WIDE = (CHANGES[1], CHANGES[2])


def shape_aspect(rng: random.Random, changed: bool) -> Draw | None:
    """"Is the rectangle wider than it is tall?" — if it were turned by 90 degrees, squashed
    to half its height ... (the paper design; ``cfmm.free`` has the shortcut-free one)."""
    kinds = ASPECT_KINDS[changed]
    kind = rng.choices(tuple(kinds), tuple(kinds.values()))[0]
    ranges = {"flip": FLIPPABLE, "against": STUBBORN}.get(kind) or rng.choice((FLIPPABLE,
                                                                               STUBBORN))
    aspect = rng.uniform(*ranges)
    wide = rng.random() < 0.5
    long = rng.uniform(26.0, 40.0)
    half_w, half_h = (long, long / aspect) if wide else (long / aspect, long)
    rect = box("o1", "rectangle", rng.choice(COLORS), half_w, half_h)
    objects = [rect, *_others(rng, rng.randint(2, 3), ("rectangle", "square"), rect.color)]
    placed = place(rng, objects, {"o1": 2.0 * rect.size})
    if placed is None:
        return None
    scene = scene_of(placed)
    sel = Where(shape="rectangle")
    name = "the rectangle"
    if kind in ("flip", "against"):
        premise = _premise(scene, sel, name, *rng.choice(TOWARDS_TALL if wide else TOWARDS_WIDE))
    elif kind == "resize":
        f, word = rng.choice(RESIZES)
        premise = Premise(f"{name} were {word} as big", (Resize(sel, f),),
                          "Its size does not change its proportions, so the answer is {c}.",
                          about_subject=True, kind=kind)
    else:
        premise = _premise(scene, sel, name, *CHANGES[4 if kind == "turn" else 5])
    premise = Premise(premise.text, premise.interventions, premise.explanation, True,
                      kind=kind)
    ask = YesNo(WiderThanTall(sel))
    return Draw("shape-aspect", scene, "Is the rectangle wider than it is tall?", ask,
                f"The rectangle is {_dims(scene, sel)}, so the answer is {{b}}.",
                "If {premise}, would {subject} be wider than tall?", name, ask, (premise,),
                "no" if wide else "yes", {"aspect": round(aspect, 3), "wide": wide,
                                          "kind": kind})


RESIZES = ((2.0, "twice"), (0.5, "half"))
"""Resizes of one object: factor and word ("twice as big")."""
FAMILIES = {"box": ("square", "rectangle"), "round": ("circle", "oval")}
"""Names a shape is seen as, by family (equal sides, unequal sides)."""


def shape_name(rng: random.Random, changed: bool) -> Draw | None:
    """"What shape is the red object?" (square/rectangle, circle/oval) — if it were stretched
    to twice its width (the paper design; ``cfmm.free`` has the shortcut-free one)."""
    family = rng.choice(tuple(FAMILIES))
    names = FAMILIES[family]
    equal = rng.random() < 0.5
    half = rng.uniform(16.0, 26.0)
    if equal:
        half_w = half_h = half
    else:
        wide = rng.random() < 0.5
        half_w, half_h = (2 * half, half) if wide else (half, 2 * half)
    color = rng.choice(COLORS)
    obj = box("o1", "square" if family == "box" else "circle", color, half_w, half_h)
    objects = [obj, *_others(rng, rng.randint(2, 3), (), color)]
    placed = place(rng, objects, {"o1": 2.2 * max(half_w, half_h)})
    if placed is None:
        return None
    scene = scene_of(placed)
    sel = Where(color=color)
    ask = SeenShape(sel)
    name = f"the {color} object"
    premises = _premises(scene, sel, name) + tuple(
        Premise(f"{name} were {word} as big", (Resize(sel, f),),
                "Its size does not change its shape, so the answer is {c}.", about_subject=True,
                kind="resize") for f, word in RESIZES)
    return Draw("shape-name", scene, f"What shape is {name}?", ask,
                f"It is {_dims(scene, sel)}, so the answer is {{b}}.",
                "If {premise}, what shape would {subject} be?", name, ask, premises,
                names[1] if equal else names[0], {"family": family, "equal_sides": equal})


def shape_pointing(rng: random.Random, changed: bool) -> Draw | None:
    """"Does the triangle point up or down?" — if the picture were flipped top to bottom."""
    angle = rng.choice(tuple(POINTS))
    way = POINTS[angle]
    vertical = way in ("up", "down")
    words = "up or down" if vertical else "left or right"
    tri = solid("o1", "triangle", rng.choice(COLORS), rng.uniform(22.0, 34.0), angle=angle)
    objects = [tri, *_others(rng, rng.randint(2, 3), ("triangle",), tri.color)]
    placed = place(rng, objects, {"o1": 2.0 * tri.size})
    if placed is None:
        return None
    sel = Where(shape="triangle")
    ask = Pointing(sel)
    flips = "Flipping the picture top to bottom"
    mirrors = "Mirroring the picture left to right"
    premises = (
        Premise("the triangle were rotated by 180 degrees", (Rotate(sel, 180.0),),
                "Rotating it by 180 degrees makes it point the other way: {c}.",
                about_subject=True, kind="rotate"),
        Premise("the picture were mirrored left to right", (Mirror("left-right"),),
                f"{mirrors} does not change up and down: it still points {{c}}." if vertical
                else f"{mirrors} makes it point the other way: {{c}}.", kind="mirror"),
        Premise("the picture were flipped top to bottom", (Mirror("top-bottom"),),
                f"{flips} makes it point the other way: {{c}}." if vertical
                else f"{flips} does not change left and right: it still points {{c}}.",
                kind="flip"),
        Premise("the picture were rotated by 180 degrees",
                (Mirror("left-right"), Mirror("top-bottom")),
                "Rotating the picture by 180 degrees makes it point the other way: {c}.",
                kind="rotate-picture"),
        *(Premise(f"the triangle were {word} as big", (Resize(sel, f),),
                  "Its size does not change where it points: {c}.", about_subject=True,
                  kind="resize") for f, word in ((2.0, "twice"), (0.5, "half"))),
    )
    opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}[way]
    return Draw("shape-pointing", scene_of(placed), f"Does the triangle point {words}?", ask,
                f"Its tip is on the {SIDE[way]} side, so it points {{b}}.",
                f"If {{premise}}, would {{subject}} point {words}?", "the triangle", ask,
                premises, opposite, {"angle": angle})
