"""A small dataset in C-VQA-Real's form, for trying the suite and for tests (``Suite.example``):
the release's three question types over procedural pictures of coloured discs whose answers are
counted, not written by hand.

Each picture shows a seeded number of discs of two colours. ``direct`` asks how many discs of a
colour there are, and its counterfactual how many there would be with some added or removed;
``indirect`` asks for the discs of both colours together under such a premise; ``boolean`` asks
whether a colour is present, and its counterfactual whether it would be if all of them were
taken away (or if one were added). It is no benchmark: the questions are templated, and the
pictures are not photographs.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

from PIL import Image, ImageDraw

from whatifbench.core.dataset import DatasetWriter
from whatifbench.suites.cvqa.real.release import pair_items

COLOURS = {"red": (220, 40, 40), "blue": (40, 80, 220), "green": (30, 160, 60),
           "yellow": (230, 200, 30)}
"""The disc colours and their RGB."""
SIDE = 96
"""The pictures' side in pixels."""
PAIRS_PER_TYPE = 6
"""Pairs of each question type."""
VERSION = "1"
"""The example's version (its card)."""


def _picture(counts: dict[str, int], rng: random.Random) -> bytes:
    """PNG bytes of the discs, placed on a grid so that none overlaps."""
    image = Image.new("RGB", (SIDE, SIDE), (245, 245, 240))
    draw = ImageDraw.Draw(image)
    cells = [(x, y) for x in range(6) for y in range(6)]
    rng.shuffle(cells)
    discs = [colour for colour, n in counts.items() for _ in range(n)]
    for colour, (x, y) in zip(discs, cells, strict=False):
        cx, cy = 8 + 16 * x, 8 + 16 * y
        draw.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), fill=COLOURS[colour])
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _questions(group: str, counts: dict[str, int], a: str, b: str, k: int,
               rng: random.Random) -> tuple[str, str, str, str]:
    """(question, answer, counterfactual question, its answer) of one pair."""
    if group == "direct":
        if rng.random() < 0.5 or counts[a] < k:
            return (f"How many {a} discs are there?", str(counts[a]),
                    f"How many {a} discs would there be if {k} more {a} discs were added?",
                    str(counts[a] + k))
        return (f"How many {a} discs are there?", str(counts[a]),
                f"How many {a} discs would there be if {k} {a} discs were taken away?",
                str(counts[a] - k))
    if group == "indirect":
        total = counts[a] + counts[b]
        return ("How many discs are there?", str(total),
                f"How many discs would there be if {k} more {b} discs were added?",
                str(total + k))
    if counts[a] and rng.random() < 0.5:
        return (f"Are there any {a} discs?", "yes",
                f"Would there be any {a} discs if all the {a} discs were taken away?", "no")
    return (f"Are there any {a} discs?", "yes" if counts[a] else "no",
            f"Would there be any {a} discs if one {a} disc were added?", "yes")


def write_example(out: str | Path, seed: int = 0, overwrite: bool = False) -> None:
    """Write the example dataset (``PAIRS_PER_TYPE`` pairs of each type) to ``out``."""
    rng = random.Random(f"cvqa-real-example:{seed}")
    with DatasetWriter(out, overwrite) as writer:
        index = 0
        for group in ("direct", "indirect", "boolean"):
            for _ in range(PAIRS_PER_TYPE):
                a, b = rng.sample(sorted(COLOURS), 2)
                counts = {a: rng.randint(0 if group == "boolean" else 1, 6),
                          b: rng.randint(1, 6)}
                k = rng.randint(1, 3)
                question, answer, new_question, new_answer = _questions(
                    group, counts, a, b, k, rng)
                index += 1
                name = f"example-{index:03d}.png"
                image = writer.add_image(name, _picture(counts, rng))
                meta = {"image": name, "type": group, "row": index}
                provenance = {"source": "whatifbench C-VQA-Real example", "counts": counts,
                              "seed": seed}
                writer.add_items(pair_items(f"example-{index:03d}", image, group, question,
                                            answer, new_question, new_answer, meta, provenance))
        writer.finish(name="cvqa-real-example", suite="cvqa-real", version=VERSION,
                      generator={"name": "example:cvqa-real", "params": {}}, seed=seed)
