"""Groups of four cause/effect pairs: sampled causes, computed effects, validity filters, cue
phrases and reference explanations.

A group shares its kind of causality, drawing style and block colours; its four pairs differ in
layout and in the colour of the agent (the visual cue). Scenes are rejected and drawn again
when bodies touch or leave the canvas, when the consequence changes nothing, when fewer than
three other objects can be named unambiguously (false cues), or when two causes or two effects
of the group look alike (``world_distance`` below ``MIN_DISTANCE``).

False cues by design: ``paper`` names other objects of the cause picture, the decoy agent (if
any) first, so the one agent among the phrases is the cue; ``shortcut-free`` names three decoy
agents of the cue's own kind, every one in the picture and none acting, in the colours of the
group's other agents, so the four phrases differ only in colour, the four Cue items of a group
offer the same four colours, and the picture decides.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from whatifbench.core.design import PAPER
from whatifbench.scenes.bodies import Body, World, motion_lines, world_distance
from whatifbench.scenes.mechanics import Event, consequence
from whatifbench.scenes.narrate import captions, explain, phrase
from whatifbench.suites.mucr.synthetic.sampling import (
    AGENT_COLORS,
    BLOCK_COLORS,
    SAMPLERS,
    Reject,
)

MIN_DISTANCE = 30.0
"""Least ``world_distance`` between two causes (or two effects) of a group."""
SEPARATION = 2
"""Least number of empty pixels between two bodies' boxes."""
ATTEMPTS = 400
"""Draws per pair before the group is started again."""
CUE_KINDS = ("block", "ice", "ball", "flame", "scissors", "beam")


class GroupFailed(RuntimeError):
    """No valid group could be drawn (never expected with the default parameters)."""


@dataclass(frozen=True)
class Pair:
    """One cause/effect pair and its annotations."""

    kind: str
    """Kind of causality (``topple``, ``melt``, ``cut``)."""
    cause: World
    """The cause scene."""
    effect: World
    """The effect scene, computed by ``mechanics.consequence``."""
    agent: str
    """Id of the body that triggers the consequence."""
    events: tuple[Event, ...]
    """What happened."""
    cue: str
    """The trigger's phrase."""
    false_cues: tuple[str, ...]
    """Three phrases naming other objects of the cause scene."""
    captions: tuple[str, str]
    """Short captions of the cause and the effect."""
    explanations: tuple[str, str, str]
    """Cause image, effect image, causal link."""

    def provenance(self) -> dict[str, Any]:
        """The generating program's record (stored on every item of the pair)."""
        return {"kind": self.kind, "agent": self.agent, "cause": self.cause.to_json(),
                "effect": self.effect.to_json(), "events": [e.to_json() for e in self.events]}


def _boxes(world: World) -> list[tuple[str, tuple[int, int, int, int]]]:
    out: list[tuple[str, tuple[int, int, int, int]]] = []
    for b in world.bodies:
        out.append((b.kind, (b.x0, b.y0, b.x1, b.y1)))
        if b.kind == "ball":
            out += [("line", box) for box in motion_lines(b)]
    return out


def problems(world: World) -> str | None:
    """Why a world cannot be drawn and read back (``None`` when it can)."""
    boxes = _boxes(world)
    for kind, (x0, y0, x1, y1) in boxes:
        if kind != "ground" and (x0 < 2 or y0 < 2 or x1 > world.width - 3
                                 or y1 > world.height - 1):
            return f"a {kind} leaves the canvas"
    s = SEPARATION
    for i, (ka, a) in enumerate(boxes):
        for kb, b in boxes[i + 1:]:
            if "ground" in (ka, kb) and "puddle" in (ka, kb):
                continue
            if a[0] - s <= b[2] and b[0] - s <= a[2] and a[1] - s <= b[3] and b[1] - s <= a[3]:
                return f"a {ka} and a {kb} touch"
    return None


def false_cues(world: World, agent: str, decoy: str | None, excluded: tuple[str, ...],
               rng: random.Random) -> tuple[str, ...] | None:
    """Three phrases naming other objects (the decoy agent first), each naming exactly one
    body of the scene; ``None`` when there are not three such objects."""
    counts: dict[tuple[str, str], int] = {}
    for b in world.bodies:
        counts[(b.kind, b.color)] = counts.get((b.kind, b.color), 0) + 1
    named = [b for b in world.bodies if b.kind in CUE_KINDS and b.id != agent
             and b.id not in excluded and counts[(b.kind, b.color)] == 1]
    first = [b for b in named if b.id == decoy]
    rest = [b for b in named if b.id != decoy]
    rng.shuffle(rest)
    chosen = (first + rest)[:3]
    return tuple(phrase(b) for b in chosen) if len(chosen) == 3 else None


def _pair(kind: str, rng: random.Random, palette: list[str], agent_color: str,
          decoy_colors: tuple[str, ...], design: str) -> Pair | None:
    """One valid pair, or ``None`` for a rejected draw."""
    try:
        sampled = SAMPLERS[kind](rng, palette, agent_color, decoy_colors, design != PAPER)
    except Reject:
        return None
    cause = sampled.world
    effect, events = consequence(cause, sampled.agent)
    if not any(e.what in ("fell", "toppled") for e in events):
        return None
    if problems(cause) or problems(effect):
        return None
    agent: Body = cause.get(sampled.agent)
    if sum(1 for b in cause.bodies if (b.kind, b.color) == (agent.kind, agent.color)) != 1:
        return None
    if design == PAPER:
        cues = false_cues(cause, sampled.agent, sampled.decoys[0] if sampled.decoys else None,
                          sampled.unaffected, rng)
    else:
        cues = tuple(phrase(cause.get(d)) for d in sampled.decoys)
    if cues is None:
        return None
    return Pair(kind, cause, effect, sampled.agent, tuple(events), phrase(agent), cues,
                captions(cause, sampled.agent, events),
                explain(cause, sampled.agent, effect, events))


def _distinct(pair: Pair, others: list[Pair]) -> bool:
    return all(world_distance(pair.cause, o.cause) >= MIN_DISTANCE
               and world_distance(pair.effect, o.effect) >= MIN_DISTANCE for o in others)


def decoy_colors(rng: random.Random, agent: str, design: str,
                 group: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Colours of the decoy agents: one other colour (``paper``), three (``shortcut-free``:
    the colours of the group's other three agents, in a seeded order, so that the four Cue
    items of a group offer the same four colours, each right in one of them: no colour marks
    the cue, and the group's options, read together, tell nothing either)."""
    others = [c for c in (group or AGENT_COLORS) if c != agent]
    if design == PAPER:
        return (rng.choice(others),)
    return tuple(rng.sample(others, 3))


def make_group(kind: str, rng: random.Random, design: str = PAPER) -> list[Pair]:
    """Four valid, mutually distinct pairs of one kind of causality."""
    for _ in range(20):
        palette = rng.sample(BLOCK_COLORS, 4)
        agents = rng.sample(AGENT_COLORS, 4)
        pairs: list[Pair] = []
        for color in agents:
            decoys = decoy_colors(rng, color, design, () if design == PAPER else tuple(agents))
            for _attempt in range(ATTEMPTS):
                pair = _pair(kind, rng, palette, color, decoys, design)
                if pair is not None and _distinct(pair, pairs):
                    pairs.append(pair)
                    break
            else:
                break
        if len(pairs) == 4:
            return pairs
    raise GroupFailed(f"no valid group of kind {kind!r} could be drawn")
