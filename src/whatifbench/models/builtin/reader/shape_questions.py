"""Question parsing for solid-shape scenes (CFMM style): two-option questions about counts,
colours, sizes, shapes and directions, optionally under an ``If …,`` premise, → a program and
the premise's interventions (scene kind ``shapes``).

Objects are named as "the star", "the red object", "the red stars" or "the leftmost shape";
"it" in the main clause is the object the premise changes. Importing this module adds
``parse_shapes`` to ``questions.PARSERS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from whatifbench.models.builtin.reader.questions import PARSERS, ParseError, Query, color, number
from whatifbench.scenes.interventions import (
    Add,
    Intervention,
    Mirror,
    Recolor,
    Remove,
    Resize,
    Rotate,
    Stretch,
    SwapColors,
    SwapPositions,
)
from whatifbench.scenes.matching import MatchPointing, MatchProportions
from whatifbench.scenes.model import SceneObject
from whatifbench.scenes.programs import Attribute, Count, Larger, Program, WiderThanTall
from whatifbench.scenes.selectors import All, Ranked, Selector, Take, Where
from whatifbench.scenes.verbal import (
    LargerOne,
    MatchColor,
    MatchSize,
    Pointing,
    SeenShape,
    Side,
    SwapSizes,
    YesNo,
)

SHAPES = ("circle", "square", "rectangle", "triangle", "star", "hexagon", "cross", "diamond")
"""Shape words this parser knows."""
POSITIONS = {"leftmost": ("x", False), "rightmost": ("x", True), "highest": ("y", False),
             "lowest": ("y", True)}
FACTORS = {"twice": 2.0, "three times": 3.0, "four times": 4.0, "one and a half times": 1.5,
           "half": 0.5, "a third": 1 / 3, "a quarter": 0.25, "two thirds": 2 / 3}
"""Words of "… as big" and the factor of width and height they stand for."""
STRETCHES = {("squashed to half", "width"): (0.5, 1.0), ("squashed to half", "height"): (1.0, 0.5),
             ("stretched to twice", "width"): (2.0, 1.0),
             ("stretched to twice", "height"): (1.0, 2.0)}
AWAY = -1000.0
"""Where added objects are put (outside the canvas: only their number matters)."""


def shape(word: str) -> str:
    """``stars`` / ``star`` / ``crosses`` → the shape name."""
    word = word.lower()
    for name in SHAPES:
        if word in (name, name + "s", name + "es"):
            return name
    raise ParseError(f"not a known shape: {word!r}")


def ref(phrase: str, it: Selector | None = None) -> Selector:
    """The objects a phrase names: "the star(s)", "the red object", "the red stars", "the
    leftmost shape", or "it" (the premise's object)."""
    words = phrase.lower().split()
    if words == ["it"]:
        if it is None:
            raise ParseError("'it' refers to nothing")
        return it
    if len(words) < 2 or words[0] != "the":
        raise ParseError(f"unknown object: {phrase!r}")
    words = words[1:]
    if len(words) == 2 and words[1] == "shape" and words[0] in POSITIONS:
        key, descending = POSITIONS[words[0]]
        return Ranked(All(), key, descending)
    if len(words) == 2 and words[1] in ("object", "shape"):
        return Where(color=color(words[0]))
    if len(words) == 2:
        return Where(shape=shape(words[1]), color=color(words[0]))
    if len(words) == 1:
        return Where(shape=shape(words[0]))
    raise ParseError(f"unknown object: {phrase!r}")


def _count(word: str) -> int:
    return 1 if word.lower() in ("a", "an") else number(word)


def _added(k: int, name: str) -> tuple[Intervention, ...]:
    return tuple(Add(SceneObject(f"added-{i}", name, "black", AWAY - 100 * i, AWAY, 10.0))
                 for i in range(k))


Premise = Callable[[re.Match[str]], tuple[tuple[Intervention, ...], Selector | None]]
OBJ = r"(the (?:\w+ )?\w+)"


def _one(step: Intervention, subject: Selector | None = None
         ) -> tuple[tuple[Intervention, ...], Selector | None]:
    return (step,), subject


