"""What a program's tool calls act on: views of an item's images, and the perception interface.

A ``View`` is a box on one image of the item (pixels, ``y`` downwards), possibly naming the
object it was found as. Programs see views as ``ImagePatch`` objects whose coordinates have
their origin at the bottom-left corner (ViperGPT's convention); ``ToolServer`` converts.
"""

from __future__ import annotations

import hashlib
import io
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from whatifbench.core.fsutil import cached_file
from whatifbench.core.home import whatif_home
from whatifbench.core.images import open_image
from whatifbench.core.item import Item

Box = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)`` in pixels, ``y`` downwards."""


@dataclass(frozen=True)
class View:
    """A region of one of the item's images."""

    image: int
    """Index of the image in the item's image list."""
    box: Box
    """The region, pixels with ``y`` downwards."""
    thing: str | None = None
    """Id of the object this region was found as (oracle object id, detection id)."""
    label: str | None = None
    """What it was found as (the ``find`` query, or the object's name)."""

    @property
    def center(self) -> tuple[float, float]:
        """Centre of the box."""
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2


def box_inside(inner: Box, outer: Box) -> bool:
    """True when the centre of ``inner`` lies in ``outer``."""
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


@dataclass
class ItemContext:
    """The item a program answers, with its images loaded on demand."""

    item: Item
    """The item."""
    paths: tuple[str, ...]
    """Absolute paths of its images."""
    _images: dict[int, Image.Image] = field(default_factory=dict)
    _sizes: dict[int, tuple[int, int]] = field(default_factory=dict)

    def image(self, index: int) -> Image.Image:
        """The RGB image (loaded once)."""
        if index not in self._images:
            with open_image(self.paths[index]) as img:
                self._images[index] = img.convert("RGB")
        return self._images[index]

    def size(self, index: int) -> tuple[int, int]:
        """``(width, height)`` of an image (read from its header)."""
        if index not in self._sizes:
            if index in self._images:
                self._sizes[index] = self._images[index].size
            else:
                with open_image(self.paths[index]) as img:
                    self._sizes[index] = img.size
        return self._sizes[index]

    def full(self, index: int) -> View:
        """The whole image as a view."""
        width, height = self.size(index)
        return View(index, (0.0, 0.0, float(width), float(height)))

    def is_full(self, view: View) -> bool:
        """True when the view covers its whole image."""
        width, height = self.size(view.image)
        x0, y0, x1, y1 = view.box
        return x0 <= 0 and y0 <= 0 and x1 >= width and y1 >= height

    def crop(self, view: View) -> Image.Image:
        """The pixels of a view."""
        img = self.image(view.image)
        if self.is_full(view):
            return img
        x0, y0, x1, y1 = (round(v) for v in view.box)
        return img.crop((x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)))

    def crop_path(self, view: View) -> str:
        """A file holding the view's pixels (the image itself for a whole-image view; crops are
        content-addressed PNGs under ``$WHATIF_HOME/program-crops``)."""
        if self.is_full(view):
            return self.paths[view.image]
        buf = io.BytesIO()
        self.crop(view).save(buf, format="PNG", compress_level=1)
        data = buf.getvalue()
        path = whatif_home() / "program-crops" / f"{hashlib.sha256(data).hexdigest()}.png"
        return str(cached_file(path, lambda: data))


class ToolProblem(Exception):
    """A tool cannot serve a call (the program sees a ``ToolError`` with this message)."""


class ToolOutage(Exception):
    """A model behind a tool failed (an infrastructure failure: the item ends as an error)."""


class Perception(ABC):
    """The "eyes" of a program backend: finding objects and checking their properties."""

    name = "perception"

    def prepare(self, items: Sequence[Item]) -> None:  # noqa: B027  (optional hook)
        """Check, before any request, that every item can be perceived (``WhatifError``)."""

    @abstractmethod
    def find(self, ctx: ItemContext, view: View, name: str) -> list[View]:
        """Every ``name`` in the view."""

    @abstractmethod
    def verify_property(self, ctx: ItemContext, view: View, name: str, attribute: str) -> bool:
        """Whether the ``name`` in the view has ``attribute``."""

    @abstractmethod
    def best_text_match(self, ctx: ItemContext, view: View, options: Sequence[str]) -> str:
        """The option that best describes the view."""

    def contains(self, ctx: ItemContext, outer: View, inner: View) -> bool:
        """Whether ``inner`` lies inside ``outer`` (by default: its box centre in the box)."""
        return inner.image == outer.image and box_inside(inner.box, outer.box)

    def answer(self, ctx: ItemContext, view: View, question: str) -> str | None:
        """A short answer about the view, when this perception can give one without a VQA
        model (``None``: ask the VQA tool)."""
        return None

    def describe(self) -> dict[str, Any]:
        """For the run spec and cache key."""
        return {"name": self.name}


def as_path(value: str) -> Path:
    """A tool argument as a path (``~`` expanded)."""
    return Path(value).expanduser()
