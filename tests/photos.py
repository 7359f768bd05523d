"""A small C-VQA-Synthetic-format dataset over real photos (``skimage.data``), for backend tests."""

from __future__ import annotations

import io
import random
from pathlib import Path

from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.item import Item

PHOTOS = ("astronaut", "chelsea", "coffee", "rocket")


def photo_png(name: str, size: int = 64) -> bytes:
    """A ``skimage.data`` photo, downscaled, as PNG bytes."""
    import skimage.data
    from PIL import Image

    img = Image.fromarray(getattr(skimage.data, name)()).convert("RGB")
    img.thumbnail((size, size))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def make_photo_dataset(out: Path, n_pairs: int = 4, seed: int = 0) -> Path:
    """``n_pairs`` original/counterfactual 4-option counting pairs, one photo per pair."""
    rng = random.Random(seed)
    with DatasetWriter(out) as writer:
        for k in range(n_pairs):
            name = PHOTOS[k % len(PHOTOS)]
            rel = writer.add_image(f"{k:03d}_{name}.png", photo_png(name))
            for role, premise in (("original", ""), ("counterfactual",
                                                     "If one object were removed, ")):
                values = rng.sample(range(12), 4)
                target = values[rng.randrange(4)]
                options = " ".join(f"{'ABCD'[i]}: {v}" for i, v in enumerate(values))
                writer.add_item(Item(
                    id=f"{name}{k}-{role[0]}", images=(rel,), kind="choice",
                    question=f"{premise}how many objects would be in the image? {options}",
                    target=str(target), choices=tuple(str(v) for v in values),
                    pair_id=f"pair{k}", role=role, group=f"abs_counting_{1 + k % 2}",
                    provenance={"seed": seed, "program": "random target (tests backend "
                                "mechanics, not answers)",
                                "explanation": f"I count {target} objects."}))
        writer.finish(name="photos", suite="cvqa-synthetic", version="test",
                      generator={"name": "photos", "params": {"n_pairs": n_pairs}}, seed=seed)
    return out
