"""Dot scenes (templates 4–6): six circles with dots fully inside, none overlapping."""

from __future__ import annotations

import random

from whatifbench.scenes.filters import POSITION_TIE, leaks
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.palette import RELEASE_COLORS
from whatifbench.suites.cvqa.synthetic.templates import RANGES, TOP_RIGHT_PREMISE

CANVAS = 512
LINE = 3
CIRCLES = 6
CIRCLE_RADII = (42, 72)
CIRCLE_GAP = 12
"""Least gap between two circles' lines, in pixels."""
DOT_RADIUS = 6
DOT_GAP = 4
"""Least gap between two dots."""
DOT_MARGIN = LINE + 3
"""Least gap between a dot and its circle's line."""
DOT_COLORS = ("black", "red", "blue", "green", "purple", "orange")


def _circles(rng: random.Random) -> list[tuple[int, int, int]]:
    """Six circles (centre and radius in whole pixels) inside the canvas, apart."""
    low, high = CIRCLE_RADII
    while True:
        placed: list[tuple[int, int, int]] = []
        for _ in range(200):
            r = low + int(rng.random() * (high - low + 1))
            span = CANVAS - 2 * r - 8
            x = r + 4 + int(rng.random() * span)
            y = r + 4 + int(rng.random() * span)
            for px, py, pr in placed:
                dx, dy, apart = x - px, y - py, r + pr + CIRCLE_GAP
                if dx * dx + dy * dy < apart * apart:
                    break
            else:
                placed.append((x, y, r))
                if len(placed) == CIRCLES:
                    return placed


def capacity(radius: int) -> int:
    """How many dots a circle of this radius takes without crowding."""
    reach = radius - LINE - DOT_MARGIN
    return int(0.3 * (reach / (DOT_RADIUS + DOT_GAP / 2)) ** 2)


def counts(template: int, radii: list[int], rng: random.Random) -> list[int] | None:
    """Dots per circle, drawn so that the answers land in the release's ranges (``None`` when
    the circles are too small for the drawn counts)."""
    caps = [capacity(r) for r in radii]
    if template == 4:
        return _filled(caps, rng.randint(9, min(38, sum(caps))), rng)
    if template == 5:
        return [rng.randint(1, min(7, c)) for c in caps]
    top = rng.randint(4, 8)
    return _most(caps, top, rng.randint(2, top - 1), rng)


def _filled(caps: list[int], total: int, rng: random.Random) -> list[int] | None:
    """``total`` dots: each circle offers as many slots as it takes dots; a random set of
    slots is filled (``None`` when there are too few)."""
    slots = [i for i, c in enumerate(caps) for _ in range(c)]
    if total > len(slots):
        return None
    out = [0] * len(caps)
    for i in rng.sample(slots, total):
        out[i] += 1
    return out


def _most(caps: list[int], top: int, second: int, rng: random.Random) -> list[int] | None:
    """One circle with ``top`` dots, one with ``second``, the others no more than ``second``,
    shuffled until every circle can take its dots (``None`` after 20 shuffles)."""
    wanted = [top, second, *(rng.randint(0, second) for _ in range(len(caps) - 2))]
    for _ in range(20):
        rng.shuffle(wanted)
        if all(n <= c for n, c in zip(wanted, caps, strict=True)):
            return wanted
    return None


def planned_counts(template: int, circles: list[tuple[int, int, int]], answers: tuple[int, int],
                   rng: random.Random) -> list[int] | None:
    """Dots per circle giving exactly ``answers`` (original, counterfactual) on these circles
    (``None`` when they cannot: too small, or template 5's cuts do not allow it). Template 4
    counts the original only (the premise removes N of them)."""
    caps = [capacity(r) for _, _, r in circles]
    orig, cf = answers
    if template == 4:
        return _filled(caps, orig, rng)
    if template == 6:  # the most (unique), the second most, the rest no more than the second
        return _most(caps, orig, cf, rng)
    return _top_right_counts(circles, caps, orig, cf, rng)


def _top_right_counts(circles: list[tuple[int, int, int]], caps: list[int], orig: int, cf: int,
                      rng: random.Random) -> list[int] | None:
    """Template 5: 1 … 7 dots per circle (at most its capacity) with ``orig`` dots in the top
    three circles and ``cf`` in the top three once the two rightmost are removed."""
    cuts = _top_right_cuts(circles)
    if cuts is None:
        return None
    top, after = cuts
    kept, gone, new = sorted(top & after), sorted(top - after), sorted(after - top)
    high = [min(7, c) for c in caps]
    if min(high) < 1:
        return None

    def reach(group: list[int]) -> tuple[int, int]:
        return len(group), sum(high[i] for i in group)

    (k_lo, k_hi), (g_lo, g_hi), (n_lo, n_hi) = reach(kept), reach(gone), reach(new)
    lows = max(k_lo, orig - g_hi, cf - n_hi)
    highs = min(k_hi, orig - g_lo, cf - n_lo)
    if lows > highs:
        return None
    k = rng.randint(lows, highs)
    out = [rng.randint(1, high[i]) for i in range(len(circles))]
    for group, total in ((kept, k), (gone, orig - k), (new, cf - k)):
        out = _spread(group, total, high, out, rng)
    return out


