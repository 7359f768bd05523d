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
The ``shortcut-free`` design (``free``: every item draws its own scene, the C2E/E2C candidates
four ways it could go) names every pair, item and image by an HMAC under the naming secret
(``scenes.opaque``, ``core.namekey``), deals the pairs in a seeded order and writes the items by
id; the old-style names, pair numbers and groups go to the private file (``core.private``). Each
item's ``provenance.images`` keeps, per image, its pair, part and world, so the oracle's scenes
need no other item (no export carries it).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from whatifbench.core.card import Card
from whatifbench.core.contract import Demo
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.design import DEFAULT_DESIGN, PAPER, SHORTCUT_FREE, check_design
from whatifbench.core.namekey import name_key
from whatifbench.core.params import SECRET, Design, Executor, Param, card_params, declared
from whatifbench.core.registry import register
from whatifbench.runner.executors.config import JobMap
from whatifbench.scenes.bodies import STYLES, to_scene
from whatifbench.scenes.opaque import Namer, Telling, Unique
from whatifbench.scenes.render import render_png
from whatifbench.suites.mucr.items import make_items
from whatifbench.suites.mucr.prompts import CHOICE_METRICS
from whatifbench.suites.mucr.records import Record
from whatifbench.suites.mucr.synthetic.free import (
    FreePair,
    free_items,
    make_free_group,
    old_name,
    pictures,
)
from whatifbench.suites.mucr.synthetic.identity import GENERATOR, VERSION
from whatifbench.suites.mucr.synthetic.pairs import Pair, make_group
from whatifbench.suites.mucr.synthetic.sampling import HEIGHT, KINDS, WIDTH
from whatifbench.suites.mucr.synthetic.scenes import MucrSyntheticScenes

SHARD = 4
"""Groups per Ray task."""

WHOLE_DATASET = (
    "What a reader of the whole dataset can infer (a harness that asks one item at a time shows "
    "none of it; few-shot demonstrations never come from an item's own pair or group): no "
    "picture is shown by two items (each draws its own scene); a pair's Exp question names its "
    "cue, the answer of the pair's Cue item (whatif audit: the 'other items' probe); a pair's "
    "items share the agent's colour, which its C2E and E2C pictures show to a reader who works "
    "them out.")
"""``card.extra["whole_dataset_reader"]`` of the shortcut-free design."""


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


FreeDrawn = tuple[str, list[FreePair], list[list[tuple[str, bytes]]]]
"""A shortcut-free group: its style, pairs, and per pair its pictures' keys and PNGs."""


def draw_free_shard(shard: Shard) -> list[FreeDrawn]:
    """The shortcut-free groups ``first`` … ``end - 1``: style, pairs and their pictures."""
    first, end, groups, seed, _ = shard
    plan = group_plan(groups)
    out = []
    for g in range(first, end):
        kind, style = plan[g]
        pairs = make_free_group(kind, random.Random(f"{GENERATOR}:{seed}:{g}"))
        out.append((style, pairs, [[(key, render_png(to_scene(world, style)))
                                    for key, _, world in pictures(p)] for p in pairs]))
    return out


def draw_free(groups: int, seed: int, executor: JobMap | None = None) -> Iterator[FreeDrawn]:
    """``draw_free_shard`` over every group in order, here or in Ray tasks."""
    shards = [(g, min(g + SHARD, groups), groups, seed, SHORTCUT_FREE)
              for g in range(0, groups, SHARD)]
    drawn = (executor.map(draw_free_shard, shards) if executor is not None
             else map(draw_free_shard, shards))
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
    """What seeds the option order of pair ``rid``'s items: the unkeyed hash earlier versions
    named the pair by (public, like the seed, and independent of the naming secret), so that
    the items' content stays what it was and another secret changes only the names."""
    return hashlib.sha256(f"{GENERATOR}:{seed}:pair:{rid}".encode()).hexdigest()[:16]


def item_id(namer: Namer) -> Callable[[Record, str], str]:
    """Opaque item ids: keyed by the (opaque) pair id and the metric."""
    return lambda record, metric: namer.name("item", record.id, metric)


