"""``whatif generate mucr-synthetic``: procedural cause → effect pairs with computed ground truth.

Each group of four pairs shares a kind of causality (a ball toppling a stack, a flame melting
the ice that holds blocks up, scissors cutting the rope that holds a block) and a drawing
style; the effect image is the cause scene after ``scenes.mechanics.consequence``. The pairs
become MuCR items exactly as imported release records do (``suites.mucr.items.make_items``),
so the MuCR suite, its metrics and tables apply unchanged; every item also carries the
generating program's record (``provenance.scene``).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.scenes.bodies import STYLES, to_scene
from whatifbench.scenes.render import render_png
from whatifbench.suites.mucr.items import make_items
from whatifbench.suites.mucr.prompts import CHOICE_METRICS
from whatifbench.suites.mucr.records import Record
from whatifbench.suites.mucr_synthetic.pairs import Pair, make_group
from whatifbench.suites.mucr_synthetic.sampling import HEIGHT, KINDS, WIDTH

VERSION = "1"
GENERATOR = "mucr-synthetic"


def group_plan(groups: int) -> list[tuple[str, str]]:
    """Kind and style of each group: every kind × style combination equally often."""
    return [(KINDS[g % len(KINDS)], STYLES[(g // len(KINDS)) % len(STYLES)])
            for g in range(groups)]


def build_groups(groups: int, seed: int) -> list[tuple[str, list[Pair]]]:
    """The style and four pairs of each group; group ``g`` is drawn from its own seed."""
    out = []
    for g, (kind, style) in enumerate(group_plan(groups)):
        rng = random.Random(f"{GENERATOR}:{seed}:{g}")
        out.append((style, make_group(kind, rng)))
    return out


def records_of(built: list[tuple[str, list[Pair]]]) -> list[tuple[Record, Pair]]:
    """MuCR records (ids ``1``, ``2`` … in group order) with their pairs."""
    out: list[tuple[Record, Pair]] = []
    for g, (style, pairs) in enumerate(built):
        ids = [str(4 * g + k + 1) for k in range(4)]
        for rid, pair in zip(ids, pairs, strict=True):
            out.append((Record(
                id=rid, line=int(rid), cause_caption=pair.captions[0],
                effect_caption=pair.captions[1], links=tuple(i for i in ids if i != rid),
                cue=pair.cue, false_cues=pair.false_cues, style=style, category=pair.kind,
                explanations=tuple((text,) for text in pair.explanations),
                cause_image=f"{rid}-cause.png", effect_image=f"{rid}-effect.png"), pair))
    return out


@register("generator", "mucr-synthetic")
class MucrSyntheticGenerator:
    """MuCR-style cause → effect pairs drawn by the scene engine, consequences computed."""

    version = VERSION

    @staticmethod
    def generate(out: str | Path, *, groups: int = 25, seed: int = 0,
                 overwrite: bool = False) -> Card:
        """Write ``groups`` groups of four pairs (four items per pair) to ``out``."""
        if groups < 1:
            raise WhatifError(f"--groups must be at least 1, got {groups}.")
        records = records_of(build_groups(groups, seed))
        with DatasetWriter(out, overwrite) as writer:
            paths: dict[str, str] = {}
            for record, pair in records:
                paths[record.cause_image] = writer.add_image(
                    record.cause_image, render_png(to_scene(pair.cause, record.style)))
                paths[record.effect_image] = writer.add_image(
                    record.effect_image, render_png(to_scene(pair.effect, record.style)))
            items = make_items([r for r, _ in records], paths, seed, GENERATOR)
            scenes = {r.id: p.provenance() for r, p in records}
            writer.add_items(
                replace(item, provenance={**item.provenance, "generator": GENERATOR,
                                          "version": VERSION, "scene": scenes[str(item.pair_id)]})
                for item in items)
            by = Counter((r.category, r.style) for r, _ in records)
            card = writer.finish(
                name="mucr-synthetic", suite="mucr", version=VERSION,
                generator={"name": GENERATOR, "params": {"groups": groups, "seed": seed,
                                                         "canvas": [WIDTH, HEIGHT]}},
                seed=seed,
                counts={"groups": groups,
                        "pairs_by_category": {k: sum(by[(k, s)] for s in STYLES)
                                              for k in KINDS},
                        "pairs_by_style": {s: sum(by[(k, s)] for k in KINDS) for s in STYLES}},
                extra={"answer_positions": {
                    m: dict(sorted(Counter(i.provenance["position"] for i in items
                                           if i.group == m).items())) for m in CHOICE_METRICS},
                    "categories": list(KINDS), "styles": list(STYLES)})
        return card

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """``--groups N``, ``--seed S``."""
        parser.add_argument("--groups", type=int, default=25, metavar="N",
                            help="groups of four pairs (default 25: 100 pairs, 400 items)")
        parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Generate from parsed command-line arguments."""
        MucrSyntheticGenerator.generate(args.out, groups=args.groups, seed=args.seed,
                                        overwrite=args.overwrite)
        return 0
