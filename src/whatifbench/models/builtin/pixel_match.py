"""``builtin:pixel-match``: a reference that answers a question whose options are pictures with
the picture that looks most like the question's, pixel by pixel.

It reads no text and knows nothing of causes or effects: where it beats chance, the options can
be sorted by similarity alone (MuCR's C2E and E2C drew their distractors from other scenes, so
the right picture was the one of the same scene). An item's pictures are told apart by
``meta["image_labels"]`` (MuCR: ``Cause`` or ``Effect``, then ``A`` … ``D``): the options are
the pictures labelled with an option's letter, the question's picture the first one that is
not. One composite picture of labelled tiles (``--image-layout composite``) is cut into its
tiles with the composite's own geometry. An item without picture options is not answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request
from whatifbench.models.builtin.program import ProgramBackend

if TYPE_CHECKING:
    from PIL import Image


@register("backend", "builtin:pixel-match")
class PixelMatchBackend(ProgramBackend):
    """Picks the option picture most like the question's picture (mean pixel difference)."""

    arg_names = frozenset({"delay"})

    def needs_image(self) -> str | None:
        """It compares pictures and needs them in every request."""
        return "it compares the option pictures with the question's and needs them"

    @property
    def version(self) -> str:
        return "1"

    def answer(self, item: Item, request: Request) -> str | None:
        pictures = option_pictures(item, request.turns[-1].images)
        if pictures is None:
            return None
        question, options = pictures
        return item.choices[closest(question, options)]


def option_pictures(item: Item, images: Sequence[str]) -> tuple[Any, list[Any]] | None:
    """(the question's picture, one picture per option in option order) as arrays, or ``None``
    when the item's options are not pictures or the request does not hold them all."""
    labels = item.meta.get("image_labels")
    if not isinstance(labels, list) or not item.choices:
        return None
    labels = [str(label) for label in labels]
    if not set(item.choices) <= set(labels) or len(labels) < len(item.choices) + 1:
        return None
    first = next((k for k, label in enumerate(labels) if label not in item.choices), None)
    if first is None:
        return None
    try:
        arrays = _arrays(images, len(labels))
    except (OSError, ValueError):
        return None
    if arrays is None:
        return None
    return arrays[first], [arrays[labels.index(choice)] for choice in item.choices]


def _arrays(images: Sequence[str], count: int) -> list[Any] | None:
    import numpy as np
    from PIL import Image

    def load(img: Image.Image) -> Any:
        return np.asarray(img.convert("RGB"), dtype=np.float32)

    if len(images) == count:
        out: list[Any] = []
        for path in images:
            with Image.open(path) as img:
                out.append(load(img))
        return out
    if len(images) != 1:
        return None
    with Image.open(images[0]) as img:
        return [load(tile) for tile in composite_tiles(img.convert("RGB"), count)]


def composite_tiles(img: Image.Image, count: int) -> list[Image.Image]:
    """The ``count`` tiles of a composite made by ``core.composite.compose``."""
    from whatifbench.core.composite import GAP, LABEL_HEIGHT, TILE

    cols = count if count <= 3 else (count + 1) // 2
    out = []
    for k in range(count):
        r, c = divmod(k, cols)
        x0 = GAP + c * (TILE + GAP)
        y0 = GAP + r * (TILE + LABEL_HEIGHT + GAP) + LABEL_HEIGHT
        out.append(img.crop((x0, y0, x0 + TILE, y0 + TILE)))
    return out


def closest(question: Any, options: Sequence[Any]) -> int:
    """The index of the option picture with the least mean absolute difference from the
    question's (pictures of another size are resized to the question's; ties: the first)."""
    import numpy as np
    from PIL import Image

    q = np.asarray(question, dtype=np.float32)
    scores = []
    for option in options:
        o = np.asarray(option, dtype=np.float32)
        if o.shape != q.shape:
            o = np.asarray(Image.fromarray(o.astype(np.uint8)).resize(
                (q.shape[1], q.shape[0]), Image.Resampling.BILINEAR), dtype=np.float32)
        scores.append(float(np.abs(o - q).mean()))
    return min(range(len(scores)), key=lambda k: (scores[k], k))