PREMISES: tuple[tuple[re.Pattern[str], Premise], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), build) for pattern, build in (
        (r"(\w+) more (\w+) were added", lambda m: (_added(_count(m[1]), shape(m[2])), None)),
        (r"(a|an|\w+) (\w+) were added", lambda m: (_added(_count(m[1]), shape(m[2])), None)),
        (r"(\w+) of the (\w+) were removed",
         lambda m: _one(Remove(Take(Where(shape=shape(m[2])), number(m[1]))))),
        (r"all the (\w+) shapes were removed", lambda m: _one(Remove(Where(color=color(m[1]))))),
        (r"the picture were mirrored left to right", lambda m: _one(Mirror("left-right"))),
        (r"the picture were flipped top to bottom", lambda m: _one(Mirror("top-bottom"))),
        (r"the picture were rotated by 180 degrees",
         lambda m: ((Mirror("left-right"), Mirror("top-bottom")), None)),
        (rf"{OBJ} were removed", lambda m: _one(Remove(ref(m[1])))),
        (rf"{OBJ} were painted the same colou?r as {OBJ}",
         lambda m: _one(MatchColor(ref(m[1]), ref(m[2])), ref(m[1]))),
        (rf"{OBJ} were painted (\w+)", lambda m: _one(Recolor(ref(m[1]), color(m[2])), ref(m[1]))),
        (rf"{OBJ} and {OBJ} swapped colou?rs", lambda m: _one(SwapColors(ref(m[1]), ref(m[2])))),
        (rf"{OBJ} and {OBJ} swapped places",
         lambda m: _one(SwapPositions(ref(m[1]), ref(m[2])))),
        (rf"{OBJ} and {OBJ} swapped sizes", lambda m: _one(SwapSizes(ref(m[1]), ref(m[2])))),
        (rf"{OBJ} were as wide and as tall as {OBJ}",
         lambda m: _one(MatchProportions(ref(m[1]), ref(m[2])), ref(m[1]))),
        (rf"{OBJ} were turned to point the same way as {OBJ}",
         lambda m: _one(MatchPointing(ref(m[1]), ref(m[2])), ref(m[1]))),
        (rf"{OBJ} were as big as {OBJ}", lambda m: _one(MatchSize(ref(m[1]), ref(m[2])),
                                                          ref(m[1]))),
        (rf"{OBJ} were ({'|'.join(FACTORS)}) as big",
         lambda m: _one(Resize(ref(m[1]), FACTORS[m[2].lower()]), ref(m[1]))),
        (rf"{OBJ} were (squashed to half|stretched to twice) its (width|height)",
         lambda m: _one(Stretch(ref(m[1]), *STRETCHES[(m[2].lower(), m[3].lower())]),
                        ref(m[1]))),
        (rf"{OBJ} were turned by 90 degrees", lambda m: _one(Rotate(ref(m[1]), 90.0), ref(m[1]))),
        (rf"{OBJ} were rotated by 180 degrees",
         lambda m: _one(Rotate(ref(m[1]), 180.0), ref(m[1]))),
    ))
"""What a premise changes, and the object "it" then refers to."""

Main = Callable[[re.Match[str], Selector | None], Program]
THING = r"(it|the (?:(?!be )\w+ )?(?!be\b)\w+)"
"""An object phrase of the main clause (never swallowing the "be" of "would … be")."""


COMPARE = (rf"(?:is|would) (?P<a>{THING[1:-1]}) (?:be )?(?P<w>larger|bigger|smaller) than "
           rf"(?P<b>{THING[1:-1]})")
"""Is / would the A be larger (bigger, smaller) than the B."""


def _larger(m: re.Match[str], it: Selector | None) -> Program:
    a, b = ref(m["a"], it), ref(m["b"], it)
    return YesNo(Larger(b, a) if m["w"].lower() == "smaller" else Larger(a, b))


MAIN: tuple[tuple[re.Pattern[str], Main], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), build) for pattern, build in (
        (r"how many (\w+) shapes (?:are there|would there be)",
         lambda m, it: Count(Where(color=color(m[1])))),
        (r"how many (\w+) (?:are there|would there be)",
         lambda m, it: Count(Where(shape=shape(m[1])))),
        (rf"what colou?r (?:is {THING}|would {THING} be)",
         lambda m, it: _attribute(ref(m[1] or m[2], it))),
        (rf"what shape (?:is {THING}|would {THING} be)",
         lambda m, it: SeenShape(ref(m[1] or m[2], it))),
        (COMPARE, _larger),
        (rf"which (?:is|would be) (larger|bigger|smaller), {THING} or {THING}",
         lambda m, it: LargerOne(ref(m[2], it), ref(m[3], it),
                                 smaller=m[1].lower() == "smaller")),
        (rf"(?:is|would) {THING} (?:be )?wider than (?:it is )?tall",
         lambda m, it: YesNo(WiderThanTall(ref(m[1], it)))),
        (rf"(?:does|would) {THING} point (?:up or down|left or right)",
         lambda m, it: Pointing(ref(m[1], it))),
        (rf"(?:is|would) {THING} (?:be )?(?:(left or right) of|above or below) {THING}",
         lambda m, it: Side(ref(m[1], it), ref(m[3], it), "x" if m[2] else "y")),
    ))
"""What is asked."""


def _attribute(target: Selector) -> Program:
    return Attribute(target, "color")


T = TypeVar("T")


def _match(table: tuple[tuple[re.Pattern[str], T], ...], text: str, what: str
           ) -> tuple[re.Match[str], T]:
    for pattern, build in table:
        m = pattern.fullmatch(text.strip())
        if m:
            return m, build
    raise ParseError(f"unknown {what}: {text!r}")


def parse_shapes(text: str) -> Query:
    """Parse a question about a solid-shape scene (basic or counterfactual)."""
    body = " ".join(text.split())
    if not body.endswith("?"):
        raise ParseError(f"not a question: {text!r}")
    body = body[:-1]
    interventions: tuple[Intervention, ...] = ()
    it: Selector | None = None
    if body.lower().startswith("if "):
        premise, sep, body = body[3:].partition(", ")
        if not sep:
            raise ParseError(f"no main clause after the premise: {text!r}")
        m, build = _match(PREMISES, premise, "premise")
        interventions, it = build(m)
    m, main = _match(MAIN, body, "question")
    return Query(main(m, it), interventions, (), scene_kind="shapes")


def _register() -> None:
    if parse_shapes not in PARSERS:
        PARSERS.append(parse_shapes)


_register()
