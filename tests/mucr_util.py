"""MuCR test helpers: a release written in the record template's format with real photographs
(scikit-image), and a pixel-reading oracle backend that answers from the images it is sent."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from whatifbench.core.composite import GAP, LABEL_HEIGHT, TILE
from whatifbench.core.registry import register
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.models.base import Backend

PHOTOS = ("astronaut", "camera", "cat", "coffee", "rocket", "clock", "coins", "moon", "brick",
          "grass", "gravel", "colorwheel", "hubble_deep_field", "immunohistochemistry", "retina",
          "logo", "page", "text", "checkerboard", "microaneurysms")
"""scikit-image sample photographs available offline (two per pair)."""
SIZE = 40
CATEGORY_CYCLE = ("human", "animal", "plant", "character", "mixture")


def photo(name: str, variant: int = 0) -> Image.Image:
    """A small RGB version of a scikit-image photograph (``variant`` flips/rotates it)."""
    import skimage.data

    arr = np.asarray(getattr(skimage.data, name)())
    if arr.dtype == bool:
        arr = arr.astype(np.uint8) * 255
    img = Image.fromarray(arr).convert("RGB").resize((SIZE, SIZE), Image.Resampling.BILINEAR)
    return img.rotate(90 * variant) if variant else img


@dataclass(frozen=True)
class Release:
    """A written release and the facts the tests check against."""

    jsonl: Path
    """The records file."""
    images: Path
    """The images folder."""
    records: list[dict[str, Any]]
    """The records as written."""


def make_records(groups: int = 2, link_string: bool = False) -> list[dict[str, Any]]:
    """``groups`` groups of four pairs in the release format (ids 1..4*groups); their
    ``causal_reason`` is written in the ``parts`` reading (cause image, effect image, link)."""
    records = []
    for g in range(groups):
        ids = [g * 4 + k + 1 for k in range(4)]
        for k, rid in enumerate(ids):
            links = [i for i in ids if i != rid]
            n = rid - 1
            records.append({
                "id": rid,
                "caption_0": f"Cause caption of pair {rid}.",
                "caption_1": f"Effect caption of pair {rid}.",
                "link_id": (f"[{','.join(map(str, links))}]" if link_string or k % 2
                            else links),
                "cue": f"cue phrase {rid}",
                "false_cue": [f"lamp {rid}", f"window {rid}", f"flase cue {rid}"],
                "style": ("photograph", "comic")[n % 2],
                "label": CATEGORY_CYCLE[n % len(CATEGORY_CYCLE)],
                "causal_reason": [
                    f"The cause image of pair {rid} shows a person walking under dark clouds.",
                    f"The effect image of pair {rid} shows the person soaked by heavy rain.",
                    f"Because of the bad weather in pair {rid}, the clouds turned into rain.",
                ],
                "image_0": f"cause_{rid:03d}.png",
                "image_1": f"effect_{rid:03d}.jpg" if rid % 3 == 0 else f"effect_{rid:03d}.png",
            })
    return records


def write_release(folder: Path, records: Sequence[dict[str, Any]] | None = None,
                  template_layout: bool = False) -> Release:
    """Write records (one per line, or pretty-printed over two lines like the template) and
    their images (two distinct photographs per pair)."""
    records = list(records if records is not None else make_records())
    images = folder / "images"
    images.mkdir(parents=True, exist_ok=True)
    for k, r in enumerate(records):
        for j, key in enumerate(("image_0", "image_1")):
            name = PHOTOS[(2 * k + j) % len(PHOTOS)]
            variant = (2 * k + j) // len(PHOTOS)
            img = photo(name, variant)
            fmt = "JPEG" if r[key].endswith(".jpg") else "PNG"
            img.save(images / r[key], format=fmt)
    lines = []
    for r in records:
        if template_layout:
            first = {k: r[k] for k in ("id", "caption_0", "caption_1", "link_id", "cue")}
            rest = {k: v for k, v in r.items() if k not in first}
            lines.append(json.dumps(first)[:-1] + ",\n " + json.dumps(rest)[1:])
        else:
            lines.append(json.dumps(r))
    jsonl = folder / "mucr.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "truth.json").write_text(json.dumps(records), encoding="utf-8")
    return Release(jsonl, images, records)


def _fingerprint(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB").resize((8, 8), Image.Resampling.BOX), dtype=float)


@register("backend", "test:mucr-oracle")
class PixelOracle(Backend):
    """Answers MuCR items from the pixels it is sent: it recognises each image (a separate
    image, or a tile cut out of a composite at the core's tile geometry) among the release's
    photographs, then answers from the release's pairing. ``-M release=FOLDER`` (as written
    by ``write_release``)."""

    capabilities = Capabilities(generate=True, rank=True, multi_image=True)
    calls = 0
    image_counts: ClassVar[list[tuple[str, int]]] = []
    """(item group, images in the request) of every request answered."""

    def _load(self) -> None:
        if hasattr(self, "known"):
            return
        root = Path(str(self.args["release"]))
        self.records = json.loads((root / "truth.json").read_text())
        folder = root / "images"
        self.known: dict[str, tuple[str, str]] = {}  # fingerprint key → (record id, role)
        self.prints: list[tuple[np.ndarray, str, str]] = []
        for r in self.records:
            for key, role in (("image_0", "cause"), ("image_1", "effect")):
                with Image.open(folder / r[key]) as img:
                    self.prints.append((_fingerprint(img), str(r["id"]), role))

    def _identify(self, img: Image.Image) -> tuple[str, str]:
        fp = _fingerprint(img)
        best = min(self.prints, key=lambda p: float(np.abs(p[0] - fp).mean()))
        return best[1], best[2]

    def _images(self, request: Request) -> list[Image.Image]:
        paths = request.turns[-1].images
        assert request.item is not None
        n = len(request.item.images)
        if len(paths) == n:
            return [Image.open(p).convert("RGB") for p in paths]
        assert len(paths) == 1, "composite layout sends one image"
        canvas = Image.open(paths[0]).convert("RGB")
        cols = n if n <= 3 else (n + 1) // 2
        tiles = []
        for k in range(n):
            r, c = divmod(k, cols)
            x0 = GAP + c * (TILE + GAP) + (TILE - SIZE) // 2
            y0 = GAP + r * (TILE + LABEL_HEIGHT + GAP) + LABEL_HEIGHT + (TILE - SIZE) // 2
            tiles.append(canvas.crop((x0, y0, x0 + SIZE, y0 + SIZE)))
        return tiles

    def answer(self, request: Request) -> str:
        self._load()
        item = request.item
        assert item is not None
        type(self).image_counts.append((str(item.group), len(request.images)))
        seen = [self._identify(img) for img in self._images(request)]
        record = next(r for r in self.records if str(r["id"]) == seen[0][0])
        if item.group in ("c2e", "e2c"):
            letter = next(k for k, (rid, _role) in enumerate(seen[1:]) if rid == seen[0][0])
            return "ABCD"[letter]
        if item.group == "cue":
            return "ABCD"[list(item.choices).index(record["cue"])]
        return "\n".join(f"{k}. {text}" for k, text in enumerate(record["causal_reason"], 1))

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            type(self).calls += 1
            yield i, Response(text=self.answer(request))

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            type(self).calls += 1
            chosen = self.answer(request)
            scores = tuple(0.0 if c == chosen else -2.0 for c in request.candidates)
            yield i, Response(scores=scores, mean_scores=scores)


@register("backend", "test:judge")
class ScriptedJudge(Backend):
    """A text judge: 9 when the model's answer repeats a reference line, else 2. Counts its
    calls; while ``fail_word`` is set, calls whose prompt contains it fail."""

    capabilities = Capabilities(generate=True)
    calls = 0
    fail_word: str | None = None

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            type(self).calls += 1
            prompt = request.prompt
            fail = type(self).fail_word
            if fail and fail in prompt:
                yield i, Response(error="scripted failure")
                continue
            refs = prompt.split("Human reference:\n", 1)[1].split("\n\nModel's answer:", 1)[0]
            answer = prompt.split("Model's answer:\n", 1)[1].split("\n\nHow similar", 1)[0]
            same = any(line[2:] == answer for line in refs.splitlines())
            yield i, Response(text=f"Score: {9 if same else 2}")


def digest(path: Path) -> str:
    """sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@register("backend", "test:mucr-script")
class ScriptedModel(Backend):
    """Replies from ``replies`` (item id → text), "I cannot tell." otherwise; counts calls."""

    capabilities = Capabilities(generate=True, multi_image=True)
    calls = 0
    replies: ClassVar[dict[str, str]] = {}

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            type(self).calls += 1
            yield i, Response(text=type(self).replies.get(request.item_id, "I cannot tell."))
