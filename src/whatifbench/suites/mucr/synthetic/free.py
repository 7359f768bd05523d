"""The shortcut-free design's pairs and items: every item draws its own scene.

A pair is three scenes of one kind of causality (``sites.Scenario``), with the same agent colour
and the same idle agents' colours: one for its C2E item (the cause of the pair's way, and the
four ways' effects as candidates), one for its E2C item (the effect, and the four ways'
causes), one for its Cue and Exp items (the cause and effect of the pair's way). No picture is
shown by two items, so that no item's answer can be read off another item's pictures (the
paper design shows a pair's cause as its C2E question and as one of its E2C candidates); a
picture shows what its item needs and nothing else. What a whole-dataset reader can still
infer is said on the card (``suites.mucr.suite``'s card text).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from whatifbench.core.item import Item
from whatifbench.scenes.bodies import World
from whatifbench.scenes.narrate import captions, explain, phrase
from whatifbench.suites.mucr.items import (
    _place,
    balanced_positions,
    cue_and_exp,
    record_meta,
    record_provenance,
)
from whatifbench.suites.mucr.prompts import CHOICE_METRICS, IMAGE_LABELS, LETTERS, QUESTIONS
from whatifbench.suites.mucr.records import Record
from whatifbench.suites.mucr.synthetic.sampling import AGENT_COLORS, BLOCK_COLORS, Reject
from whatifbench.suites.mucr.synthetic.sites import Scenario, draw_scenario

ATTEMPTS = 200
"""Draws of one scene before the group is given up."""
PARTS = ("c2e", "e2c", "pair")
"""A pair's scenes: its C2E item's, its E2C item's, its Cue and Exp items'."""


@dataclass(frozen=True)
class FreePair:
    """One shortcut-free pair: its three scenes and its annotations (of the ``pair`` scene)."""

    kind: str
    """Kind of causality."""
    scenes: dict[str, Scenario]
    """Per part (``PARTS``) its scene."""
    cue: str
    """The agent's phrase."""
    false_cues: tuple[str, ...]
    """The idle agents' phrases (the group's other agent colours)."""
    captions: tuple[str, str]
    """Short captions of the cause and the effect (``pair`` scene)."""
    explanations: tuple[str, str, str]
    """Cause image, effect image, causal link (``pair`` scene)."""

    def cause(self, part: str) -> World:
        """The pair's cause in one of its scenes."""
        s = self.scenes[part]
        return s.causes[s.true]

    def effect(self, part: str) -> World:
        """The pair's effect in one of its scenes."""
        s = self.scenes[part]
        return s.effects[s.true]

    def provenance(self) -> dict[str, Any]:
        """The generating program's record of the Cue/Exp scene (``provenance.scene``)."""
        s = self.scenes["pair"]
        return {"kind": self.kind, "agent": s.agents[s.true],
                "cause": self.cause("pair").to_json(), "effect": self.effect("pair").to_json(),
                "events": [e.to_json() for e in s.events[s.true]]}


def _scene(kind: str, rng: random.Random, palette: Sequence[str], agent: str,
           idle: Sequence[str]) -> Scenario:
    for _ in range(ATTEMPTS):
        try:
            return draw_scenario(kind, rng, palette, agent, idle)
        except Reject:
            continue
    raise RuntimeError(f"no {kind} scene fits after {ATTEMPTS} draws")


def make_free_group(kind: str, rng: random.Random) -> list[FreePair]:
    """Four pairs of one kind: the group's block palette, four agent colours (each pair's idle
    agents in the other three, so that the four Cue items offer the same four colours)."""
    palette = rng.sample(BLOCK_COLORS, 4)
    agents = rng.sample(AGENT_COLORS, 4)
    out = []
    for color in agents:
        idle = rng.sample([c for c in agents if c != color], 3)
        scenes = {part: _scene(kind, rng, palette, color, idle) for part in PARTS}
        s = scenes["pair"]
        cause, effect, agent = s.causes[s.true], s.effects[s.true], s.agents[s.true]
        out.append(FreePair(kind, scenes, phrase(cause.get(agent)),
                            tuple(phrase(cause.get(d)) for d in s.decoys),
                            captions(cause, agent, s.events[s.true]),
                            explain(cause, agent, effect, s.events[s.true])))
    return out


