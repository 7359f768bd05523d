"""``whatif generate mucr-synthetic``: procedural cause → effect pairs with computed ground truth.

Each group of four pairs shares a kind of causality (a ball toppling a stack, a flame melting
the ice that holds blocks up, scissors cutting the rope that holds a block) and a drawing
style; the effect image is the cause scene after ``scenes.mechanics.consequence``. The pairs
become MuCR items exactly as imported release records do (``suites.mucr.items.make_items``),
so the MuCR suite, its metrics and tables apply unchanged; every item also carries the
generating program's record (``provenance.scene``). ``--design`` chooses the false cues
(``pairs``): ``shortcut-free`` (the default) or ``paper`` (the earlier output, byte for byte).

The ``paper`` design names pairs ``1``, ``2`` … in group order and images ``<pair>-cause.png``,
so a candidate's file name gives the C2E/E2C answer away and consecutive ids give the groups.
The ``shortcut-free`` design names every pair, item and image by an HMAC under the naming secret
(``scenes.opaque``, ``core.namekey``), deals the pairs in a seeded order and writes the items by
id; the old-style names, pair numbers and groups go to the private file (``core.private``). Each
item's ``provenance.images`` keeps, per image, its pair and part, and the world of every image
not of its own pair (``provenance.scene`` holds its own), so the oracle's scenes need no other
item (no export carries either).
"""

from __future__ import annotations

import argparse
import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.cli.options import (
    add_design_argument,
    add_executor_arguments,
    add_secret_argument,
    generator_jobs,
)
from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.design import PAPER, SHORTCUT_FREE, check_design
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.runner.executors.config import JobMap
from whatifbench.scenes.bodies import STYLES, to_scene
from whatifbench.scenes.opaque import Namer, Telling, Unique, opaque_naming
from whatifbench.scenes.render import render_png
from whatifbench.suites.mucr.items import make_items
from whatifbench.suites.mucr.prompts import CHOICE_METRICS
from whatifbench.suites.mucr.records import Record
from whatifbench.suites.mucr.synthetic.identity import GENERATOR, VERSION
from whatifbench.suites.mucr.synthetic.pairs import Pair, make_group
from whatifbench.suites.mucr.synthetic.sampling import HEIGHT, KINDS, WIDTH
from whatifbench.suites.mucr.synthetic.scenes import MucrSyntheticScenes

SHARD = 4
"""Groups per Ray task."""


