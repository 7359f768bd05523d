"""The tools of one program run: perception, VQA, LLM and depth over one item's images.

``ToolServer`` gives typed methods (used by the VisProg interpreter) and ``handle``, the JSON
form the sandbox forwards (used by ViperGPT-style programs, whose patches are references into
the server's table of views).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from whatifbench.core.item import Item
from whatifbench.models.program.sandbox import ToolAbort, ToolFailure
from whatifbench.models.program.tools.answerers import Depth, Llm, Vqa
from whatifbench.models.program.tools.base import (
    ItemContext,
    Perception,
    ToolOutage,
    ToolProblem,
    View,
)

TOOLS = ("find", "exists", "verify_property", "best_text_match", "simple_query",
         "compute_depth", "crop", "contains", "llm_query")
"""Tool names a ViperGPT-style program can call."""


@dataclass
class Toolbox:
    """The tools chosen with ``-M detector=… -M vqa=… -M llm_query=… -M depth=…``."""

    perception: Perception
    """Finds objects and checks properties (oracle or detector)."""
    vqa: Vqa | None = None
    """Answers ``simple_query`` (``None``: only what the perception can answer)."""
    llm: Llm | None = None
    """Answers ``llm_query``."""
    depth: Depth | None = None
    """Answers ``compute_depth``."""

    def prepare(self, items: Sequence[Item]) -> None:
        """Check every item can be served before any request (``WhatifError``)."""
        self.perception.prepare(items)

    def describe(self) -> dict[str, Any]:
        """For the run spec and cache key."""
        return {
            "perception": self.perception.describe(),
            "vqa": self.vqa.backend.cache_identity() if self.vqa else None,
            "llm_query": self.llm.backend.cache_identity() if self.llm else None,
            "depth": ({"path": str(self.depth.model.folder), "version": self.depth.model.version}
                      if self.depth else None),
        }


class ToolServer:
    """Serves the tool calls of one program about one item."""

    def __init__(self, toolbox: Toolbox, ctx: ItemContext) -> None:
        self.tools = toolbox
        self.ctx = ctx
        self.views: list[View] = []
        self._refs: dict[tuple[int, str | None, tuple[float, ...]], int] = {}

    # -- typed tools -------------------------------------------------------------------------
    def find(self, view: View, name: str) -> list[View]:
        """Objects called ``name`` in the view."""
        return self.tools.perception.find(self.ctx, view, str(name))

    def exists(self, view: View, name: str) -> bool:
        """True when ``name`` is in the view."""
        return bool(self.find(view, name))

    def verify_property(self, view: View, name: str, attribute: str) -> bool:
        """True when the ``name`` in the view has ``attribute``."""
        return self.tools.perception.verify_property(self.ctx, view, str(name), str(attribute))

    def best_text_match(self, view: View, options: Sequence[str]) -> str:
        """The option best describing the view."""
        return self.tools.perception.best_text_match(self.ctx, view, [str(o) for o in options])

    def simple_query(self, view: View, question: str) -> str:
        """A short answer about the view (perception first, then the VQA model)."""
        if self.tools.vqa is not None:
            return self.tools.vqa.ask(self.ctx, view, str(question))
        known = self.tools.perception.answer(self.ctx, view, str(question))
        if known is None:
            raise ToolProblem(f"simple_query({question!r}) needs a VQA model; pass "
                              "-M vqa=SPEC (any VLM backend, e.g. -M vqa=hf:/models/llava)")
        return known

    def compute_depth(self, view: View) -> float:
        """The median depth of the view."""
        if self.tools.depth is None:
            raise ToolProblem("compute_depth() needs a depth model; pass -M depth=PATH (a "
                              "depth-estimation checkpoint such as DPT or Depth Anything)")
        return self.tools.depth.median(self.ctx, view)

    def llm_query(self, question: str, long_answer: bool = False) -> str:
        """A language model's answer."""
        if self.tools.llm is None:
            raise ToolProblem("llm_query() has no language model; pass -M llm_query=SPEC")
        return self.tools.llm.ask(self.ctx, str(question), bool(long_answer))

    def crop(self, view: View, left: float, lower: float, right: float, upper: float) -> View:
        """The region of the view's image inside a box given in bottom-left coordinates."""
        left, lower, right, upper = (_finite(v) for v in (left, lower, right, upper))
        width, height = self.ctx.size(view.image)
        x0, x1 = sorted((max(0.0, min(float(width), left)),
                         max(0.0, min(float(width), right))))
        y0, y1 = sorted((max(0.0, min(float(height), height - upper)),
                         max(0.0, min(float(height), height - lower))))
        if x1 - x0 < 1 or y1 - y0 < 1:
            raise ToolProblem(f"crop({left}, {lower}, {right}, {upper}) is empty or outside "
                              "the image")
        return View(view.image, (x0, y0, x1, y1))

    def contains(self, outer: View, inner: View) -> bool:
        """True when ``inner`` lies inside ``outer``."""
        return self.tools.perception.contains(self.ctx, outer, inner)

    # -- the JSON form -----------------------------------------------------------------------
    def ref(self, view: View) -> int:
        """The reference of a view (the same object or box keeps one reference)."""
        key = (view.image, view.thing, tuple(round(v, 3) for v in view.box))
        found = self._refs.get(key)
        if found is None:
            found = self._refs[key] = len(self.views)
            self.views.append(view)
        return found

    def desc(self, view: View) -> dict[str, Any]:
        """A view as the program sees it: reference and bottom-left coordinates."""
        _width, height = self.ctx.size(view.image)
        x0, y0, x1, y1 = view.box
        return {"ref": self.ref(view), "left": round(x0, 2), "lower": round(height - y1, 2),
                "right": round(x1, 2), "upper": round(height - y0, 2)}

    def view(self, ref: Any) -> View:
        """The view behind a reference."""
        if not isinstance(ref, int) or isinstance(ref, bool) or not 0 <= ref < len(self.views):
            raise ToolProblem(f"{ref!r} is not an image patch of this program")
        return self.views[ref]

    def handle(self, name: str, args: list[Any]) -> Any:
        """Run a proxied tool call; problems become the program's ``ToolError``, model failures
        stop the program (``ToolAbort``)."""
        try:
            return self._dispatch(name, args)
        except ToolProblem as exc:
            raise ToolFailure(str(exc)) from None
        except ToolOutage as exc:
            raise ToolAbort(str(exc)) from None
        except TypeError as exc:
            raise ToolFailure(f"{name}() got bad arguments ({exc})") from None
        except ArithmeticError as exc:  # numbers the program made too large, divisions by 0
            raise ToolFailure(f"{name}() cannot use its arguments ({type(exc).__name__}: "
                              f"{str(exc)[:200]})") from None

    def _dispatch(self, name: str, args: list[Any]) -> Any:
        if name == "llm_query":
            return self.llm_query(*args)
        if name not in TOOLS:
            raise ToolProblem(f"there is no tool {name!r}; the tools are {', '.join(TOOLS)}")
        if not args:
            raise ToolProblem(f"{name}() needs an image patch")
        view, rest = self.view(args[0]), args[1:]
        if name == "find":
            return [self.desc(v) for v in self.find(view, *rest)]
        if name == "crop":
            return self.desc(self.crop(view, *rest))
        if name == "contains":
            return self.contains(view, self.view(rest[0] if rest else None))
        if name == "best_text_match":
            options = rest[0] if rest else None
            if not isinstance(options, list):
                raise ToolProblem("best_text_match() takes a list of strings")
            return self.best_text_match(view, options)
        method = getattr(self, name)
        return method(view, *rest)

    def whole(self) -> list[dict[str, Any]]:
        """Every image of the item as a patch description."""
        return [self.desc(self.ctx.full(i)) for i in range(len(self.ctx.paths))]


def _finite(value: Any) -> float:
    """A crop coordinate as a float; ``ToolProblem`` for anything but a finite number (an
    integer too large for a float included)."""
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = None
    if number is None or not math.isfinite(number):
        shown = repr(value)
        if len(shown) > 40:
            shown = f"{shown[:20]}… ({len(shown)} characters)"
        raise ToolProblem(f"crop() takes four finite numbers, got {shown}")
    return number
