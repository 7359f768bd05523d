"""Oracle perception (``-M detector=oracle``): perfect eyes from the ground-truth scene.

``find``, ``exists``, ``verify_property``, ``best_text_match`` and ``contains`` read the item's
scene (``scenes.SceneBook``) instead of pixels, so a program's failures are its reasoning's
alone. Object names are a colour or style word or none, then a noun: a shape (``flower``,
``circle``, ``dot``, ``polygon`` ...), a flower kind, a MuCR body kind (``ball``, ``block``,
``ice`` ...), or ``object``/``shape``/``thing`` for anything; plurals are accepted. A word the
oracle does not know is refused with a ``ToolError`` naming what it knows, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.errors import WhatifError
from whatifbench.models.program.tools.base import (
    ItemContext,
    Perception,
    ToolProblem,
    View,
    box_inside,
)
from whatifbench.models.program.tools.scenes import SceneBook, SceneMissing, Thing
from whatifbench.scenes.palette import COLORS

ANY = frozenset({"object", "thing", "shape", "item"})
STYLE_WORDS = {"outlined": "outline", "outline": "outline", "filled": "solid",
               "solid": "solid", "tinted": "tinted", "shaded": "tinted"}
FILLERS = frozenset({"a", "an", "the", "all", "any", "some", "every"})
COLOR_ALIASES = {"grey": "gray", "violet": "purple"}


def singular(word: str) -> str:
    """``flowers`` → ``flower``, ``boxes`` → ``box``, ``daisies`` → ``daisy``."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


class Query:
    """A parsed object name: optional colour and style, and a noun."""

    def __init__(self, text: str, vocabulary: set[str]) -> None:
        words = [w for w in re.findall(r"[a-z]+(?:-[a-z]+)?", text.lower()) if w not in FILLERS]
        if not words:
            raise ToolProblem(f"the object name {text!r} names nothing")
        self.noun = singular(words[-1])
        self.color: str | None = None
        self.style: str | None = None
        if self.noun not in vocabulary and self.noun not in ANY:
            if self.noun in COLORS or self.noun in COLOR_ALIASES:  # "red" alone: anything red
                words.append("object")
                self.noun = "object"
            else:
                known = ", ".join(sorted(vocabulary))
                raise ToolProblem(f"the oracle knows no object called {words[-1]!r} (it knows "
                                  f"{known}, and colours)")
        for word in words[:-1]:
            word = COLOR_ALIASES.get(word, word)
            if word in COLORS:
                self.color = word
            elif word in STYLE_WORDS:
                self.style = STYLE_WORDS[word]
            else:
                raise ToolProblem(f"the oracle cannot tell {word!r} in {text!r}: it sees names, "
                                  "colours (red, blue ...) and styles (outlined, filled)")

    def matches(self, thing: Thing) -> bool:
        """True when the thing fits the name."""
        if self.noun not in ANY and self.noun not in (thing.name, thing.kind):
            return False
        if self.color is not None and thing.color != self.color:
            return False
        return self.style is None or thing.style == self.style


