"""``builtin:scene-reader``: a neuro-symbolic reference that reads only pixels and question text.

Perception (``reader.perceive``) turns the image into a ``scenes.Scene``; the question
(``reader.questions``) becomes a program plus the premise's interventions; the answer is the
program executed on the intervened perceived scene, and the option with that value is chosen.
It never looks at an item's target, metadata or provenance. When it cannot read the image or
the question, or its answer is not among the options, it abstains (the reply is unparsed).
MuCR questions about cause/effect pictures (several images, or one composite) are answered by
``reader.pairs``.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path

from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.models.base import Request
from whatifbench.models.builtin.program import ProgramBackend
from whatifbench.scenes.model import Scene, SceneError

READER_VERSION = "scene-reader-2"
CACHE = 64
"""Perceived images kept (an original and its counterfactual question share one image)."""


@register("backend", "builtin:scene-reader")
class SceneReaderBackend(ProgramBackend):
    """Reads the image and the question, executes the question as a program (no metadata)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._scenes: OrderedDict[tuple[str, int, int], Scene] = OrderedDict()

    @property
    def version(self) -> str:
        return READER_VERSION

    def answer(self, item: Item, request: Request) -> str | None:
        from whatifbench.models.builtin.reader.pairs import read_pair, task_of

        images = request.turns[-1].images
        if task_of(item.question) is not None:
            value = read_pair(item.question, images, item.choices)
            return value if item.kind != "choice" or value in item.choices else None
        if len(images) != 1:
            return None
        value = read_answer(self._scene(images[0]), item.question)
        if value is None:
            return None
        if item.kind == "choice":
            return value if value in item.choices else None
        return value

    def _scene(self, path: str) -> Scene | None:
        from whatifbench.models.builtin.reader.perceive import perceive

        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (path, stat.st_mtime_ns, stat.st_size)
        if key not in self._scenes:
            try:
                self._scenes[key] = perceive(Path(path))
            except (OSError, ValueError, SceneError):
                return None
            while len(self._scenes) > CACHE:
                self._scenes.popitem(last=False)
        return self._scenes[key]


def read_answer(scene: Scene | None, question: str) -> str | None:
    """The option value the question's program gives on ``scene`` (``None`` if unreadable)."""
    from whatifbench.models.builtin.reader.questions import ParseError, parse
    from whatifbench.scenes.interventions import apply_all

    if scene is None:
        return None
    try:
        query = parse(question)
        value = str(query.program.execute(apply_all(scene, query.interventions))).lower()
    except (ParseError, SceneError):
        return None
    if query.options and value not in query.options:
        return None
    return value
