"""The oracle's scene of a C-VQA-Synthetic image, rebuilt with the generator's own sampling code
from the image's seed (and, for the shortcut-free design, the dealt answer), checked against the
answer stored on the item: deterministic, a few milliseconds per image."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from whatifbench.core.item import Item
from whatifbench.scenes.model import Scene
from whatifbench.scenes.source import SceneMissing, check_version
from whatifbench.suites.cvqa.synthetic.identity import GENERATOR


@functools.lru_cache(maxsize=4096)
def _rebuilt(template: int, image_seed: int, dealt: tuple[int, int] | None
             ) -> tuple[Scene, tuple[int, int]]:
    from whatifbench.suites.cvqa.synthetic.pair import sample, sample_planned

    rng = random.Random(image_seed)
    s = sample(template, rng) if dealt is None else sample_planned(template, rng, dealt)
    return s.scene, s.answers


def cvqa_synthetic(item: Item) -> Scene:
    """The scene of a C-VQA-Synthetic image (``SceneMissing`` when it cannot be rebuilt)."""
    from whatifbench.suites.cvqa.synthetic.pair import VERSION

    check_version(item, GENERATOR, VERSION, ("template", "image_seed"))
    p = item.provenance
    dealt = None
    if p.get("design") == "shortcut-free":
        found = p.get("dealt")
        if not isinstance(found, list) or len(found) != 2:
            raise SceneMissing(f"item {item.id}: its provenance lacks the dealt answers of the "
                               "shortcut-free design; regenerate the dataset with this version "
                               "of whatifbench.")
        dealt = (int(found[0]), int(found[1]))
    scene, answers = _rebuilt(int(p["template"]), int(p["image_seed"]), dealt)
    expected = answers[0] if item.role == "original" else answers[1]
    if "answer" in p and p["answer"] != expected:
        raise SceneMissing(f"item {item.id}: the C-VQA-Synthetic scene rebuilt from its seed "
                           "gives another answer than the item's; regenerate the dataset with "
                           "this version of whatifbench.")
    return scene


class CvqaSyntheticScenes:
    """``SceneSource`` of C-VQA-Synthetic items: every image of an item shows its scene."""

    def learn(self, items: Sequence[Item]) -> None:
        """Nothing to learn: each scene is rebuilt from its own item."""

    def scenes(self, item: Item) -> list[Scene]:
        """The item's scene for each of its images."""
        return [cvqa_synthetic(item)] * len(item.images)
