"""The shortcut-free design's scenes: one scene, four ways it could go.

In the paper design a C2E item's candidate effects are the effects of the group's other pairs:
other scenes. The right one is then the only candidate drawn in the question's scene, and
picking the picture most like the question's, pixel by pixel, finds it (99 % of C2E and E2C
items). Here every candidate comes from the question's own scene: the scene holds four
*ways* (sites where the agent could act), every way is drawn before and after, and the
candidates of a C2E item are the four "after" pictures (of an E2C item, the four "before"
ones). Each candidate then differs from the question's picture by one agent and one changed
site, whichever way is right, so that similarity sorts nothing (``builtin:pixel-match`` scores
chance); what tells them apart is which site the agent acts on.

- ``topple``: two blocks, each with a ball on either side, the four balls in the group's four
  agent colours; a way is one ball rolling (its motion lines) into its block, which topples
  away from it and where the ball stops. The resting balls are the Cue's false cues.
- ``melt``: four ice blocks, each holding a block; a way is the flame beside one of them
  (melting it; the flame then burns out). Three idle flames stand on a shelf.
- ``cut``: four blocks on ropes from the beam; a way is the scissors beside one rope (cutting
  it; the scissors are then used up). Three idle scissors lie on the ground.

The flame and the scissors go once they have acted (``mechanics.consequence(spent=True)``):
an agent that stayed would make the right cause the only one without a second difference from
the effect. Everything is drawn at fixed small sizes so that four ways fit the picture.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from whatifbench.scenes.bodies import GAP, MOTION, MOTION_GAP, Body, World
from whatifbench.scenes.mechanics import REACH, Event, consequence
from whatifbench.suites.mucr.synthetic.sampling import (
    BEAM,
    FLOOR,
    GROUND_Y,
    HEIGHT,
    MARGIN,
    WIDTH,
    Reject,
)

WAYS = 4
"""Ways a scene can go (the candidates of a C2E or E2C item)."""
BALL = 6
"""Radius of every ball (the balls of a scene look alike but for their colour)."""
LINES = MOTION_GAP + max(length for _, length in MOTION) + 2
"""Room a rolling ball's motion lines take behind it."""
SHELF = (8, 60, WIDTH - 9, 67)
"""The shelf idle flames stand on (melt)."""


@dataclass(frozen=True)
class Scenario:
    """A scene and its four ways."""

    kind: str
    """``topple``, ``melt`` or ``cut``."""
    causes: tuple[World, ...]
    """Per way, the scene before (its agent about to act)."""
    effects: tuple[World, ...]
    """Per way, the scene after (``mechanics.consequence``, agents spent)."""
    agents: tuple[str, ...]
    """Per way, the id of the acting body."""
    events: tuple[tuple[Event, ...], ...]
    """Per way, what happened."""
    true: int
    """The way whose agent has the pair's colour."""
    decoys: tuple[str, ...]
    """Ids of the idle agents of the true way's cause (the Cue's false cues), in the order of
    the decoy colours."""


def _ground(width: int = WIDTH) -> Body:
    return Body("ground", "ground", "gray", 0, GROUND_Y, width - 1, HEIGHT - 1)


def _spread(rng: random.Random, slack: int, parts: int) -> list[int]:
    """``slack`` pixels cut at random into ``parts`` non-negative pieces."""
    cuts = sorted(rng.randint(0, slack) for _ in range(parts - 1))
    return [b - a for a, b in zip([0, *cuts], [*cuts, slack], strict=True)]


