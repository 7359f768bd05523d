"""Procedural rendering of scenes with PIL: flat colours, no anti-aliasing, deterministic bytes.

Images are palette (``P``) images: every colour comes from ``palette`` (translucent tints are
composited exactly), which keeps PNGs small and fast to encode and lets a pixel reader map
colours back to names. Drawing order: background, the tints of all ``tinted`` objects (composited
in order), their lines, then every other object in scene order. PNGs are written with the
colours they use in RGB order (``canonical_palette``), so that the file holds the pixels and
nothing of the drawing order; the ``paper`` designs keep the drawing-order palette
(``canonical=False``), byte for byte.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFont

from whatifbench.scenes.geometry import footprint, is_round, outline, transform
from whatifbench.scenes.model import Scene, SceneError, SceneObject
from whatifbench.scenes.palette import RGB, composite, rgb
from whatifbench.scenes.shapes import DEFAULT_FLOWER, FLOWER_PARTS

PNG_OPTIONS = {"compress_level": 6, "optimize": False}
"""Fixed PNG settings (determinism; the same settings for every image)."""

MAX_TINTED = 7
"""Most tinted objects per scene (their combinations take the first palette entries)."""

ROLE_COLORS = {"centre": "yellow", "leaf": "green"}
"""Default colours of flower parts other than petals (``accent`` overrides the centre)."""


class _Palette:
    """Colour → palette index, in first-use order."""

    def __init__(self) -> None:
        self.colors: list[RGB] = []
        self._index: dict[RGB, int] = {}
        self._named: dict[str, int] = {}

    def ink(self, name: str) -> int:
        """The index of a named colour."""
        found = self._named.get(name)
        if found is None:
            found = self._named[name] = self.index(rgb(name))
        return found

    def index(self, color: RGB) -> int:
        if color not in self._index:
            if len(self.colors) == 256:
                raise SceneError("the scene needs more than 256 distinct colours")
            self._index[color] = len(self.colors)
            self.colors.append(color)
        return self._index[color]

    def append(self, color: RGB) -> int:
        """Add an entry even when the colour is already present; return its index."""
        self._index.setdefault(color, len(self.colors))
        self.colors.append(color)
        return len(self.colors) - 1

    def flat(self) -> list[int]:
        return [c for color in self.colors for c in color]


def reuse_image_memory(blocks: int = 64) -> None:
    """Let PIL keep freed image memory for reuse (its ``PILLOW_BLOCKS_MAX`` setting).

    Rendering thousands of images otherwise maps fresh memory for every canvas and mask, and
    the page faults cost more than the drawing. Call once per process that renders in bulk.
    """
    core = Image.core
    core.set_blocks_max(max(blocks, core.get_blocks_max()))


def render(scene: Scene) -> Image.Image:
    """Draw the scene into a palette image."""
    pal = _Palette()
    background = rgb(scene.background)
    size = (scene.width, scene.height)
    tinted = [o for o in scene.objects if o.style == "tinted"]
    img, fills = _tints(scene, tinted, pal, background) if tinted else (Image.new(
        "L", size, pal.index(background)), [])
    draw = ImageDraw.Draw(img)
    for obj, fill in zip(tinted, fills, strict=True):
        _inner_outline(draw, obj, pal.ink(obj.color), fill)
    for obj in scene.objects:
        if obj.style != "tinted":
            _draw(img, draw, obj, pal)
    img.putpalette(pal.flat())  # pixel values are palette indices: the image becomes "P"
    return img


def canonical_palette(img: Image.Image) -> Image.Image:
    """The same pixels with a palette of the colours they use, each once, in RGB order.

    ``render`` fills its palette in drawing order (the asked-about object's colour first), keeps
    entries no pixel uses (every combination of tints) and may repeat a colour; a file written
    so says more than its pixels. After this, the file is a function of the decoded pixels
    alone (with ``PNG_OPTIONS``)."""
    flat = img.getpalette() or []
    used = sorted(int(index) for _, index in img.getcolors(256) or ())  # type: ignore[arg-type]
    color = {i: (flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in used}
    order = sorted(set(color.values()))
    rank = {c: k for k, c in enumerate(order)}
    lut = [rank[color[i]] if i in color else 0 for i in range(256)]
    out = Image.frombytes("L", img.size, img.tobytes()).point(lut)
    out.putpalette([c for rgb_ in order for c in rgb_])
    return out


def encode_png(img: Image.Image, canonical: bool = True) -> bytes:
    """PNG bytes with the fixed settings; ``canonical``: the palette of ``canonical_palette``
    (``False``: as drawn, the ``paper`` designs' bytes)."""
    buf = io.BytesIO()
    (canonical_palette(img) if canonical else img).save(buf, format="PNG", **PNG_OPTIONS)
    return buf.getvalue()


def render_png(scene: Scene, canonical: bool = True) -> bytes:
    """``encode_png(render(scene), canonical)``."""
    return encode_png(render(scene), canonical)


def _flat(points: tuple[tuple[float, float], ...] | list[tuple[float, float]]) -> list[float]:
    return [c for p in points for c in p]


def _tints(scene: Scene, tinted: list[SceneObject], pal: _Palette,
           background: RGB) -> tuple[Image.Image, list[Image.Image]]:
    """Index canvas of the background seen through every combination of tinted regions, and
    each tinted object's fill (non-zero inside it).

    Palette index ``c`` (for ``c < 2**len(tinted)``) is the combination whose bits name the
    tinted objects covering a pixel, so adding each object's bit where it lies gives the canvas.
    """
    if len(tinted) > MAX_TINTED:
        raise SceneError(f"a scene may hold at most {MAX_TINTED} tinted objects")
    colors = [rgb(o.color) for o in tinted]
    for combo in range(1 << len(tinted)):
        layers = [c for bit, c in enumerate(colors) if combo >> bit & 1]
        pal.append(composite(background, layers))
    size = (scene.width, scene.height)
    fills = []
    for bit, obj in enumerate(tinted):
        layer = Image.new("L", size, 0)
        ImageDraw.Draw(layer).polygon(_flat(outline(obj)), fill=1 << bit)
        fills.append(layer)
    # Distinct bits: adding is a bitwise or. The canvas is never one of the fills (they are
    # the outlines' masks).
    canvas = fills[0].copy() if len(fills) == 1 else fills[0]
    for layer in fills[1:]:
        canvas = ImageChops.add_modulo(canvas, layer)
    return canvas, fills


def _inner_outline(draw: ImageDraw.ImageDraw, obj: SceneObject, ink: int,
                   fill: Image.Image) -> None:
    """``draw.polygon(outline, outline=ink, width=obj.line_width)``: a line inside the
    polygon. PIL draws a wide outline through a mask of the polygon's fill, which it makes
    from scratch; ``fill`` (drawn for the tint) is that mask already, which halves the cost."""
    xy = _flat(outline(obj))
    if obj.line_width > 1:
        try:  # PIL's own call for wide outlines, with the fill we have (same pixels)
            draw.draw.draw_polygon(xy, ink, 0, 2 * obj.line_width - 1, fill.im)
            return
        except TypeError:  # a PIL without masked polygon outlines
            pass
    draw.polygon(xy, outline=ink, width=obj.line_width)


def _draw(img: Image.Image, draw: ImageDraw.ImageDraw, obj: SceneObject, pal: _Palette) -> None:
    if obj.shape == "flower":
        _paste_flower(img, obj, pal)
        if obj.label:
            _label(draw, obj, pal)
        return
    color = pal.ink(obj.color)
    if is_round(obj):
        r = obj.size * obj.sx
        box = (obj.x - r, obj.y - r, obj.x + r, obj.y + r)
        if obj.style == "solid":
            draw.ellipse(box, fill=color)
        else:
            draw.ellipse(box, outline=color, width=obj.line_width)
    elif obj.style == "solid":
        draw.polygon(_flat(outline(obj)), fill=color)
    else:
        draw.polygon(_flat(outline(obj)), outline=color, width=obj.line_width)
    if obj.label:
        _label(draw, obj, pal)


def _label(draw: ImageDraw.ImageDraw, obj: SceneObject, pal: _Palette) -> None:
    ink = pal.ink("white" if obj.color == "black" and obj.style == "solid" else "black")
    draw.text((obj.x, obj.y), obj.label or "", fill=ink, anchor="mm", font=_font())


def _paste_flower(img: Image.Image, obj: SceneObject, pal: _Palette) -> None:
    cx, cy = round(obj.x), round(obj.y)
    half, masks = _flower_masks(obj.variant or DEFAULT_FLOWER, obj.size, obj.angle % 360,
                                obj.sx, obj.sy)
    box = (cx - half, cy - half, cx + half + 1, cy + half + 1)
    core = img.im  # Image.paste's checks cost more than the paste itself for small sprites
    for role, mask in masks:
        name = obj.color if role == "petal" else (obj.accent if role == "centre" and obj.accent
                                                  else ROLE_COLORS[role])
        core.paste(pal.ink(name), box, mask)


@lru_cache(maxsize=4096)
def _flower_masks(kind: str, size: float, angle: float, sx: float,
                  sy: float) -> tuple[int, tuple[tuple[str, Any], ...]]:
    """Masks (PIL image cores) of a flower's colour roles, centred in a square of side
    ``2 * half + 1``."""
    probe = SceneObject("sprite", "flower", "red", 0.0, 0.0, size, angle, sx, sy, variant=kind)
    half = math.ceil(footprint(probe)) + 1
    masks: dict[str, Image.Image] = {}
    for role, unit in FLOWER_PARTS[kind]:
        mask = masks.setdefault(role, Image.new("1", (2 * half + 1, 2 * half + 1), 0))
        pts = [(x + half, y + half) for x, y in transform(probe, unit)]
        ImageDraw.Draw(mask).polygon(_flat(pts), fill=1)
    return half, tuple((role, mask.im) for role, mask in masks.items())


@lru_cache(maxsize=1)
def _font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default()