@register("generator", "mucr-synthetic")
class MucrSyntheticGenerator:
    """MuCR-style cause → effect pairs drawn by the scene engine, consequences computed."""

    version = VERSION
    suite = "mucr"
    """The suite of the datasets it writes."""
    scene_source = MucrSyntheticScenes
    """The oracle's scenes of its items (``scenes.source``)."""
    demo = Demo(params={"groups": 5, "design": DEFAULT_DESIGN},
                small={"groups": 2, "design": DEFAULT_DESIGN})
    """20 generated pairs: the suite's example (the inspect task's default)."""

    @staticmethod
    @declared
    def generate(
        out: str | Path, *,
        groups: Annotated[int, Param("groups of four pairs (default 25: 100 pairs, 400 items)",
                                     metavar="N", low=1)] = 25,
        seed: Annotated[int, Param("random seed")] = 0,
        design: Annotated[str, Design(
            "the C2E/E2C candidates are four ways the question's own scene could go, the "
            "Cue's false cues three idle agents of the cue's kind, and every item draws its "
            "own scene")] = SHORTCUT_FREE,
        overwrite: bool = False,
        executor: Annotated[JobMap | None, Executor()] = None,
        secret_file: Annotated[str | Path | None, SECRET] = None) -> Card:
        """Write ``groups`` groups of four pairs (four items per pair) to ``out``; with
        ``executor`` the groups are drawn in Ray tasks (same output); ``secret_file``: the
        naming secret of the shortcut-free design's opaque names (``core.namekey``; default:
        the home secret)."""
        params = {**card_params(MucrSyntheticGenerator.generate, locals()),
                  "canvas": [WIDTH, HEIGHT]}
        if check_design(design) != PAPER:
            return _generate_free(out, groups, seed, overwrite, executor, secret_file, params)
        with DatasetWriter(out, overwrite) as writer:
            paths: dict[str, str] = {}
            unique = Unique("images")
            records: list[tuple[Record, Pair]] = []
            for g, (style, pairs, pngs) in enumerate(draw_all(groups, seed, executor, design)):
                for (record, pair), (cause, effect) in zip(records_of([(style, pairs)], first=g),
                                                           pngs, strict=True):
                    for name, data in ((record.cause_image, cause),
                                       (record.effect_image, effect)):
                        paths[name] = writer.add_image(unique.check(name, name), data)
                    records.append((record, pair))
            items = make_items([r for r, _ in records], paths, seed, GENERATOR)
            scenes = {r.id: p.provenance() for r, p in records}
            writer.add_items(replace(item, provenance={
                **item.provenance, "generator": GENERATOR, "version": VERSION,
                "scene": scenes[str(item.pair_id)]}) for item in items)
            by = Counter((r.category, r.style) for r, _ in records)
            card = writer.finish(
                name="mucr-synthetic", suite="mucr", version=VERSION,
                generator={"name": GENERATOR, "params": params},
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


def _generate_free(out: str | Path, groups: int, seed: int, overwrite: bool,
                   executor: JobMap | None, secret_file: str | Path | None,
                   params: dict[str, Any]) -> Card:
    """The shortcut-free design (``free``): every item its own scene, four ways each; names
    keyed by the naming secret (the old-style ones go to the private file), items by id;
    ``params``: the card's generator params."""
    secret = name_key(secret_file)
    namer, telling = Namer(secret, (GENERATOR, seed)), Telling(secret)
    with DatasetWriter(out, overwrite) as writer:
        unique = Unique("images")
        records: list[tuple[Record, FreePair]] = []
        paths: dict[str, dict[str, str]] = {}
        numbers: dict[str, str] = {}  # pair id → what seeds its options' order
        for g, (style, pairs, pngs) in enumerate(draw_free(groups, seed, executor)):
            ids = [str(4 * g + k + 1) for k in range(4)]
            for rid, pair, drawn in zip(ids, pairs, pngs, strict=True):
                record = opaque_record(Record(
                    id=rid, line=int(rid), cause_caption=pair.captions[0],
                    effect_caption=pair.captions[1], links=tuple(i for i in ids if i != rid),
                    cue=pair.cue, false_cues=pair.false_cues, style=style,
                    category=pair.kind,
                    explanations=tuple((text,) for text in pair.explanations),
                    cause_image=f"{rid}-cause.png", effect_image=f"{rid}-effect.png"), namer)
                numbers[record.id] = content_key(rid, seed)
                paths[record.id] = {
                    part: writer.add_image(unique.check(namer.file("image", rid, part),
                                                        f"{rid}-{part}"), data)
                    for part, data in drawn}
                telling.add("pairs", record.id, {"pair": rid, "group": g})
                for part, shows, _ in pictures(pair):
                    telling.add("images", paths[record.id][part], old_name(rid, part, shows))
                records.append((record, pair))
        random.Random(f"{GENERATOR}:order:{seed}").shuffle(records)
        items = free_items(records, paths, seed, GENERATOR, item_id(namer),
                           order_key=numbers.__getitem__)
        scenes = {r.id: p.provenance() for r, p in records}
        writer.add_items(sorted((replace(item, provenance={  # by id: the order says nothing
            **item.provenance, "generator": GENERATOR, "version": VERSION,
            "scene": scenes[str(item.pair_id)]}) for item in items), key=lambda i: i.id))
        writer.private = telling.private()
        by = Counter((r.category, r.style) for r, _ in records)
        return writer.finish(
            name="mucr-synthetic", suite="mucr", version=VERSION,
            generator={"name": GENERATOR, "params": params},
            seed=seed,
            counts={"groups": groups,
                    "pairs_by_category": {k: sum(by[(k, s)] for s in STYLES) for k in KINDS},
                    "pairs_by_style": {s: sum(by[(k, s)] for k in KINDS) for s in STYLES}},
            extra={"answer_positions": {
                m: dict(sorted(Counter(i.provenance["position"] for i in items
                                       if i.group == m).items())) for m in CHOICE_METRICS},
                "categories": list(KINDS), "styles": list(STYLES),
                "whole_dataset_reader": WHOLE_DATASET})
