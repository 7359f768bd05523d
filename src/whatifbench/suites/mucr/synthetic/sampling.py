"""Sample cause scenes of the three kinds of causality (topple, melt, cut).

Each sampler places bodies left to right on the ground (free intervals are tracked so nothing
overlaps), puts the active agent where it acts on its target, and adds decoy agents of the same
kind that act on nothing (``paper``: one, half of the time; ``shortcut-free``: one per decoy
colour, always), a second structure that stays as it is, and other stacks. The effect is never
drawn here: ``mechanics.consequence`` computes it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from whatifbench.scenes.bodies import GAP, Body, World, motion_lines
from whatifbench.scenes.mechanics import PUDDLE_MARGIN, REACH

WIDTH, HEIGHT = 320, 240
GROUND_Y = 200
"""Top row of the ground strip."""
FLOOR = GROUND_Y - GAP - 1
"""Bottom row of a body standing on the ground."""
BLOCK_COLORS = ("red", "blue", "green", "yellow", "purple", "pink")
AGENT_COLORS = ("red", "blue", "green", "yellow", "purple", "pink", "orange")
WIDTHS = (24, 28, 32, 36)
HEIGHTS = (20, 24, 28, 32)
MARGIN = 6
"""Free columns kept between things on the ground and at the canvas edges."""
KINDS = ("topple", "melt", "cut")
"""Kinds of causality (``category`` of the pairs)."""


class Reject(Exception):
    """This attempt cannot be completed; draw again."""


@dataclass(frozen=True)
class Sampled:
    """A cause scene and the agent that acts in it."""

    world: World
    """The cause scene."""
    agent: str
    """Id of the active agent."""
    decoys: tuple[str, ...]
    """Ids of same-kind agents that act on nothing (in the order of their colours)."""
    unaffected: tuple[str, ...]
    """Ids of bodies that must not be named as false cues (parts of the causal chain)."""


class Layout:
    """Bodies being placed, with the ground intervals already taken."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.bodies: list[Body] = [Body("ground", "ground", "gray", 0, GROUND_Y, WIDTH - 1,
                                        HEIGHT - 1)]
        self.taken: list[tuple[int, int]] = []
        self.count = 0

    def new_id(self, kind: str) -> str:
        self.count += 1
        return f"{kind}-{self.count}"

    def free(self, x0: int, x1: int) -> bool:
        """Is ``[x0, x1]`` (plus margins) free on the ground and inside the canvas?"""
        if x0 < MARGIN or x1 > WIDTH - 1 - MARGIN:
            return False
        return all(x1 + MARGIN < a or x0 > b + MARGIN for a, b in self.taken)

    def take(self, x0: int, x1: int) -> None:
        """Mark ``[x0, x1]`` as taken (it must be free)."""
        if not self.free(x0, x1):
            raise Reject("overlap")
        self.taken.append((x0, x1))

    def reserve(self, x0: int, x1: int) -> None:
        """Mark ``[x0, x1]`` as taken next to something already placed (inside the canvas)."""
        if x0 < MARGIN or x1 > WIDTH - 1 - MARGIN:
            raise Reject("off the canvas")
        self.taken.append((x0, x1))

    def spot(self, width: int, tries: int = 60) -> int:
        """A random free left edge for something ``width`` wide on the ground."""
        for _ in range(tries):
            x0 = self.rng.randint(MARGIN, WIDTH - MARGIN - width)
            if self.free(x0, x0 + width - 1):
                return x0
        raise Reject("no room")

    def stack(self, x_center: int, colors: list[str], base_kind: str = "block",
              take: bool = True) -> list[Body]:
        """A stack standing on the ground, centred at ``x_center`` (bottom first)."""
        out: list[Body] = []
        bottom = FLOOR
        for k, color in enumerate(colors):
            kind = base_kind if k == 0 else "block"
            w = self.rng.choice(WIDTHS)
            h = self.rng.choice(HEIGHTS)
            x0 = x_center - w // 2
            body = Body(self.new_id(kind), kind, "cyan" if kind == "ice" else color, x0,
                        bottom - h + 1, x0 + w - 1, bottom)
            out.append(body)
            bottom = body.y0 - GAP - 1
        if take:
            self.take(min(b.x0 for b in out), max(b.x1 for b in out))
        self.bodies += out
        return out

    def random_stack(self, colors: list[str], base_kind: str = "block") -> list[Body]:
        """A stack at a free random place."""
        x0 = self.spot(WIDTHS[-1])
        return self.stack(x0 + WIDTHS[-1] // 2, colors, base_kind)

    def extra_stacks(self, palette: list[str], low: int, high: int) -> None:
        """Between ``low`` and ``high`` more stacks of one to three blocks, where there is room."""
        for _ in range(self.rng.randint(low, high)):
            try:
                self.random_stack(_colors(self.rng, palette, self.rng.randint(1, 3)))
            except Reject:
                return

    def world(self) -> World:
        return World(WIDTH, HEIGHT, tuple(self.bodies))


def _colors(rng: random.Random, palette: list[str], n: int) -> list[str]:
    """``n`` colours from the palette, neighbours different."""
    out: list[str] = []
    for _ in range(n):
        out.append(rng.choice([c for c in palette if not out or c != out[-1]]))
    return out


def _decoys(rng: random.Random, colors: Sequence[str], every: bool,
            place: Callable[[str], Body]) -> tuple[str, ...]:
    """Ids of the decoy agents ``place`` puts down: one of ``colors[0]`` half of the time
    (``every`` false: the paper design), else one of each colour."""
    if every:
        return tuple(place(color).id for color in colors)
    return (place(colors[0]).id,) if rng.random() < 0.5 else ()


def topple_scene(rng: random.Random, palette: list[str], agent_color: str,
                 decoy_colors: Sequence[str], every: bool = False) -> Sampled:
    """A ball rolling towards a stack of two or three blocks."""
    lay = Layout(rng)
    d = rng.choice((1, -1))
    n = rng.randint(2, 3)
    target_x = rng.randint(90, 230)
    target = lay.stack(target_x, _colors(rng, palette, n))
    r = rng.choice((10, 12))
    gap = rng.randint(16, 40)
    if d > 0:
        bx1 = min(b.x0 for b in target) - gap
        ball = Body(lay.new_id("ball"), "ball", agent_color, bx1 - 2 * r, FLOOR - 2 * r, bx1,
                    FLOOR, d)
    else:
        bx0 = max(b.x1 for b in target) + gap
        ball = Body(lay.new_id("ball"), "ball", agent_color, bx0, FLOOR - 2 * r, bx0 + 2 * r,
                    FLOOR, d)
    lines = motion_lines(ball)
    lo = min([ball.x0, *(x0 for x0, _, _, _ in lines)])
    hi = max([ball.x1, *(x1 for _, _, x1, _ in lines)])
    left, right = min(b.x0 for b in target), max(b.x1 for b in target)
    lay.reserve(*((lo, left - 1) if d > 0 else (right + 1, hi)))  # nothing in the ball's way
    span = sum(b.height + GAP + 1 for b in target)
    lay.reserve(*((right + 1, right + span) if d > 0 else (left - span, left - 1)))
    lay.bodies.append(ball)

    def resting_ball(color: str) -> Body:
        rr = rng.choice((10, 12))
        x0 = lay.spot(2 * rr + 1)
        decoy_ball = Body(lay.new_id("ball"), "ball", color, x0, FLOOR - 2 * rr, x0 + 2 * rr,
                          FLOOR)
        lay.take(decoy_ball.x0, decoy_ball.x1)
        lay.bodies.append(decoy_ball)
        return decoy_ball

    decoys = _decoys(rng, decoy_colors, every, resting_ball)
    lay.extra_stacks(palette, 2, 3)
    return Sampled(lay.world(), ball.id, decoys, ())


def melt_scene(rng: random.Random, palette: list[str], agent_color: str,
               decoy_colors: Sequence[str], every: bool = False) -> Sampled:
    """A flame beside an ice block that holds up one or two blocks."""
    lay = Layout(rng)
    side = rng.choice((1, -1))  # the flame's side of the ice
    target = lay.stack(rng.randint(70, 250), ["cyan", *_colors(rng, palette, rng.randint(1, 2))],
                       base_kind="ice", take=False)
    ice = target[0]
    gap = rng.randint(6, REACH - 1)
    fw, fh = rng.choice((14, 16)), rng.choice((22, 26))
    fx0 = ice.x0 - gap - fw if side > 0 else ice.x1 + gap + 1
    flame = Body(lay.new_id("flame"), "flame", agent_color, fx0, FLOOR - fh + 1, fx0 + fw - 1,
                 FLOOR)
    lo = min(min(b.x0 for b in target) - PUDDLE_MARGIN, flame.x0)
    hi = max(max(b.x1 for b in target) + PUDDLE_MARGIN, flame.x1)
    lay.take(lo, hi)
    lay.bodies.append(flame)
    unaffected = (ice.id,)
    if rng.random() < 0.5:  # an ice stack no flame reaches
        lay.random_stack(["cyan", *_colors(rng, palette, rng.randint(1, 2))], base_kind="ice")

    def lone_flame(color: str) -> Body:
        x0 = lay.spot(fw + 2 * REACH)
        other = Body(lay.new_id("flame"), "flame", color, x0 + REACH, FLOOR - fh + 1,
                     x0 + REACH + fw - 1, FLOOR)
        lay.take(x0, x0 + fw + 2 * REACH - 1)
        lay.bodies.append(other)
        return other

    decoys = _decoys(rng, decoy_colors, every, lone_flame)
    lay.extra_stacks(palette, 2, 3)
    return Sampled(lay.world(), flame.id, decoys, unaffected)


BEAM = (8, 16, WIDTH - 9, 23)
"""The beam ropes hang from."""


def _hang(lay: Layout, x: int, color: str, top: int) -> tuple[Body, Body]:
    """A rope from the beam at column ``x`` and the block it holds, its top at ``top``."""
    w, h = lay.rng.choice(WIDTHS), lay.rng.choice(HEIGHTS)
    block = Body(lay.new_id("block"), "block", color, x - w // 2 + 1, top, x - w // 2 + w,
                 top + h - 1)
    rope = Body(lay.new_id("rope"), "rope", "black", x, BEAM[3] + GAP + 1, x + 1,
                top - GAP - 1)
    return rope, block


def cut_scene(rng: random.Random, palette: list[str], agent_color: str,
              decoy_colors: Sequence[str], every: bool = False) -> Sampled:
    """Scissors at a rope that holds a block above the ground or above a stack."""
    lay = Layout(rng)
    lay.bodies.append(Body("beam", "beam", "brown", *BEAM))
    ropes: list[tuple[Body, Body]] = []
    first = rng.randrange(50, 160, 10)
    xs = [first, rng.randrange(first + 80, 280, 10)]
    two = rng.random() < 0.5
    active = rng.randrange(2) if two else 0
    for x in xs if two else [xs[0]]:
        rope, block = _hang(lay, x, rng.choice(palette), rng.randint(64, 96))
        ropes.append((rope, block))
        lay.bodies += [rope, block]
        if rng.random() < 0.6:  # something to land on
            lay.stack(x, _colors(rng, palette, rng.randint(1, 2)))
        else:
            lay.take(block.x0, block.x1)  # keep the landing place free
    rope, block = ropes[active]
    side = rng.choice((1, -1))
    size = rng.choice((16, 18))
    gap = rng.randint(2, 5)
    sx0 = rope.x0 - gap - size if side > 0 else rope.x1 + gap + 1
    mid = (rope.y0 + rope.y1) // 2
    scissors = Body(lay.new_id("scissors"), "scissors", agent_color, sx0, mid - size // 2,
                    sx0 + size - 1, mid - size // 2 + size - 1)
    if scissors.y0 <= rope.y0 + 2 or scissors.y1 >= rope.y1 - 2:
        raise Reject("rope too short")
    lay.bodies.append(scissors)

    def scissors_on_ground(color: str) -> Body:
        x0 = lay.spot(size)
        other = Body(lay.new_id("scissors"), "scissors", color, x0, FLOOR - size + 1,
                     x0 + size - 1, FLOOR)
        lay.take(other.x0, other.x1)
        lay.bodies.append(other)
        return other

    decoys = _decoys(rng, decoy_colors, every, scissors_on_ground)
    lay.extra_stacks(palette, 1, 2)
    return Sampled(lay.world(), scissors.id, decoys, (rope.id,))


Sampler = Callable[[random.Random, list[str], str, Sequence[str], bool], Sampled]
SAMPLERS: dict[str, Sampler] = {"topple": topple_scene, "melt": melt_scene, "cut": cut_scene}
"""One sampler per kind of causality."""