def _spread(group: list[int], total: int, high: list[int], out: list[int],
            rng: random.Random) -> list[int]:
    """``out`` with ``total`` dots spread at random over the circles of ``group`` (1 … ``high``
    each; the caller has checked that ``total`` fits)."""
    out = list(out)
    for i in group:
        out[i] = 1
    for _ in range(total - len(group)):
        room = [i for i in group if out[i] < high[i]]
        out[rng.choice(room)] += 1
    return out


def _dots(rng: random.Random, x: int, y: int, r: int, n: int) -> list[tuple[int, int]]:
    """``n`` dot centres inside the circle, apart from each other (fewer if it is too full)."""
    reach = r - LINE - DOT_MARGIN - DOT_RADIUS
    limit = (2 * DOT_RADIUS + DOT_GAP) ** 2
    mine: list[tuple[int, int]] = []
    for _ in range(12 * n + 24):
        if len(mine) == n:
            break
        dx = round((2 * rng.random() - 1) * reach)
        dy = round((2 * rng.random() - 1) * reach)
        if dx * dx + dy * dy > reach * reach:
            continue
        cx, cy = x + dx, y + dy
        for px, py in mine:
            ex, ey = cx - px, cy - py
            if ex * ex + ey * ey < limit:
                break
        else:
            mine.append((cx, cy))
    return mine


def _cut(circles: list[tuple[int, int, int]], key: int, k: int, sign: int) -> set[int] | None:
    """Indices of the first ``k`` circles by centre and by near edge along ``key`` (0: x, 1: y;
    ``sign`` −1 ranks from the far side), or ``None`` when either cut is within a few pixels."""
    chosen = None
    for edge in (0, 1):
        value = [sign * c[key] - edge * c[2] for c in circles]
        order = sorted(range(len(circles)), key=lambda i: value[i])
        if value[order[k]] - value[order[k - 1]] < POSITION_TIE + 1:
            return None
        picked = set(order[:k])
        if chosen is not None and picked != chosen:
            return None
        chosen = picked
    return chosen


def top_right_ok(circles: list[tuple[int, int, int]]) -> bool:
    """Template 5 geometry: the top three and the two rightmost circles are clear-cut (before
    and after the removal) and the removal takes at least one of the top three."""
    right = _cut(circles, 0, 2, -1)
    top = _cut(circles, 1, 3, 1)
    if right is None or top is None or not right & top:
        return False
    rest = [c for i, c in enumerate(circles) if i not in right]
    return _cut(rest, 1, 3, 1) is not None


def top_right_answers(circles: list[tuple[int, int, int]],
                      want: list[int]) -> tuple[int, int] | None:
    """Template 5: the dots in the top three circles before and after the two rightmost are
    removed, for the counts ``want`` (``None`` when a cut is unclear). A cheap early test on
    drawn counts; the answers themselves come from the programs on the finished scene."""
    cuts = _top_right_cuts(circles)
    if cuts is None:
        return None
    top, after = cuts
    return sum(want[i] for i in top), sum(want[i] for i in after)


def _top_right_cuts(circles: list[tuple[int, int, int]]) -> tuple[set[int], set[int]] | None:
    """Indices of the top three circles, and of the top three once the two rightmost are
    removed (``None`` when a cut is unclear)."""
    top, right = _cut(circles, 1, 3, 1), _cut(circles, 0, 2, -1)
    if top is None or right is None:
        return None
    rest = [i for i in range(len(circles)) if i not in right]
    top_rest = _cut([circles[i] for i in rest], 1, 3, 1)
    if top_rest is None:
        return None
    return top, {rest[k] for k in top_rest}


def dot_scene(template: int, rng: random.Random,
              answers: tuple[int, int] | None = None) -> Scene:
    """A dot scene for template 4–6; with ``answers`` (the shortcut-free design), one whose
    programs give these (original, counterfactual) answers."""
    while True:
        circles = _circles(rng)
        if template == 5 and not top_right_ok(circles):
            continue
        radii = [r for _, _, r in circles]
        want = (counts(template, radii, rng) if answers is None
                else planned_counts(template, circles, answers, rng))
        if want is None:
            continue
        if template == 5 and answers is None:  # skip counts whose answers would be rejected
            (o_lo, o_hi), (c_lo, c_hi) = RANGES[5]
            found = top_right_answers(circles, want)
            if found is None or not (o_lo <= found[0] <= o_hi and c_lo <= found[1] <= c_hi) \
                    or found[0] == found[1] or leaks(TOP_RIGHT_PREMISE, found[1]):
                continue
        dots: list[tuple[int, int]] = []
        for (x, y, r), n in zip(circles, want, strict=True):
            placed = _dots(rng, x, y, r, n)
            if len(placed) < n:
                break
            dots += placed
        else:
            break
    line = rng.choice(RELEASE_COLORS)
    dot_color = rng.choice([c for c in DOT_COLORS if c != line])
    objects = [SceneObject(f"circle-{i}", "circle", line, float(x), float(y), float(r),
                           style="outline", line_width=LINE)
               for i, (x, y, r) in enumerate(circles, start=1)]
    rng.shuffle(dots)
    objects += [SceneObject(f"dot-{i}", "dot", dot_color, float(x), float(y), float(DOT_RADIUS))
                for i, (x, y) in enumerate(dots, start=1)]
    return Scene(CANVAS, CANVAS, tuple(objects))