def group_plan(groups: int) -> list[tuple[str, str]]:
    """Kind and style of each group: every kind × style combination equally often."""
    return [(KINDS[g % len(KINDS)], STYLES[(g // len(KINDS)) % len(STYLES)])
            for g in range(groups)]


def _group(g: int, kind: str, seed: int, design: str) -> list[Pair]:
    return make_group(kind, random.Random(f"{GENERATOR}:{seed}:{g}"), design)


Shard = tuple[int, int, int, int, str]
"""(first group, end, number of groups, seed, design) of one piece of work."""


def draw_shard(shard: Shard) -> list[tuple[str, list[Pair], list[tuple[bytes, bytes]]]]:
    """Groups ``first`` … ``end - 1``: style, pairs, and each pair's cause and effect PNGs."""
    first, end, groups, seed, design = shard
    plan = group_plan(groups)
    out = []
    for g in range(first, end):
        kind, style = plan[g]
        pairs = _group(g, kind, seed, design)
        canonical = design != PAPER  # the paper design's bytes: the palette as drawn
        out.append((style, pairs, [(render_png(to_scene(p.cause, style), canonical),
                                    render_png(to_scene(p.effect, style), canonical))
                                   for p in pairs]))
    return out


def draw_all(groups: int, seed: int, executor: JobMap | None = None,
             design: str = SHORTCUT_FREE
             ) -> Iterator[tuple[str, list[Pair], list[tuple[bytes, bytes]]]]:
    """``draw_shard`` over every group in order, here or in Ray tasks of ``SHARD`` groups each
    (the output does not depend on where)."""
    shards = [(g, min(g + SHARD, groups), groups, seed, design)
              for g in range(0, groups, SHARD)]
    drawn = executor.map(draw_shard, shards) if executor is not None else map(draw_shard, shards)
    for shard in drawn:
        yield from shard


def records_of(built: list[tuple[str, list[Pair]]], first: int = 0
               ) -> list[tuple[Record, Pair]]:
    """MuCR records (ids ``1``, ``2`` … in group order, counting from group ``first``) with
    their pairs."""
    out: list[tuple[Record, Pair]] = []
    for g, (style, pairs) in enumerate(built, start=first):
        ids = [str(4 * g + k + 1) for k in range(4)]
        for rid, pair in zip(ids, pairs, strict=True):
            out.append((Record(
                id=rid, line=int(rid), cause_caption=pair.captions[0],
                effect_caption=pair.captions[1], links=tuple(i for i in ids if i != rid),
                cue=pair.cue, false_cues=pair.false_cues, style=style, category=pair.kind,
                explanations=tuple((text,) for text in pair.explanations),
                cause_image=f"{rid}-cause.png", effect_image=f"{rid}-effect.png"), pair))
    return out


def opaque_record(record: Record, namer: Namer) -> Record:
    """The record under opaque names (``scenes.opaque``): its id, links and image names keyed
    by the old-style pair number, never by anything answers depend on; its line (the pair
    number, which ``provenance.source`` would carry) is 0."""
    def pair(rid: str) -> str:
        return namer.name("pair", rid)

    return replace(record, id=pair(record.id), line=0, links=tuple(pair(i) for i in record.links),
                   cause_image=namer.file("image", record.id, "cause"),
                   effect_image=namer.file("image", record.id, "effect"))


def content_key(rid: str, seed: int) -> str:
    """What seeds the option order of pair ``rid``'s items in the shortcut-free design: the
    unkeyed hash earlier versions named the pair by (public, like the seed, and independent of
    the naming secret), so that the items' content stays what it was."""
    return hashlib.sha256(f"{GENERATOR}:{seed}:pair:{rid}".encode()).hexdigest()[:16]


def shown_images(record: Record, paths: dict[str, str], pair: Pair
                 ) -> dict[str, dict[str, Any]]:
    """Per dataset path of the record's two images: what it shows (pair, part, world), for the
    oracle's scenes (``provenance.images``; no export carries it)."""
    return {paths[name]: {"pair": record.id, "part": part, "world": world.to_json()}
            for name, part, world in ((record.cause_image, "cause", pair.cause),
                                      (record.effect_image, "effect", pair.effect))}


def with_images(item: Item, shown: dict[str, dict[str, Any]]) -> Item:
    """``item`` with ``provenance.images``: per image its pair and part, and the world of
    images of other pairs (the item's own are in ``provenance.scene``)."""
    entries = [{k: v for k, v in shown[path].items()
                if k != "world" or shown[path]["pair"] != item.pair_id} for path in item.images]
    return replace(item, provenance={**item.provenance, "images": entries})


def item_id(namer: Namer) -> Callable[[Record, str], str]:
    """Opaque item ids: keyed by the (opaque) pair id and the metric."""
    return lambda record, metric: namer.name("item", record.id, metric)


def _tell(telling: Telling, record: Record, old: Record, group: int,
          paths: dict[str, str]) -> None:
    """The telling names of one pair: its number, group and old-style image names."""
    telling.add("pairs", record.id, {"pair": old.id, "group": group})
    for name, was in ((record.cause_image, old.cause_image),
                      (record.effect_image, old.effect_image)):
        telling.add("images", paths[name], was)


@register("generator", "mucr-synthetic")
class MucrSyntheticGenerator:
    """MuCR-style cause → effect pairs drawn by the scene engine, consequences computed."""

    version = VERSION
    suite = "mucr"
    """The suite of the datasets it writes."""
    scene_source = MucrSyntheticScenes
    """The oracle's scenes of its items (``scenes.source``)."""

    @staticmethod
    def generate(out: str | Path, *, groups: int = 25, seed: int = 0,
                 design: str = SHORTCUT_FREE, overwrite: bool = False,
                 executor: JobMap | None = None, secret_file: str | Path | None = None) -> Card:
        """Write ``groups`` groups of four pairs (four items per pair) to ``out``; with
        ``executor`` the groups are drawn in Ray tasks (same output); ``secret_file``: the
        naming secret of the shortcut-free design's opaque names (``core.namekey``; default:
        the home secret)."""
        if groups < 1:
            raise WhatifError(f"--groups must be at least 1, got {groups}.")
        namer, telling = opaque_naming(check_design(design), secret_file, GENERATOR, seed)
        with DatasetWriter(out, overwrite) as writer:
            paths: dict[str, str] = {}
            shown: dict[str, dict[str, Any]] = {}
            unique = Unique("images")
            records: list[tuple[Record, Pair]] = []
            old_ids: dict[str, str] = {}
            for g, (style, pairs, pngs) in enumerate(draw_all(groups, seed, executor, design)):
                group = records_of([(style, pairs)], first=g)
                for (old, pair), (cause, effect) in zip(group, pngs, strict=True):
                    record = old if namer is None else opaque_record(old, namer)
                    old_ids[record.id] = old.id if namer is None else content_key(old.id, seed)
                    for name, was, data in ((record.cause_image, old.cause_image, cause),
                                            (record.effect_image, old.effect_image, effect)):
                        paths[name] = writer.add_image(unique.check(name, was), data)
                    if telling is not None:
                        shown |= shown_images(record, paths, pair)
                        _tell(telling, record, old, g, paths)
                    records.append((record, pair))
            if namer is not None:  # no group read from the order of the pairs
                random.Random(f"{GENERATOR}:order:{seed}").shuffle(records)
            items = make_items([r for r, _ in records], paths, seed, GENERATOR,
                               None if namer is None else item_id(namer),
                               order_key=old_ids.__getitem__)
            scenes = {r.id: p.provenance() for r, p in records}
            stamped = [replace(item, provenance={
                **item.provenance, "generator": GENERATOR, "version": VERSION,
                "scene": scenes[str(item.pair_id)]}) for item in items]
            if telling is None:
                writer.add_items(stamped)
            else:  # written by id: the file's order says nothing
                writer.add_items(sorted((with_images(i, shown) for i in stamped),
                                        key=lambda item: item.id))
                writer.private = telling.private()
            by = Counter((r.category, r.style) for r, _ in records)
            card = writer.finish(
                name="mucr-synthetic", suite="mucr", version=VERSION,
                generator={"name": GENERATOR, "params": {"groups": groups, "seed": seed,
                                                         "canvas": [WIDTH, HEIGHT],
                                                         "design": design}},
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
        """``--groups N``, ``--seed S``, ``--design paper|shortcut-free``."""
        parser.add_argument("--groups", type=int, default=25, metavar="N",
                            help="groups of four pairs (default 25: 100 pairs, 400 items)")
        parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        add_design_argument(parser, SHORTCUT_FREE,
                            "the Cue's false cues are three idle agents of the cue's kind, "
                            "so its phrases differ only in colour")
        add_secret_argument(parser)
        add_executor_arguments(parser, "generate")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Generate from parsed command-line arguments."""
        with generator_jobs(args) as executor:
            MucrSyntheticGenerator.generate(args.out, groups=args.groups, seed=args.seed,
                                            design=args.design, overwrite=args.overwrite,
                                            executor=executor, secret_file=args.secret_file)
        return 0