class OraclePerception(Perception):
    """Reads the ground-truth scene of procedurally generated items."""

    name = "oracle"

    def __init__(self) -> None:
        self.book = SceneBook()
        self._things: dict[str, list[tuple[Thing, ...]]] = {}

    def prepare(self, items: Sequence[Item]) -> None:
        """Learn the scenes and refuse, with one message, items whose scene is unknown."""
        self.book.learn(items)
        problems = []
        for item in items:
            try:
                self.scenes(item)
            except SceneMissing as exc:
                problems.append(str(exc))
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise WhatifError(f"Oracle perception cannot see {problems[0]}{more}")

    def scenes(self, item: Item) -> list[tuple[Thing, ...]]:
        """The objects of each image of the item."""
        found = self._things.get(item.id)
        if found is None:
            found = self._things[item.id] = self.book.things(item)
        return found

    def _things_of(self, ctx: ItemContext, view: View) -> tuple[Thing, ...]:
        try:
            return self.scenes(ctx.item)[view.image]
        except SceneMissing as exc:
            raise ToolProblem(str(exc)) from None

    def _vocabulary(self, things: Sequence[Thing]) -> set[str]:
        from whatifbench.scenes.bodies import KINDS
        from whatifbench.scenes.shapes import FLOWER_KINDS, SHAPES

        return {*SHAPES, *FLOWER_KINDS, *KINDS, *(t.name for t in things)}

    def _in_view(self, ctx: ItemContext, view: View, query: Query) -> list[Thing]:
        things = self._things_of(ctx, view)
        full = ctx.is_full(view)
        return [t for t in things if t.id != view.thing and query.matches(t)
                and (full or box_inside(t.box, view.box))]

    def find(self, ctx: ItemContext, view: View, name: str) -> list[View]:
        """The matching objects whose centre lies in the view, in drawing order."""
        things = self._things_of(ctx, view)
        query = Query(name, self._vocabulary(things))
        return [View(view.image, t.box, t.id, t.name) for t in self._in_view(ctx, view, query)]

    def _thing(self, ctx: ItemContext, view: View) -> Thing | None:
        if view.thing is None:
            return None
        for t in self._things_of(ctx, view):
            if t.id == view.thing:
                return t
        return None

    def verify_property(self, ctx: ItemContext, view: View, name: str, attribute: str) -> bool:
        """Whether the view's object (or any ``name`` in the view) has the colour, style or
        name given as ``attribute``."""
        things = self._things_of(ctx, view)
        query = Query(name, self._vocabulary(things))
        own = self._thing(ctx, view)
        candidates = [own] if own is not None and query.matches(own) else \
            self._in_view(ctx, view, query)
        word = COLOR_ALIASES.get(attribute.strip().lower(), attribute.strip().lower())
        if word in COLORS:
            return any(t.color == word for t in candidates)
        if word in STYLE_WORDS:
            return any(t.style == STYLE_WORDS[word] for t in candidates)
        noun = singular(word)
        if noun in self._vocabulary(things):
            return any(noun in (t.name, t.kind) for t in candidates)
        raise ToolProblem(f"the oracle cannot verify the property {attribute!r}: it knows "
                          "colours, styles (outlined, filled) and object names")

    def best_text_match(self, ctx: ItemContext, view: View, options: Sequence[str]) -> str:
        """The option naming most of the view's object's name and colour (first on ties)."""
        if not options:
            raise ToolProblem("best_text_match() needs a non-empty list of options")
        own = self._thing(ctx, view)
        things = [own] if own is not None else list(self._things_of(ctx, view))

        def score(option: str) -> int:
            words = {singular(w) for w in re.findall(r"[a-z]+", option.lower())}
            return max((int(t.name in words or (t.kind or "") in words) + int(t.color in words)
                        for t in things), default=0)

        return max(options, key=lambda o: (score(o), -options.index(o)))

    def contains(self, ctx: ItemContext, outer: View, inner: View) -> bool:
        """Exact: inside an outlined or tinted shape's outline, else inside the box."""
        a, b = self._thing(ctx, outer), self._thing(ctx, inner)
        if outer.image != inner.image:
            return False
        if a is not None and b is not None:
            return a.holds(b)
        return box_inside(inner.box, outer.box)

    def answer(self, ctx: ItemContext, view: View, question: str) -> str | None:
        """Colour, shape and ``how many X`` questions about the view, from the scene; other
        questions go to the VQA tool."""
        q = question.lower()
        own = self._thing(ctx, view)
        if own is not None and re.search(r"\bcolou?r\b", q):
            return own.color
        if own is not None and re.search(r"\b(shape|what is (this|it))\b", q):
            return own.name
        many = re.search(r"how many ([a-z -]+?)(?: are| is| do| can| in| on|\?|$)", q)
        if many:
            return str(len(self.find(ctx, view, many.group(1))))
        return None

    def describe(self) -> dict[str, Any]:
        """``{"name": "oracle"}``."""
        return {"name": "oracle"}
