"""The shortcut-free design of CFMM-Synthetic: what the text shows and the right answer are
fixed before the scene (``scenes.options``), and the right answers are dealt in balanced shares.

Every template the design keeps draws a plan first (the premise, the shapes, colours and
numbers the text names, and the right answers from the dealt indexes), which it keeps while
scenes are drawn (``fixed``): count and size (``PLANS``), and the colour, shape and direction
templates of ``cfmm.free``, whose premises leave the answer open until the picture is read.
Colour pairs get a dealt (answer, other option) colour pair: every colour is right as often as
it is offered wrong.

**Symmetric** draws (``SYMMETRIES``, ``adjust``): in colour, direction and shape-pointing pairs,
swapping colour names everywhere, reflecting every position across the asked axis, or turning
the triangle round maps every valid pair to an equally likely valid pair with the same text
and the other answer; such a pair, drawn as in the paper design, is turned into its twin when
its basic answer is not the dealt one. The design no longer draws its pairs this way (their
premises told whether the answer changes); only a lone ``direction-picture`` pair, which the
design leaves out, still is.

Dealt answers (``deal_answers``): per template and "the answer changes", the index of the
right basic option (0 = yes, the first-named object, the smaller count, up / left, the
first side word ...) alternates in balanced shares, so the answers' values are balanced
exactly, not only on average.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from whatifbench.scenes.model import Scene
from whatifbench.scenes.options import deal_by, deal_pairs
from whatifbench.scenes.verbal import SIDE_WORDS
from whatifbench.suites.cfmm import tpl_count, tpl_size
from whatifbench.suites.cfmm.layout import COLORS

PLANS: dict[str, Callable[[bool, random.Random, int], Any]] = {
    "count-shapes": lambda changed, rng, answer: tpl_count.draw_plan(
        "count-shapes", changed, rng, answer),
    "count-colors": lambda changed, rng, answer: tpl_count.draw_plan(
        "count-colors", changed, rng, answer),
    "size-yes-no": lambda changed, rng, answer: tpl_size.draw_plan(
        "size-yes-no", changed, rng, answer),
    "size-which": lambda changed, rng, answer: tpl_size.draw_plan(
        "size-which", changed, rng, answer),
}
"""Templates planned before their scene: plan(changed, rng, dealt answer index)."""
COLOR_TEMPLATES = ("color-swap", "color-match", "color-extreme")
POINTS = {"up": "down", "down": "up", "left": "right", "right": "left"}
"""Where a triangle points after the picture is turned by 180 degrees."""
SYMMETRIES = (*COLOR_TEMPLATES, "direction-picture", "direction-swap", "shape-pointing")
"""Templates whose answer is matched to the dealt one by a symmetry (``adjust``)."""



def deal_answers(templates: Sequence[str], changed: Sequence[bool], rng: random.Random
                 ) -> tuple[list[int], list[tuple[str, str]], list[tuple[int, int]]]:
    """For the pairs of one category (their templates and changed flags): the index of the
    right basic option, the (right, other) colours of colour templates (``("", "")``
    elsewhere) and the correct option positions (basic, counterfactual).

    The basic position is dealt per template and changed flag, the answer index per template,
    flag and basic position: so within every template the option standing first is right
    exactly as often as the other, whatever its value (the groups take turns with their
    leftovers, so a category's shares are exact within an item or two). The counterfactual
    position is dealt last, per template, flag, answer index and basic position: each
    question shows its options in an order of its own, the counterfactual's right value
    stands first as often as second, and the two letters of a pair are the same in half of
    each template's pairs whatever the answers (a shared letter would hand a letter-biased
    model the second answer with the first; a shared order, the first answer with the
    second)."""
    n = len(templates)
    basic = deal_by(rng, (0, 1), list(zip(templates, changed, strict=True)))
    index = deal_by(rng, (0, 1), list(zip(templates, changed, basic, strict=True)))
    colors = [("", "")] * n
    for template in COLOR_TEMPLATES:
        where = [i for i, t in enumerate(templates) if t == template]
        for i, pair in zip(where, deal_pairs(rng, COLORS, len(where)), strict=True):
            colors[i] = pair
    cf = deal_by(rng, (0, 1), list(zip(templates, changed, index, basic, strict=True)))
    return index, colors, list(zip(basic, cf, strict=True))


def _recolored(scene: Scene, mapping: dict[str, str]) -> Scene:
    return scene.with_objects(o.replace(color=mapping.get(o.color, o.color))
                              for o in scene.objects)


def adjust(template: str, scene: Scene, params: dict[str, Any], basic: str, other: str,
           answer: int, colors: tuple[str, str], rng: random.Random
           ) -> tuple[Scene, dict[str, str]] | None:
    """The scene changed by the template's symmetry so that its basic answer is the dealt one,
    and the word mapping that goes with it (for the options); ``None`` when nothing changes.
    ``basic`` and ``other`` are the drawn pair's basic answer and other option."""
    if template in COLOR_TEMPLATES:
        if (basic, other) == colors or not all(c in COLORS for c in colors):
            return None  # already as dealt, or no colours dealt
        rest = [c for c in COLORS if c not in (basic, other)]
        free = [c for c in COLORS if c not in colors]
        rng.shuffle(free)
        mapping = {basic: colors[0], other: colors[1], **dict(zip(rest, free, strict=True))}
        return _recolored(scene, mapping), mapping
    if template == "shape-pointing":  # the triangle turned round points the other way
        words = ("up", "down") if basic in ("up", "down") else ("left", "right")
        if basic == words[answer]:
            return None
        return scene.with_objects(o.replace(angle=(o.angle + 180.0) % 360.0)
                                  if o.shape == "triangle" else o
                                  for o in scene.objects), POINTS
    axis = params["axis"]  # direction: every position reflected across the asked axis
    words = SIDE_WORDS[axis]
    if basic == words[answer]:
        return None
    return scene.with_objects(o.replace(x=scene.width - o.x) if axis == "x"
                              else o.replace(y=scene.height - o.y)
                              for o in scene.objects), {words[0]: words[1], words[1]: words[0]}
