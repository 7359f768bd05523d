"""One composite image from several (labelled tiles), for models that take a single image."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from whatifbench.core.images import open_image

TILE = 336
LABEL_HEIGHT = 28
GAP = 8


def compose(paths: Sequence[str | Path], labels: Sequence[str],
            columns: int | None = None) -> bytes:
    """PNG bytes of the images laid out in a grid, each tile captioned with its label.

    Tiles are ``TILE`` pixels on the long side (aspect kept, centred on white); the layout is
    one row for up to three images and two rows otherwise, as in MuCR Fig. 7a. Deterministic.
    """
    if len(paths) != len(labels):
        raise ValueError("compose() needs one label per image")
    n = len(paths)
    cols = columns or (n if n <= 3 else (n + 1) // 2)
    rows = (n + cols - 1) // cols
    width = cols * TILE + (cols + 1) * GAP
    height = rows * (TILE + LABEL_HEIGHT) + (rows + 1) * GAP
    canvas = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(canvas)
    font = _font()
    for k, (path, label) in enumerate(zip(paths, labels, strict=True)):
        r, c = divmod(k, cols)
        x0 = GAP + c * (TILE + GAP)
        y0 = GAP + r * (TILE + LABEL_HEIGHT + GAP)
        with open_image(path) as img:
            tile = img.convert("RGB")
        tile.thumbnail((TILE, TILE), Image.Resampling.BICUBIC)
        canvas.paste(tile, (x0 + (TILE - tile.width) // 2, y0 + LABEL_HEIGHT
                            + (TILE - tile.height) // 2))
        box = draw.textbbox((0, 0), label, font=font)
        draw.text((x0 + (TILE - (box[2] - box[0])) // 2, y0 + 4), label, fill="black", font=font)
    buf = io.BytesIO()
    canvas.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def _font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=20)
    except TypeError:  # Pillow < 10.1 has no size argument
        return ImageFont.load_default()