def pictures(pair: FreePair) -> list[tuple[str, str, World]]:
    """``(key, part, world)`` of every picture a pair shows: ``c2e-q`` (a cause) and ``c2e-0``
    … ``c2e-3`` (the four ways' effects), ``e2c-q`` (an effect) and ``e2c-0`` … (the causes),
    ``cause`` and ``effect`` (the Cue and Exp items')."""
    c2e, e2c = pair.scenes["c2e"], pair.scenes["e2c"]
    out = [("c2e-q", "cause", c2e.causes[c2e.true])]
    out += [(f"c2e-{k}", "effect", w) for k, w in enumerate(c2e.effects)]
    out += [("e2c-q", "effect", e2c.effects[e2c.true])]
    out += [(f"e2c-{k}", "cause", w) for k, w in enumerate(e2c.causes)]
    return out + [("cause", "cause", pair.cause("pair")),
                  ("effect", "effect", pair.effect("pair"))]


def old_name(record: str, key: str, part: str) -> str:
    """A picture's old-style name: ``12-cause.png`` for the Cue/Exp pictures, else
    ``12-c2e-q-cause.png``, ``12-c2e-2-effect.png`` … (record number, key, part)."""
    return f"{record}-{part}.png" if key == part else f"{record}-{key}-{part}.png"


def free_items(records: Sequence[tuple[Record, FreePair]], paths: dict[str, dict[str, str]],
               seed: int, source: str, ident: Callable[[Record, str], str],
               order_key: Callable[[str], str] | None = None) -> list[Item]:
    """Four items per pair, in record order. ``paths``: per record id, per picture key
    (``pictures``) its dataset path; each item's ``provenance.images`` holds, per picture, its
    pair, part and world (what the oracle's scenes read; the old-style names are the private
    file's); ``order_key`` gives the name of a record id that seeds the order of its options
    (default: the id; opaque ids pass ``generate.content_key``, so that no option order depends
    on the naming secret)."""
    key = order_key or str
    positions = {m: balanced_positions(len(records), seed, m) for m in CHOICE_METRICS}
    items: list[Item] = []
    for k, (r, pair) in enumerate(records):
        meta, common = record_meta(r), record_provenance(r, seed, source)
        shown = {name: {"pair": r.id, "part": part, "world": world.to_json()}
                 for name, part, world in pictures(pair)}
        mine = paths[r.id]
        for metric in ("c2e", "e2c"):
            scene, pos = pair.scenes[metric], positions[metric][k]
            ways = [w for w in range(len(scene.causes)) if w != scene.true]
            order = _place(str(scene.true), [str(w) for w in ways], pos, seed,
                           f"{metric}:{key(r.id)}")
            names = [f"{metric}-q", *(f"{metric}-{w}" for w in order)]
            items.append(_shown(names, shown, Item(
                id=ident(r, metric), images=tuple(mine[n] for n in names),
                question=QUESTIONS[metric], kind="choice", target=LETTERS[pos],
                choices=LETTERS, pair_id=r.id, role=metric, group=metric,
                meta={**meta, "image_labels": list(IMAGE_LABELS[metric])},
                provenance={**common, "metric": metric, "position": pos})))
        images = {r.cause_image: mine["cause"], r.effect_image: mine["effect"]}
        items += [_shown(["cause", "effect"], shown, item) for item in
                  cue_and_exp(r, positions["cue"][k], images, ident, seed, meta, common,
                              key(r.id))]
    return items


def _shown(keys: Sequence[str], shown: dict[str, dict[str, Any]], item: Item) -> Item:
    """``item`` with ``provenance.images``: per picture its pair, part and world (what the
    oracle's scenes read)."""
    return replace(item, provenance={**item.provenance, "images": [shown[k] for k in keys]})
