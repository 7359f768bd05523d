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

The shortcut-free design (``draw_plan``) goes further (``scenes.options``): the premise and
everything it names come first, then two candidate (basic, counterfactual) answers bound as the
premise binds them ("two more were added": counterfactual = basic + 2 for both), one or two
apart, then which of them is right (dealt in balanced shares); each question's options are the
candidates' values, in the same order in both questions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import partial

from whatifbench.scenes.interventions import Add, Intervention, Recolor, Remove
from whatifbench.scenes.model import SceneObject
from whatifbench.scenes.options import Candidates, candidates, matched, near_values
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
    b, c = plan(rng, changed) if fixed is None else fixed.candidates.right
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
    b, c = plan(rng, changed) if fixed is None else fixed.candidates.right
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
    """What a shortcut-free count pair is built to ask: the premise and two candidates."""

    kind: str
    """Premise kind (``add``, ``remove``, ``remove-color``, ``add-other``, ``remove-other``;
    ``paint-in``, ``paint-out``, ``paint-other``)."""
    subject: str
    """The shape (count-shapes) or colour (count-colors) the questions count."""
    k: int
    """Objects the premise adds, removes or repaints (shown as a number or by the noun's
    number); remove-other: objects of the removed shape; else 0."""
    other: str
    """The other shape the premise names (added, removed, repainted), else ``""``."""
    color: str
    """The colour the premise names (removed, or painted to), else ``""``."""
    candidates: Candidates[tuple[int, int]]
    """Two (basic, counterfactual) candidates, one of them right."""

    def offered(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """(answer, other option) of both questions."""
        (b, c), [(ob, oc)] = self.candidates.right, self.candidates.others()
        return (str(b), str(ob)), (str(c), str(oc))


KINDS = {("count-shapes", True): ("add", "remove", "remove-color"),
         ("count-shapes", False): ("add-other", "remove-color", "remove-other"),
         ("count-colors", True): ("paint-in", "paint-out"),
         ("count-colors", False): ("paint-other",)}
"""Premise kinds of the shortcut-free design, drawn uniformly, by (template, answer changes)."""
SHIFT = {"add": 1, "paint-in": 1, "remove": -1, "paint-out": -1}
"""Kinds that change every candidate by the same (shown) number of objects."""
GAPS = (1, 2)
"""How far apart the two candidates of a question are."""


def _rows(kind: str, changed: bool, k: int, rng: random.Random
          ) -> list[tuple[int, int]] | None:
    low, high = COUNTS
    if kind in SHIFT:  # counterfactual = basic ± k for both; never k (the premise may say it)
        d = SHIFT[kind] * k
        basic = near_values(rng, max(low, low - d), min(high, high - d), 2, GAPS,
                            exclude=(k - d,))
        return None if basic is None else [(v, v + d) for v in basic]
    if kind == "remove-color" and changed:  # fewer left, by a number the text does not show
        basic = near_values(rng, low + 1, high, 2, GAPS)
        cf = near_values(rng, low, high - 1, 2, GAPS)
        return None if basic is None or cf is None else matched(rng, basic, cf,
                                                                lambda x, y: y < x)
    # unchanged counts; add-other names its k, which no option may equal
    basic = near_values(rng, low, high, 2, GAPS, exclude=(k,) if kind == "add-other" else ())
    return None if basic is None else [(v, v) for v in basic]


def draw_plan(template: str, changed: bool, rng: random.Random, answer: int | None = None
              ) -> CountPlan:
    """The shortcut-free plan: premise kind and what it names, then the candidates (by basic
    count, ascending) and the right one (``answer``: its index, dealt; else a coin)."""
    while True:
        kind = rng.choice(KINDS[template, changed])
        subject = rng.choice(SHAPES if template == "count-shapes" else COLORS)
        k = rng.randint(1, 2) if kind in ("paint-other", "remove-other") else rng.randint(1, 3)
        other = color = ""
        if template == "count-colors":
            other = rng.choice(SHAPES)
            color = rng.choice([x for x in COLORS if x != subject])
        elif kind in ("add-other", "remove-other"):
            other = rng.choice([s for s in SHAPES if s != subject])
        elif kind == "remove-color":
            color = rng.choice(COLORS)
        found = candidates(rng, partial(_rows, kind, changed, k), answer)
        if found is not None:
            return CountPlan(kind, subject, k if kind not in ("remove-color",) else 0, other,
                             color, found)
