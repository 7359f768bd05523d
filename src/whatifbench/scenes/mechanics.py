"""Consequences in a side-view world: what an agent does, which bodies lose their support and
where they land.

Physics is deliberately simple and exact on the integer grid:

- A movable body (block, ice) is held by a rope attached just above it, or rests on the highest
  surface under its columns (a block, ice, a puddle, the ground); ``settle`` lets every body that
  lost its support fall straight down, lowest first, until it rests ``GAP`` pixels above the
  highest surface beneath it.
- A rolling ball hits the first stack in its way (nothing else on the ground between): the
  stack topples to the ball's side, its blocks land on the ground side by side (each turned on
  its side, bottom block nearest), and the ball stops where the stack stood.
- A flame melts every ice block beside it (horizontal gap at most ``REACH``, rows shared): the
  ice becomes a puddle on the ground, the bodies it held fall.
- Scissors at a rope (gap at most ``REACH``, rows shared) cut it: a stub stays on the beam and
  the block it held falls.

``consequence(world, agent)`` applies one agent's action and settles; an agent with nothing to
act on (a ball at rest, a flame without ice near it, scissors away from every rope) changes
nothing. With ``spent=True`` a flame that melted something burns out and scissors that cut
something are used up: they are gone from the effect (``SPENT``; the shortcut-free design of
mucr-synthetic, where every candidate picture must differ from the question's picture as much
as the right one does). ``Event`` records say what happened, for explanations.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from whatifbench.scenes.bodies import GAP, MOVABLE, Body, World

REACH = 10
"""Largest gap (pixels) across which a flame melts ice or scissors cut a rope."""
PUDDLE_HEIGHT = 4
"""Thickness of a puddle."""
PUDDLE_MARGIN = 3
"""How far a puddle spreads beyond the ice it came from, on each side."""
STUB = 8
"""Length of the piece of a cut rope that stays on the beam."""
SURFACES = ("ground", "block", "ice", "puddle")
"""Kinds a falling body can land on."""
SPENT = ("flame", "scissors")
"""Agents that are gone once they have acted, under ``consequence(..., spent=True)``."""


@dataclass(frozen=True)
class Event:
    """One thing that happened to a body."""

    what: str
    """``toppled``, ``melted``, ``cut``, ``fell``, ``stopped`` or ``spent`` (an agent used
    up)."""
    body: str
    """Id of the body it happened to."""
    onto: str | None = None
    """For ``fell``/``toppled``: the id of the body it landed on (``ground`` for the ground)."""

    def to_json(self) -> dict[str, str]:
        """JSON form."""
        out = {"what": self.what, "body": self.body}
        if self.onto is not None:
            out["onto"] = self.onto
        return out


def rests_on(body: Body, below: Body, tolerance: int = 1) -> bool:
    """Is ``below`` directly under ``body`` (one seam of ``GAP`` rows, sharing a column)?"""
    return body.overlaps_x(below) and abs(below.y0 - body.y1 - (GAP + 1)) <= tolerance


def hangs_from(body: Body, rope: Body, tolerance: int = 1) -> bool:
    """Does ``rope`` end just above ``body``, within its columns?"""
    return (rope.kind == "rope" and body.x0 <= rope.cx <= body.x1
            and abs(body.y0 - rope.y1 - (GAP + 1)) <= tolerance)


def stack_above(world: World, base: Body) -> list[Body]:
    """``base`` and every movable body resting on it, directly or through others (bottom up)."""
    out = [base]
    frontier = [base]
    while frontier:
        current = frontier.pop()
        for b in world.bodies:
            if b.kind in MOVABLE and b not in out and rests_on(b, current):
                out.append(b)
                frontier.append(b)
    return sorted(out, key=lambda b: -b.y1)


def settle(world: World, events: list[Event]) -> World:
    """Let every movable body that lost its support fall (lowest first); record ``fell``."""
    fixed = [b for b in world.bodies if b.kind not in MOVABLE]
    ropes = [b for b in fixed if b.kind == "rope"]
    placed: list[Body] = [b for b in fixed if b.kind in SURFACES]
    moved: dict[str, Body] = {}
    for body in sorted((b for b in world.bodies if b.kind in MOVABLE), key=lambda b: -b.y1):
        if any(hangs_from(body, r) for r in ropes):
            placed.append(body)
            continue
        beneath = [s for s in placed if s.overlaps_x(body) and s.y0 > body.y1]
        if not beneath:
            placed.append(body)
            continue
        top = min(s.y0 for s in beneath)
        landed = body.moved(dy=top - GAP - 1 - body.y1)
        if landed.y1 > body.y1 + 1:  # it fell (more than a perception tolerance)
            onto = min((s for s in beneath if s.y0 == top), key=lambda s: abs(s.cx - body.cx))
            events.append(Event("fell", body.id, onto.id))
            moved[body.id] = landed
            placed.append(landed)
        else:
            placed.append(body)
    return world.with_bodies(moved.get(b.id, b) for b in world.bodies)


def _target_stack(world: World, ball: Body) -> list[Body] | None:
    """The stack a rolling ball runs into, or ``None`` when another body is in the way or
    there is none."""
    ground = world.ground
    if ground is None:
        return None
    on_ground = [b for b in world.bodies if b.kind != "ground" and b.id != ball.id
                 and abs(ground.y0 - b.y1 - (GAP + 1)) <= 1]
    ahead = [b for b in on_ground if (b.x0 > ball.x1 if ball.facing > 0 else b.x1 < ball.x0)]
    if not ahead:
        return None
    first = min(ahead, key=lambda b: b.x0 - ball.x1 if ball.facing > 0 else ball.x0 - b.x1)
    return stack_above(world, first) if first.kind in MOVABLE else None


def topple(world: World, ball: Body, events: list[Event]) -> World:
    """The rolling ball knocks over the stack in its way (see the module docstring)."""
    stack = _target_stack(world, ball)
    ground = world.ground
    if stack is None or ground is None:
        return world
    ids = {b.id for b in stack}
    base = stack[0]
    lying: dict[str, Body] = {}
    d = ball.facing
    edge = max(b.x1 for b in stack) if d > 0 else min(b.x0 for b in stack)
    cursor = edge + GAP + 1 if d > 0 else edge - GAP - 1
    bottom = ground.y0 - GAP - 1
    for b in stack:  # bottom block first, nearest the stack's foot
        w, h = b.height, b.width  # turned on its side
        x0 = cursor if d > 0 else cursor - w + 1
        lying[b.id] = replace(b, x0=x0, x1=x0 + w - 1, y0=bottom - h + 1, y1=bottom)
        cursor = x0 + w + GAP if d > 0 else x0 - GAP - 1
        events.append(Event("toppled", b.id, "ground"))
    r = ball.width // 2
    stop = round(base.cx) - r
    rolled = replace(ball, x0=stop, x1=stop + ball.width - 1, facing=0)
    events.append(Event("stopped", ball.id))
    bodies = [lying.get(b.id, rolled if b.id == ball.id else b) for b in world.bodies]
    return settle(world.with_bodies(bodies), events) if ids else world


def _beside(agent: Body, other: Body) -> bool:
    """Within ``REACH`` pixels horizontally, sharing rows."""
    gap = max(other.x0 - agent.x1, agent.x0 - other.x1)
    return 0 < gap <= REACH + 1 and agent.y0 <= other.y1 and other.y0 <= agent.y1


def melt(world: World, flame: Body, events: list[Event]) -> World:
    """The flame melts the ice beside it into puddles; what the ice held falls."""
    ground = world.ground
    ice = [b for b in world.bodies if b.kind == "ice" and _beside(flame, b)]
    if not ice or ground is None:
        return world
    out: list[Body] = []
    for b in world.bodies:
        if b in ice:
            events.append(Event("melted", b.id))
            out.append(replace(b, kind="puddle", x0=b.x0 - PUDDLE_MARGIN,
                               x1=b.x1 + PUDDLE_MARGIN, y0=ground.y0 - PUDDLE_HEIGHT,
                               y1=ground.y0 - 1))
        else:
            out.append(b)
    return settle(world.with_bodies(out), events)


def cut(world: World, scissors: Body, events: list[Event]) -> World:
    """The scissors cut the rope beside them; the block it held falls."""
    ropes = [b for b in world.bodies if b.kind == "rope" and _beside(scissors, b)]
    if not ropes:
        return world
    out = []
    for b in world.bodies:
        if b in ropes:
            events.append(Event("cut", b.id))
            out.append(replace(b, y1=b.y0 + STUB - 1))
        else:
            out.append(b)
    return settle(world.with_bodies(out), events)


ACTIONS = {"ball": topple, "flame": melt, "scissors": cut}
"""What each kind of agent does."""


def consequence(world: World, agent_id: str, spent: bool = False
                ) -> tuple[World, list[Event]]:
    """The world after the agent acts and everything settles, and what happened (``spent``:
    a flame or scissors that acted is gone afterwards)."""
    agent = world.get(agent_id)
    action = ACTIONS.get(agent.kind)
    events: list[Event] = []
    if action is None or (agent.kind == "ball" and not agent.facing):
        return world, events
    after = action(world, agent, events)
    if spent and events and agent.kind in SPENT:
        events.append(Event("spent", agent_id))
        after = after.with_bodies(b for b in after.bodies if b.id != agent_id)
    return after, events
