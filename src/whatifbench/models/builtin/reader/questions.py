"""Question parsing: release-style counting questions → a program and the premise's
interventions, built from the scene engine's records.

A question is a main clause (what to count) and, for counterfactual questions, an ``if``
clause (what changes). Each clause is matched by a small table of patterns; ``PARSERS`` lists
the question families this reader understands (append to extend it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from whatifbench.scenes.filters import NUMBER_WORDS
from whatifbench.scenes.interventions import Intervention, Recolor, Remove
from whatifbench.scenes.palette import COLORS
from whatifbench.scenes.programs import Count, MaxContents, Program
from whatifbench.scenes.selectors import MostContents, Ranked, Selector, Take, Union, Where

OPTIONS = re.compile(r"\s*Select the correct answer:\s*A:\s*(\S+)\s+B:\s*(\S+)\s+C:\s*(\S+)"
                     r"\s+D:\s*(\S+)\s*$", re.IGNORECASE)

CIRCLES = Where(shape="circle")
DOTS = Where(shape="dot")
SIDES = {"top": ("y", False), "bottom": ("y", True), "leftmost": ("x", False),
         "rightmost": ("x", True)}


class ParseError(ValueError):
    """The question is not in a form this reader understands."""


@dataclass(frozen=True)
class Query:
    """A parsed question."""

    program: Program
    """What to compute."""
    interventions: tuple[Intervention, ...]
    """What the premise changes (empty for factual questions)."""
    options: tuple[str, ...]
    """The option values in letter order (empty when the question lists none)."""
    scene_kind: str = "counting"
    """Which perception reads the image (``scene_reader.PERCEIVERS``): ``counting`` (flowers,
    polygons, dots, circles) or ``shapes`` (solid shapes)."""


def number(word: str) -> int:
    """``3`` or ``three`` → 3."""
    word = word.lower()
    if word.isdigit():
        return int(word)
    if word in NUMBER_WORDS:
        return NUMBER_WORDS.index(word)
    raise ParseError(f"not a number: {word!r}")


def color(word: str) -> str:
    """A palette colour name."""
    if word.lower() not in COLORS:
        raise ParseError(f"not a known colour: {word!r}")
    return word.lower()


def _polygons(word: str) -> Where:
    return Where(shape="polygon", color=color(word))


def _ranked(count: str, side: str) -> Ranked:
    key, descending = SIDES[side.lower()]
    return Ranked(CIRCLES, key, descending=descending, k=number(count))


def _with_dots(containers: Selector) -> Union:
    return Union((containers, Where(shape="dot", within=containers)))


Main = Callable[[re.Match[str]], Program]
Premise = Callable[[re.Match[str]], Intervention]


def _flowers(m: re.Match[str]) -> Program:
    where = _polygons(m[2])
    if m[1].lower() == "inside":
        return Count(Where(shape="flower", within=where))
    return Count(Where(shape="flower", outside=where))


MAIN: tuple[tuple[re.Pattern[str], Main], ...] = (
    (re.compile(r"how many flowers (?:are|would be) (inside|outside) (?:the )?(\w+) polygons?",
                re.IGNORECASE), _flowers),
    (re.compile(r"how many dots (?:are there|would there be) in all (?:of )?the circles"
                r"(?: together)?", re.IGNORECASE),
     lambda m: Count(Where(shape="dot", within=CIRCLES))),
    (re.compile(r"how many dots (?:are there|would there be) in the "
                r"(top|bottom|leftmost|rightmost) (\w+) circles(?: together)?", re.IGNORECASE),
     lambda m: Count(Where(shape="dot", within=_ranked(m[2], m[1])))),
    (re.compile(r"how many dots (?:do|does|would) (?:a|one) circle contain at most",
                re.IGNORECASE),
     lambda m: MaxContents(CIRCLES, DOTS)),
)
"""What is counted."""

PREMISES: tuple[tuple[re.Pattern[str], Premise], ...] = (
    (re.compile(r"all (?:the )?polygons were (\w+)", re.IGNORECASE),
     lambda m: Recolor(Where(shape="polygon"), color(m[1]))),
    (re.compile(r"we removed (\w+) flowers in (?:the )?(\w+) polygons", re.IGNORECASE),
     lambda m: Remove(Take(Where(shape="flower", within=_polygons(m[2])), number(m[1])))),
    (re.compile(r"all (?:the )?flowers in (?:the )?(\w+) polygons were removed", re.IGNORECASE),
     lambda m: Remove(Where(shape="flower", within=_polygons(m[1])))),
    (re.compile(r"(\w+) dots were removed from (?:all )?the circles", re.IGNORECASE),
     lambda m: Remove(Take(Where(shape="dot", within=CIRCLES), number(m[1])))),
    (re.compile(r"the (\w+) (top|bottom|leftmost|rightmost) circles and (?:the )?dots in them "
                r"were removed(?: from the circles)?", re.IGNORECASE),
     lambda m: Remove(_with_dots(_ranked(m[1], m[2])))),
    (re.compile(r"one of the circles with (?:the )?most dots (?:was|were) removed",
                re.IGNORECASE),
     lambda m: Remove(_with_dots(MostContents(CIRCLES, DOTS, k=1)))),
)
"""What a premise changes."""


def parse_counting(text: str) -> Query:
    """Parse a C-VQA-Synthetic style question (original or counterfactual)."""
    text = " ".join(text.split())
    found = OPTIONS.search(text)
    options = tuple(found.groups()) if found else ()
    body = text[: found.start()] if found else text
    body = body.strip().rstrip("?").strip()
    main_text, _, premise_text = body.partition(" if ")
    program = _match(MAIN, main_text, "question")
    interventions = (_match(PREMISES, premise_text, "premise"),) if premise_text else ()
    return Query(program, interventions, options)


T = TypeVar("T")


def _match(table: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], T]], ...], text: str,
           what: str) -> T:
    for pattern, build in table:
        m = pattern.fullmatch(text.strip())
        if m:
            return build(m)
    raise ParseError(f"unknown {what}: {text!r}")


PARSERS: list[Callable[[str], Query]] = [parse_counting]
"""Question families the reader understands, tried in order."""


def parse(text: str) -> Query:
    """The first parser that understands the question."""
    errors = []
    for parser in PARSERS:
        try:
            return parser(text)
        except ParseError as exc:
            errors.append(str(exc))
    raise ParseError("; ".join(errors))
