"""The oracle's scene of a CFMM-Synthetic pair, rebuilt with the generator's own sampling code
from the pair's seed and, for the shortcut-free design, the dealt answer (the plan's "answer
changes" choice is the one that reproduces the item's question and answer)."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from whatifbench.core.item import Item
from whatifbench.scenes.model import Scene
from whatifbench.scenes.source import SceneMissing, check_version


@functools.lru_cache(maxsize=4096)
def _rebuilt(template: str, changed: bool, pair_seed: int, design: str, answer: int,
             colors: tuple[str, str]) -> tuple[Scene, str, str, str, str]:
    from whatifbench.suites.cfmm.synth import sample

    s = sample(template, changed, random.Random(pair_seed), design, answer, colors)
    return (s.draw.scene, s.draw.basic, s.draw.question(s.premise), s.answers[0], s.answers[1])


def cfmm_synthetic(item: Item) -> Scene:
    """The scene of a CFMM-Synthetic item (``SceneMissing`` when it cannot be rebuilt)."""
    from whatifbench.suites.cfmm.synth import GENERATOR, VERSION

    check_version(item, GENERATOR, VERSION, ("template", "pair_seed"))
    p = item.provenance
    dealt = p.get("dealt") or {}
    design = str(p.get("design", "paper"))
    index, colors = int(dealt.get("answer", 0)), dealt.get("colors", ("", ""))
    tried = (True, False) if "changed" not in dealt else (bool(dealt["changed"]),)
    for changed in tried:
        scene, basic, cf, b, c = _rebuilt(str(p["template"]), changed, int(p["pair_seed"]),
                                          design, index, (str(colors[0]), str(colors[1])))
        text, answer = (basic, b) if item.role == "basic" else (cf, c)
        if text == item.question and answer == str(p.get("answer", item.target)):
            return scene
    raise SceneMissing(f"item {item.id}: the CFMM-Synthetic scene rebuilt from its seed does "
                       "not match the item's question; regenerate the dataset with this version "
                       "of whatifbench.")


class CfmmSyntheticScenes:
    """``SceneSource`` of CFMM-Synthetic items: both questions of a pair show its scene."""

    def learn(self, items: Sequence[Item]) -> None:
        """Nothing to learn: each scene is rebuilt from its own item."""

    def scenes(self, item: Item) -> list[Scene]:
        """The pair's scene for each of the item's images."""
        return [cfmm_synthetic(item)] * len(item.images)