def _topple(rng: random.Random, palette: Sequence[str], colors: Sequence[str]
            ) -> tuple[list[World], list[str]]:
    """Two blocks with a ball on each side (``colors``: left to right); way ``k`` is ball
    ``k`` rolling towards its block. Between a ball and its block lies room for the block
    toppled towards the ball (by the ball on the other side)."""
    blocks = [(rng.choice((12, 14, 16)), rng.choice((22, 24, 26, 28))) for _ in range(2)]
    ball = 2 * BALL + 1
    fall = [h + GAP + 4 for _, h in blocks]  # a toppled block lies GAP + 1 beyond its foot
    need = 3 * LINES + 4 * ball + 2 * (fall[0] + fall[1]) + blocks[0][0] + blocks[1][0]
    slack = WIDTH - 2 * MARGIN - need
    if slack < 0:
        raise Reject("no room for two blocks and four balls")
    extra = iter(_spread(rng, slack, 7))
    x = MARGIN + next(extra) + LINES
    bodies = [_ground()]
    balls: list[Body] = []
    for s, ((w, h), span) in enumerate(zip(blocks, fall, strict=True)):
        left = Body(f"ball-{2 * s + 1}", "ball", colors[2 * s], x, FLOOR - 2 * BALL,
                    x + ball - 1, FLOOR)
        x += ball + span + next(extra)
        block = Body(f"block-{s + 1}", "block", rng.choice(palette), x, FLOOR - h + 1,
                     x + w - 1, FLOOR)
        x += w + span + next(extra)
        right = Body(f"ball-{2 * s + 2}", "ball", colors[2 * s + 1], x, FLOOR - 2 * BALL,
                     x + ball - 1, FLOOR)
        x += ball + LINES + (next(extra) if s == 0 else 0)
        bodies += [left, block, right]
        balls += [left, right]
    base = World(WIDTH, HEIGHT, tuple(bodies))
    causes = [base.with_bodies(replace(o, facing=1 if k % 2 == 0 else -1) if o.id == b.id
                               else o for o in base.bodies) for k, b in enumerate(balls)]
    return causes, [b.id for b in balls]


