"""Count: how many objects of a shape (or of a colour) there are, and would be if some were
added, removed or repainted.

The answers are planned first so that the text does not tell which option is right. The basic
count is uniform on 1 … 10; when the answer changes, the counterfactual count is its partner in
one of ``SWAPS`` (pairings of 1 … 10, partners 1 to 3 apart), so it is uniform too and as often
larger as smaller. Each question's second option is its answer plus or minus 1 or 2
(``Draw.steps``): neither the frequency of a number among the options, nor "two more were
added" (the larger option), nor the count seen in the image (the nearest option) picks the
right one much more often than chance. The scene is then built to match; the programs
recompute both answers.

The shortcut-free design (``draw_plan``) goes further (``scenes.options``): its premises never
say how many objects they change ("all the red shapes were removed", "the triangles were
painted blue": the picture says how many are red, or are triangles), so the premise and
everything it names come first, then each question's two options (the counterfactual ones
all on the premise's side of the basic ones, so that any basic option can go with any
counterfactual option), then the right one of each, dealt on their own. A reader of both
texts then guesses a pair right a quarter of the time, and one who sees the basic count and
answers the counterfactual option nearest to it (or the other one) half of the time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from whatifbench.scenes.interventions import Add, Intervention, Recolor, Remove
from whatifbench.scenes.model import SceneObject
from whatifbench.scenes.options import near_values
from whatifbench.scenes.programs import Count
from whatifbench.scenes.selectors import Take, Where
from whatifbench.suites.cfmm.draw import Draw, Premise
from whatifbench.suites.cfmm.layout import (
    COLORS,
    SHAPES,
    noun,
    number_word,
    place,
    plural,
    scene_of,
    solid,
)

RADIUS = (14.0, 22.0)
"""Object sizes in count scenes."""
COUNTS = (1, 10)
"""Range of the planned answers."""
SWAPS = tuple(dict(p for a, b in pairs for p in ((a, b), (b, a))) for pairs in (
    ((1, 2), (3, 4), (5, 6), (7, 8), (9, 10)),
    ((1, 3), (2, 4), (5, 7), (6, 8), (9, 10)),
    ((1, 4), (2, 5), (3, 6), (7, 10), (8, 9)),
    ((1, 2), (3, 5), (4, 6), (7, 9), (8, 10)),
    ((1, 4), (2, 3), (5, 8), (6, 7), (9, 10)),
    ((1, 3), (2, 5), (4, 7), (6, 9), (8, 10)),
))
"""Pairings of 1 … 10 whose partners are 1 to 3 apart: the basic count uniform, its partner is
uniform too, and larger as often as smaller."""
STEPS = (1, 2)
"""Distance of the second option from the answer."""


def plan(rng: random.Random, changed: bool) -> tuple[int, int]:
    """(basic answer, counterfactual answer)."""
    basic = rng.randint(*COUNTS)
    return basic, rng.choice(SWAPS)[basic] if changed else basic


def _objects(rng: random.Random, prefix: str, shapes: list[str], colors: list[str]
             ) -> list[SceneObject]:
    return [solid(f"{prefix}{i}", shape, color, rng.uniform(*RADIUS))
            for i, (shape, color) in enumerate(zip(shapes, colors, strict=True), start=1)]


def _added(rng: random.Random, shape: str, k: int, existing: list[SceneObject]
           ) -> tuple[Intervention, ...] | None:
    new = _objects(rng, "added-", [shape] * k, [rng.choice(COLORS) for _ in range(k)])
    placed = place(rng, new, existing=existing)
    return None if placed is None else tuple(Add(o) for o in placed)


def count_shapes(rng: random.Random, changed: bool, fixed: CountPlan | None = None
                 ) -> Draw | None:
    """"How many triangles are there?" — some added, removed, or others removed (``fixed``:
    the shortcut-free plan; only what the text does not show is drawn)."""
    b, c = plan(rng, changed) if fixed is None else fixed.answers
    target = rng.choice(SHAPES) if fixed is None else fixed.subject
    rest = [s for s in SHAPES if s != target]
    n_rest = rng.randint(2, 4)
    kind = (fixed.kind if fixed is not None else "add" if c > b
            else rng.choice(("remove", "remove-color")) if c < b
            else rng.choice(("add-other", "remove-color", "remove-other")))
    color = rng.choice(COLORS) if fixed is None or not fixed.color else fixed.color
    non_color = [x for x in COLORS if x != color]
    if kind == "remove-color":
        hit = b - c  # targets painted in the removed colour
        t_colors = [color] * hit + [rng.choice(non_color) for _ in range(b - hit)]
        r_colors = [rng.choice(COLORS) for _ in range(n_rest)]
        if hit == 0:
            r_colors[0] = color  # the premise must remove something
    else:
        t_colors = [rng.choice(COLORS) for _ in range(b)]
        r_colors = [rng.choice(COLORS) for _ in range(n_rest)]
    rng.shuffle(t_colors)
    if fixed is not None and kind == "remove-other":  # the premise names them
        kept = [s for s in rest if s != fixed.other]
        r_shapes = [fixed.other] * fixed.k + [rng.choice(kept) for _ in range(n_rest - fixed.k)]
    else:
        r_shapes = [rng.choice(rest) for _ in range(n_rest)]
    placed = place(rng, _objects(rng, "t", [target] * b, t_colors)
                   + _objects(rng, "o", r_shapes, r_colors))
    if placed is None:
        return None
    shape = Where(shape=target)
    what = plural(target)
    premise: Premise
    if kind == "add":
        k = c - b
        adds = _added(rng, target, k, placed)
        if adds is None:
            return None
        premise = Premise(f"{number_word(k)} more {noun(target, k)} were added", adds,
                          f"There are {{b}} {what}; adding {number_word(k)} more makes {{c}}.",
                          kind=kind)
    elif kind == "remove":
        k = b - c
        premise = Premise(f"{number_word(k)} of the {what} were removed",
                          (Remove(Take(shape, k)),),
                          f"There are {{b}} {what}; removing {number_word(k)} leaves {{c}}.",
                          kind=kind)
    elif kind == "remove-color":
        hit = b - c
        why = (f"{number_word(hit)} of them {'is' if hit == 1 else 'are'} {color}" if hit
               else f"none of them is {color}")
        premise = Premise(f"all the {color} shapes were removed", (Remove(Where(color=color)),),
                          f"There are {{b}} {what} and {why}, so {{c}} would be left.",
                          kind=kind)
    elif kind == "add-other":
        k = rng.randint(1, 3) if fixed is None else fixed.k
        other_shape = rng.choice(rest) if fixed is None else fixed.other
        adds = _added(rng, other_shape, k, placed)
        if adds is None:
            return None
        many = "a" if k == 1 else number_word(k)
        premise = Premise(f"{many} {noun(other_shape, k)} were added", adds,
                          f"Adding {plural(other_shape)} does not change the number of {what}: "
                          "{c}.", kind=kind)
    else:
        gone = r_shapes[0]
        n_gone = r_shapes.count(gone)
        premise = Premise(f"the {noun(gone, n_gone)} were removed", (Remove(Where(shape=gone)),),
                          f"Removing the {plural(gone)} does not change the number of {what}: "
                          "{c}.", kind=kind)
    return Draw("count-shapes", scene_of(placed), f"How many {what} are there?", Count(shape),
                f"Counting the {what} gives {{b}}.",
                f"If {{premise}}, how many {what} would there be?", "", Count(shape),
                (premise,), "", {"shape": target, "kind": kind}, steps=STEPS,
                offered=None if fixed is None else fixed.offered())


def count_colors(rng: random.Random, changed: bool, fixed: CountPlan | None = None
                 ) -> Draw | None:
    """"How many red shapes are there?" — some repainted in or out of that colour
    (``fixed``: the shortcut-free plan)."""
    b, c = plan(rng, changed) if fixed is None else fixed.answers
    color = rng.choice(COLORS) if fixed is None else fixed.subject
    non_color = [x for x in COLORS if x != color]
    painted = rng.choice(SHAPES) if fixed is None else fixed.other  # the shape repainted
    rest = [s for s in SHAPES if s != painted]
    n_rest = rng.randint(2, 4)
    new_color = rng.choice(non_color) if fixed is None else fixed.color
    if c > b:
        kind, k = "paint-in", c - b
        hit = [solid(f"p{i}", painted, rng.choice(non_color), rng.uniform(*RADIUS))
               for i in range(1, k + 1)]
        colored = _objects(rng, "t", [rng.choice(rest) for _ in range(b)], [color] * b)
        text = f"the {noun(painted, k)} were painted {color}"
        step: Intervention = Recolor(Where(shape=painted), color)
        why = f"{number_word(k)} {noun(painted, k)} would become {color}, making {{c}}"
    elif c < b:
        kind, k = "paint-out", b - c
        hit = _objects(rng, "p", [painted] * k, [color] * k)
        colored = _objects(rng, "t", [rng.choice(rest) for _ in range(b - k)], [color] * (b - k))
        text = f"the {color} {noun(painted, k)} were painted {new_color}"
        step = Recolor(Where(shape=painted, color=color), new_color)
        why = f"{number_word(k)} of them would become {new_color}, leaving {{c}}"
    else:
        kind, k = "paint-other", rng.randint(1, 2) if fixed is None else fixed.k
        keep = [x for x in non_color if x != new_color]
        hit = _objects(rng, "p", [painted] * k, [rng.choice(keep) for _ in range(k)])
        colored = _objects(rng, "t", [rng.choice(rest) for _ in range(b)], [color] * b)
        text = f"the {noun(painted, k)} were painted {new_color}"
        step = Recolor(Where(shape=painted), new_color)
        why = f"repainting the {plural(painted)} {new_color} does not change that: {{c}}"
    others = _objects(rng, "o", [rng.choice(rest) for _ in range(n_rest)],
                      [rng.choice(non_color) for _ in range(n_rest)])
    placed = place(rng, colored + hit + others)
    if placed is None:
        return None
    count = Count(Where(color=color))
    premise = Premise(text, (step,), f"There are {{b}} {color} shapes; {why}.", kind=kind)
    return Draw("count-colors", scene_of(placed), f"How many {color} shapes are there?", count,
                f"Counting the {color} shapes gives {{b}}.",
                f"If {{premise}}, how many {color} shapes would there be?", "", count,
                (premise,), "", {"color": color, "kind": kind}, steps=STEPS,
                offered=None if fixed is None else fixed.offered())


@dataclass(frozen=True)
class CountPlan:
    """What a shortcut-free count pair is built to ask: the premise and both questions'
    options."""

    kind: str
    """Premise kind (``remove-color``; ``paint-in``, ``paint-out``)."""
    subject: str
    """The shape (count-shapes) or colour (count-colors) the questions count."""
    k: int
    """Always 0: no premise of this design names how many objects it changes."""
    other: str
    """The other shape the premise names (repainted), else ``""``."""
    color: str
    """The colour the premise names (removed, or painted to), else ``""``."""
    basic: tuple[int, int]
    """The basic question's two options, ascending."""
    counterfactual: tuple[int, int]
    """The counterfactual question's two options, ascending: both below the basic ones
    (``remove-color``, ``paint-out``) or both above (``paint-in``)."""
    right: tuple[int, int]
    """Index of the right basic and of the right counterfactual option."""

    @property
    def answers(self) -> tuple[int, int]:
        """The right (basic, counterfactual) counts."""
        return self.basic[self.right[0]], self.counterfactual[self.right[1]]

    def offered(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """(answer, other option) of both questions."""
        (i, j), b, c = self.right, self.basic, self.counterfactual
        return (str(b[i]), str(b[1 - i])), (str(c[j]), str(c[1 - j]))


KINDS = {"count-shapes": ("remove-color",), "count-colors": ("paint-in", "paint-out")}
"""Premise kinds of the shortcut-free design: none says how many objects it removes or
repaints (the picture does), so every basic option can go with every counterfactual option."""
GAPS = (1, 2)
"""How far apart the two options of a question are."""
SPREAD = 3
"""Most the counterfactual options lie beyond the basic ones (the nearest of each)."""


def _sets(kind: str, rng: random.Random) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The basic and counterfactual options: two each, the counterfactual ones all on the
    premise's side of the basic ones (every pairing one the picture could give)."""
    low, high = COUNTS
    basic = near_values(rng, low + 1, high - 1, 2, GAPS)
    if basic is None:
        return None
    if kind == "paint-in":
        start = basic[1] + rng.randint(1, SPREAD)
        cf = near_values(rng, start, min(high, start + 2), 2, GAPS)
    else:
        end = basic[0] - rng.randint(1, SPREAD)
        cf = near_values(rng, max(low, end - 2), end, 2, GAPS) if end >= low + 1 else None
    if cf is None:
        return None
    return (basic[0], basic[1]), (cf[0], cf[1])


def draw_plan(template: str, changed: bool, rng: random.Random, answer: int | None = None
              ) -> CountPlan:
    """The shortcut-free plan: the premise and what it names, then both questions' options,
    then the right ones: the basic's index ``answer`` (dealt; else a coin) and the
    counterfactual's, the same index or (``changed``) the other one. Both counterfactual
    options always differ from the basic ones."""
    while True:
        kind = rng.choice(KINDS[template])
        subject = rng.choice(SHAPES if template == "count-shapes" else COLORS)
        other = color = ""
        if template == "count-colors":
            other = rng.choice(SHAPES)
            color = rng.choice([x for x in COLORS if x != subject])
        else:
            color = rng.choice(COLORS)
        found = _sets(kind, rng)
        if found is None:
            continue
        i = rng.randrange(2) if answer is None else answer
        return CountPlan(kind, subject, 0, other, color, found[0], found[1],
                         (i, 1 - i if changed else i))
