"""``builtin:scene-reader``: a neuro-symbolic reference that reads only pixels and question text.

The question (``reader.questions``; CFMM-style shape questions in ``reader.shape_questions``)
becomes a program plus the premise's interventions and names the kind of scene it is about;
that kind's perception (``reader.perceive`` for flowers and dots, ``reader.shapes`` for solid
shapes) turns the image into a ``scenes.Scene``; the answer is the program executed on the
intervened perceived scene, and the option with that value is chosen.
It never looks at an item's target, metadata or provenance. When it cannot read the image or
the question, or its answer is not among the options, it abstains (the reply is unparsed).
MuCR questions about cause/effect pictures (several images, or one composite) are answered by
``reader.pairs``.
"""

from __future__ import annotations

import importlib
import os
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request
from whatifbench.models.base import scene_generators_reason
from whatifbench.models.builtin.program import ProgramBackend

if TYPE_CHECKING:
    from whatifbench.models.builtin.reader.questions import Query
    from whatifbench.scenes.model import Scene

READER_VERSION = "scene-reader-3"
CACHE = 64
"""Perceived images kept (an original and its counterfactual question share one image)."""


@register("backend", "builtin:scene-reader")
class SceneReaderBackend(ProgramBackend):
    """Reads the image and the question, executes the question as a program (no metadata)."""

    arg_names = frozenset({"delay"})

    def inapplicable(self, suite: str, generator: str | None = None) -> str | None:
        """It reads only pictures drawn by whatifbench's own scene generators."""
        return scene_generators_reason(suite, generator)

    def needs_image(self) -> str | None:
        """It reads every answer from the picture."""
        return "it reads every answer from the picture and needs one in every request"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._scenes: OrderedDict[tuple[str, int, int, str], Scene] = OrderedDict()

    @property
    def version(self) -> str:
        return READER_VERSION

    def answer(self, item: Item, request: Request) -> str | None:
        from whatifbench.models.builtin.reader.pairs import read_pair, task_of
        from whatifbench.models.builtin.reader.questions import ParseError, parse

        images = request.turns[-1].images
        if task_of(item.question) is not None:
            value = read_pair(item.question, images, item.choices)
            return value if item.kind != "choice" or value in item.choices else None
        if len(images) != 1:
            return None
        try:
            query = parse(item.question)
        except ParseError:
            return None
        value = execute(self._scene(images[0], query.scene_kind), query)
        if value is None:
            return None
        if item.kind == "choice":
            return value if value in item.choices else None
        return value

    def _scene(self, path: str, kind: str) -> Scene | None:
        from whatifbench.scenes.model import SceneError

        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (path, stat.st_mtime_ns, stat.st_size, kind)
        if key not in self._scenes:
            try:
                self._scenes[key] = perceiver(kind)(Path(path))
            except (OSError, ValueError, SceneError):
                return None
            while len(self._scenes) > CACHE:
                self._scenes.popitem(last=False)
        return self._scenes[key]


PERCEIVERS = {"counting": ("perceive", "perceive"), "shapes": ("shapes", "perceive_shapes")}
"""Scene kind → (module of ``models.builtin.reader``, function): image path → ``Scene``."""


def perceiver(kind: str) -> Callable[[Path], Scene]:
    """The perception function for a scene kind (imported on first use)."""
    module, name = PERCEIVERS[kind]
    found: Callable[[Path], Scene] = getattr(
        importlib.import_module(f"whatifbench.models.builtin.reader.{module}"), name)
    return found


def execute(scene: Scene | None, query: Query) -> str | None:
    """The value of a parsed question on ``scene`` (``None`` if it cannot be computed or is
    not among the question's own options)."""
    from whatifbench.scenes.interventions import apply_all
    from whatifbench.scenes.model import SceneError

    if scene is None:
        return None
    try:
        value = str(query.program.execute(apply_all(scene, query.interventions))).lower()
    except SceneError:
        return None
    if query.options and value not in query.options:
        return None
    return value


def read_answer(scene: Scene | None, question: str) -> str | None:
    """The option value the question's program gives on ``scene`` (``None`` if unreadable)."""
    from whatifbench.models.builtin.reader.questions import ParseError, parse

    try:
        return execute(scene, parse(question))
    except ParseError:
        return None