def _melt(rng: random.Random, palette: Sequence[str], agent: str, idle: Sequence[str]
          ) -> tuple[list[World], list[str], list[str]]:
    """Four ice blocks each holding a block, a shelf with the idle flames; way ``k`` is the
    flame beside ice ``k``."""
    fw, fh = 12, 20
    sites = []
    for _ in range(WAYS):
        ice_w, top_w = rng.choice((20, 22, 24)), rng.choice((20, 22, 24, 26))
        sites.append((ice_w, rng.choice((18, 20, 22)), top_w, rng.choice((14, 16, 18, 20)),
                      rng.randint(6, REACH - 1)))
    width = [fw + gap + max(w, t) + 2 * 3 for w, _, t, _, gap in sites]
    need = sum(width) + (WAYS - 1) * (REACH + 4)
    slack = WIDTH - 2 * MARGIN - need
    if slack < 0:
        raise Reject("no room for four ice blocks")
    extra = _spread(rng, slack, WAYS + 1)
    bodies = [_ground(), Body("shelf", "beam", "brown", *SHELF)]
    slots = []
    x = MARGIN + extra[0]
    for k, (ice_w, ice_h, top_w, top_h, gap) in enumerate(sites):
        ice_x = x + fw + gap + max(0, (top_w - ice_w) // 2) + 3
        ice = Body(f"ice-{k + 1}", "ice", "cyan", ice_x, FLOOR - ice_h + 1, ice_x + ice_w - 1,
                   FLOOR)
        top_x = ice_x + (ice_w - top_w) // 2
        top = Body(f"block-{k + 1}", "block", rng.choice(palette), top_x,
                   ice.y0 - GAP - top_h, top_x + top_w - 1, ice.y0 - GAP - 1)
        bodies += [ice, top]
        slots.append(ice_x - gap - fw)
        x += width[k] + REACH + 4 + extra[k + 1]
    decoys = []
    room = (SHELF[2] - SHELF[0] - 2 * MARGIN) // len(idle)
    for d, color in enumerate(idle):
        x0 = SHELF[0] + MARGIN + d * room + rng.randint(0, max(0, room - fw - 4))
        flame = Body(f"flame-{d + 2}", "flame", color, x0, SHELF[1] - GAP - fh, x0 + fw - 1,
                     SHELF[1] - GAP - 1)
        bodies.append(flame)
        decoys.append(flame.id)
    base = World(WIDTH, HEIGHT, tuple(bodies))
    causes = [base.with_bodies((*base.bodies, Body("flame-1", "flame", agent, x0, FLOOR - fh + 1,
                                                   x0 + fw - 1, FLOOR))) for x0 in slots]
    return causes, ["flame-1"] * WAYS, decoys


def _cut(rng: random.Random, palette: Sequence[str], agent: str, idle: Sequence[str]
         ) -> tuple[list[World], list[str], list[str]]:
    """Four blocks on ropes from the beam, three idle scissors on the ground; way ``k`` is
    the scissors beside rope ``k``."""
    size = 16
    span = (WIDTH - 2 * MARGIN - 40) // WAYS
    bodies = [_ground(), Body("beam", "beam", "brown", *BEAM)]
    ropes, landings = [], []
    for k in range(WAYS):
        x = MARGIN + 20 + k * span + span // 2 + rng.randint(-6, 6)
        w, h = rng.choice((18, 20, 22, 24)), rng.choice((16, 18, 20))
        top = rng.randint(64, 90)
        block = Body(f"block-{k + 1}", "block", rng.choice(palette), x - w // 2 + 1, top,
                     x - w // 2 + w, top + h - 1)
        rope = Body(f"rope-{k + 1}", "rope", "black", x, BEAM[3] + GAP + 1, x + 1,
                    top - GAP - 1)
        bodies += [rope, block]
        ropes.append(rope)
        landings.append((block.x0, block.x1))
    decoys = []
    free = [(a[1] + 4, b[0] - 4) for a, b in zip(landings, landings[1:], strict=False)]
    for d, color in enumerate(idle):
        lo, hi = free[d % len(free)]
        if hi - lo < size:
            raise Reject("no room for the idle scissors")
        x0 = rng.randint(lo, hi - size + 1)
        other = Body(f"scissors-{d + 2}", "scissors", color, x0, FLOOR - size + 1,
                     x0 + size - 1, FLOOR)
        bodies.append(other)
        decoys.append(other.id)
    base = World(WIDTH, HEIGHT, tuple(bodies))
    causes = []
    for rope in ropes:
        gap = rng.randint(2, 5)
        x0 = rope.x0 - gap - size
        mid = (rope.y0 + rope.y1) // 2
        causes.append(base.with_bodies((*base.bodies, Body(
            "scissors-1", "scissors", agent, x0, mid - size // 2, x0 + size - 1,
            mid - size // 2 + size - 1))))
    return causes, ["scissors-1"] * WAYS, decoys


def draw_scenario(kind: str, rng: random.Random, palette: Sequence[str], agent: str,
                  idle: Sequence[str]) -> Scenario:
    """A scene of ``kind`` whose true way's agent is ``agent`` (the three ``idle`` colours are
    its idle agents: the other balls, the flames on the shelf, the scissors on the ground);
    ``Reject`` when the draw does not fit (draw again)."""
    from whatifbench.suites.mucr.synthetic.pairs import problems

    if kind == "topple":
        colors = [agent, *idle]
        rng.shuffle(colors)
        causes, agents = _topple(rng, palette, colors)
        true = colors.index(agent)
        decoys = [agents[colors.index(c)] for c in idle]
    else:
        make = _melt if kind == "melt" else _cut
        causes, agents, decoys = make(rng, palette, agent, idle)
        true = rng.randrange(WAYS)
    effects, events = [], []
    for cause, body in zip(causes, agents, strict=True):
        effect, happened = consequence(cause, body, spent=True)
        if not any(e.what in ("fell", "toppled") for e in happened):
            raise Reject("a way changes nothing")
        if problems(cause) or problems(effect):
            raise Reject("bodies touch or leave the canvas")
        effects.append(effect)
        events.append(tuple(happened))
    return Scenario(kind, tuple(causes), tuple(effects), tuple(agents), tuple(events), true,
                    tuple(decoys))
