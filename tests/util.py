"""Small hand-built datasets for tests of the core (no generator needed)."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

from PIL import Image

from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.item import Item


def png(color: tuple[int, int, int], size: int = 24) -> bytes:
    """A small solid PNG."""
    buf = io.BytesIO()
    Image.new("RGB", (size, size), color).save(buf, format="PNG")
    return buf.getvalue()


def make_choice_dataset(out: Path, n_pairs: int = 6, seed: int = 0,
                        suite: str = "cvqa-synthetic") -> Path:
    """``n_pairs`` original/counterfactual 4-option pairs over distinct images, in two groups."""
    rng = random.Random(seed)
    with DatasetWriter(out) as writer:
        for k in range(n_pairs):
            rel = writer.add_image(f"img_{k:03d}.png", png((k * 37 % 256, 80, 160)))
            group = f"abs_counting_{1 + k % 2}"
            for role in ("original", "counterfactual"):
                values = rng.sample(range(30), 4)
                target = values[rng.randrange(4)]
                options = "  ".join(f"{'ABCD'[i]}:{v}" for i, v in enumerate(values))
                question = f"How many dots ({role})? Select the correct answer:{options}"
                writer.add_item(Item(
                    id=f"p{k}-{role[0]}", images=(rel,), question=question, kind="choice",
                    target=str(target), choices=tuple(str(v) for v in values), pair_id=f"p{k}",
                    role=role, group=group, meta={"image": f"img_{k:03d}.png"},
                    provenance={"explanation": f"There are {target} dots."}))
        writer.finish(name="handmade", suite=suite, version="test", generator={"name": "hand"},
                      seed=seed)
    return out


def page_data(page: str) -> dict:
    """The JSON data block of a report page (``report.html``)."""
    found = re.search(r"<script type='application/json' id='whatif-data'>(.*?)</script>", page,
                      re.S)
    assert found, "the page has no data block"
    return json.loads(found.group(1))
