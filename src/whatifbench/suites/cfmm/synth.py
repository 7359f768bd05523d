"""One CFMM-Synthetic pair: draw until a valid pair comes up, render both scenes, make the
basic and the counterfactual item."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from whatifbench.core.design import PAPER, SHORTCUT_FREE
from whatifbench.core.item import Item
from whatifbench.scenes.interventions import apply_all
from whatifbench.scenes.model import Scene, SceneError
from whatifbench.scenes.opaque import Namer
from whatifbench.scenes.render import render_png
from whatifbench.suites.cfmm.design import PLANS, SYMMETRIES, adjust
from whatifbench.suites.cfmm.draw import Draw, Premise, pair_problems, scene_ok
from whatifbench.suites.cfmm.free import FREE_TEMPLATES, draw_free_plan
from whatifbench.suites.cfmm.pairs import ROLE_SUFFIX
from whatifbench.suites.cfmm.tpl_color import color_extreme, color_match, color_swap
from whatifbench.suites.cfmm.tpl_count import count_colors, count_shapes
from whatifbench.suites.cfmm.tpl_direction import direction_picture, direction_swap
from whatifbench.suites.cfmm.tpl_shape import shape_aspect, shape_name, shape_pointing
from whatifbench.suites.cfmm.tpl_size import size_which, size_yes_no

GENERATOR = "cfmm-synthetic"
VERSION = "1.2"
"""Generator version: bump whenever the output for a given seed changes (1.1: the default
design is ``shortcut-free``; 1.2: its premises leave the answer open until the picture is read
and the answer changes in exactly half of every template's pairs (``free``), its shape-name
rectangles and ovals keep the square's area, its names are keyed by the naming secret)."""
MAX_ATTEMPTS = 2000
PLAN_ATTEMPTS = 300
"""Scenes drawn for one shortcut-free plan before the plan is drawn again ..."""
MAX_PLANS = 50
"""... and plans before giving up (every plan has a scene: none is redrawn in practice)."""

Template = Callable[..., Draw | None]
TEMPLATES: dict[str, dict[str, Template]] = {
    "count": {"count-shapes": count_shapes, "count-colors": count_colors},
    "color": {"color-swap": color_swap, "color-match": color_match,
              "color-extreme": color_extreme},
    "size": {"size-yes-no": size_yes_no, "size-which": size_which},
    "shape": {"shape-aspect": shape_aspect, "shape-name": shape_name,
              "shape-pointing": shape_pointing},
    "direction": {"direction-picture": direction_picture, "direction-swap": direction_swap},
}
"""The question templates of each category (CFMM's ``common`` needs world knowledge: import
only)."""
CATEGORIES = tuple(TEMPLATES)
FREE_LEFT_OUT = ("direction-picture",)
"""Templates the shortcut-free design leaves out (``free``: whether its answer changes follows
from the words of its premise and question)."""
COUNTS = ("count-shapes", "count-colors")


def templates_of(category: str, design: str) -> tuple[str, ...]:
    """The templates of a category in a design."""
    names = tuple(TEMPLATES[category])
    return names if design != SHORTCUT_FREE else tuple(t for t in names
                                                       if t not in FREE_LEFT_OUT)


@dataclass(frozen=True)
class Job:
    """One pair to make."""

    category: str
    """One of ``CATEGORIES``."""
    index: int
    """0-based position within its category."""
    seed: int
    """The dataset seed."""
    template: str
    """The template (a key of ``TEMPLATES[category]``)."""
    changed: bool
    """Whether the premise must change the answer (the shortcut-free count templates, whose
    every counterfactual option differs from the basic ones: whether the right
    counterfactual option has the other rank than the basic one's)."""
    letters: tuple[int, int]
    """Correct option position (0 = A, 1 = B) of the basic and the counterfactual question."""
    design: str = SHORTCUT_FREE
    """``paper`` or ``shortcut-free`` (``design``)."""
    answer: int = 0
    """Shortcut-free: index of the right basic option (dealt, ``design.deal_answers``)."""
    colors: tuple[str, str] = ("", "")
    """Shortcut-free colour templates: the dealt (right, other) colours."""
    namer: Namer | None = field(default=None, repr=False, compare=False)
    """Shortcut-free: the dataset's opaque names (``scenes.opaque``)."""

    def _names(self) -> Namer:
        if self.namer is None:
            raise ValueError(f"a {self.design} job needs a namer (the naming secret)")
        return self.namer

    @property
    def old_name(self) -> str:
        """The telling image name, ``count_000001.png`` ..."""
        return f"{self.category}_{self.index + 1:06d}.png"

    @property
    def pair_id(self) -> str:
        """``count-000001`` ... (``paper``), else opaque (``scenes.opaque``: keyed by the
        category and index, never by the answers)."""
        if self.design == PAPER:
            return f"{self.category}-{self.index + 1:06d}"
        return self._names().name("pair", self.category, self.index)

    @property
    def name(self) -> str:
        """Image file name, ``count_000001.png`` ... (``paper``), else opaque."""
        if self.design == PAPER:
            return self.old_name
        return self._names().file("image", self.category, self.index)

    @property
    def intervened_name(self) -> str:
        """The intervened scene's file under ``images/intervened/``."""
        if self.design == PAPER:
            return self.old_name
        return self._names().file("intervened", self.category, self.index)

    def item_id(self, role: str) -> str:
        """``count-000001-b`` ... (``paper``), else opaque."""
        if self.design == PAPER:
            return f"{self.pair_id}-{ROLE_SUFFIX[role]}"
        return self._names().name("item", self.category, self.index, role)

    @property
    def pair_seed(self) -> int:
        """The pair's own seed: independent of worker count and of other pairs."""
        key = f"{GENERATOR}:{self.seed}:{self.category}:{self.index}".encode()
        return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


@dataclass(frozen=True)
class Sample:
    """A pair that passed every check."""

    draw: Draw
    """The drawn scene and questions."""
    premise: Premise
    """The premise kept."""
    after: Scene
    """The scene changed by the premise."""
    answers: tuple[str, str]
    """(basic, counterfactual), computed by the programs."""
    options: tuple[tuple[str, str], tuple[str, str]]
    """(answer, other option) of the basic and of the counterfactual question."""
    attempts: int
    """Draws until one passed."""


def sample(template: str, changed: bool, rng: random.Random, design: str = SHORTCUT_FREE,
           answer: int = 0, colors: tuple[str, str] = ("", "")) -> Sample:
    """Draw until a pair passes: the premise changes the answer (or not) as asked, every check
    passes (``draw.pair_problems``). In the shortcut-free design (``design``) a template with a
    plan draws it first (the right basic option: index ``answer``) and keeps it while scenes
    are drawn, a plan no scene fits in ``PLAN_ATTEMPTS`` draws being replaced by the next one;
    a symmetric template's pair is turned into one with the dealt answer (and ``colors``)."""
    make = next(t[template] for t in TEMPLATES.values() if template in t)
    free = design == SHORTCUT_FREE
    if free and (template in PLANS or template in FREE_TEMPLATES):
        # count: ``changed`` says whether the right counterfactual option has the other rank
        # than the basic one's; both of its options always differ from the basic ones
        search = True if template in COUNTS else changed
        for _ in range(MAX_PLANS):
            if template in FREE_TEMPLATES:
                make = FREE_TEMPLATES[template]
                fixed = draw_free_plan(template, changed, rng, answer, colors)
            else:
                fixed = PLANS[template](changed, rng, answer)
            found = _search(partial(make, changed=search, fixed=fixed), search, rng,
                            PLAN_ATTEMPTS)
            if found is not None:
                return found
        raise RuntimeError(f"no valid {template} pair for {MAX_PLANS} plans")
    matched = partial(_symmetric, template, answer, colors) if free and template in SYMMETRIES \
        else None
    found = _search(partial(make, changed=changed), changed, rng, MAX_ATTEMPTS, matched)
    if found is None:
        raise RuntimeError(f"no valid {template} pair after {MAX_ATTEMPTS} draws")
    return found


def _symmetric(template: str, answer: int, colors: tuple[str, str], s: Sample,
               rng: random.Random) -> Sample | None:
    """``s`` turned by the template's symmetry into the pair with the dealt answer (``None``
    when the turned pair fails a check)."""
    (b, other), (c, _) = s.options
    found = adjust(template, s.draw.scene, s.draw.params, b, other, answer, colors, rng)
    if found is None:
        return s
    scene, words = found
    draw = replace(s.draw, scene=scene, distractor=words.get(s.draw.distractor,
                                                             s.draw.distractor))
    after = apply_all(scene, s.premise.interventions)
    answers = str(draw.basic_program.execute(scene)), str(draw.cf_program.execute(after))
    options = draw.options(*answers, rng)
    if answers != (words.get(b, b), words.get(c, c)) or options is None or not scene_ok(draw) \
            or pair_problems(draw, s.premise, after, answers, options):
        return None
    return Sample(draw, s.premise, after, answers, options, s.attempts)


def _search(make: Callable[[random.Random], Draw | None], changed: bool, rng: random.Random,
            attempts: int,
            matched: Callable[[Sample, random.Random], Sample | None] | None = None
            ) -> Sample | None:
    for attempt in range(1, attempts + 1):
        draw = make(rng)
        if draw is None or not scene_ok(draw):
            continue
        b = str(draw.basic_program.execute(draw.scene))
        premises = list(draw.premises)
        rng.shuffle(premises)
        for premise in premises:
            try:
                after = apply_all(draw.scene, premise.interventions)
                c = str(draw.cf_program.execute(after))
            except SceneError:
                continue
            if (c != b) != changed:
                continue
            options = draw.options(b, c, rng)
            if options is not None and not pair_problems(draw, premise, after, (b, c), options):
                drawn = Sample(draw, premise, after, (b, c), options, attempt)
                found = drawn if matched is None else matched(drawn, rng)
                if found is not None:
                    return found
    return None


@dataclass(frozen=True)
class Built:
    """One finished pair (files are written by the caller)."""

    files: tuple[tuple[str, bytes], ...]
    """``(path under images/, PNG bytes)``: the image and the intervened scene."""
    items: tuple[Item, Item]
    """The basic and the counterfactual item."""


def _choices(options: tuple[str, str], letter: int) -> tuple[str, str]:
    """The two options with the answer (``options[0]``) at position ``letter``."""
    return options if letter == 0 else (options[1], options[0])


def build(job: Job) -> Built:
    """Make one image, its intervened scene and the two items."""
    rng = random.Random(job.pair_seed)
    s = sample(job.template, job.changed, rng, job.design, job.answer, job.colors)
    draw, premise = s.draw, s.premise
    intervened = f"intervened/{job.intervened_name}"
    canonical = job.design != PAPER  # the palette of the paper design's bytes: as drawn
    files = ((job.name, render_png(draw.scene, canonical)),
             (intervened, render_png(s.after, canonical)))
    common: dict[str, Any] = {"generator": GENERATOR, "version": VERSION, "seed": job.seed,
                              "pair_seed": job.pair_seed, "template": job.template,
                              "params": draw.params}
    if job.design != PAPER:  # what rebuilds the scene from the seed (program tools' oracle)
        common.update(design=job.design, dealt={"answer": job.answer,
                                                "colors": list(job.colors),
                                                "changed": job.changed})
    b, c = s.answers
    roles: tuple[tuple[str, str, dict[str, Any], str, str, dict[str, Any]], ...] = (
        ("basic", draw.basic, draw.basic_program.to_json(), b,
         draw.basic_explanation.format(b=b), {}),
        ("counterfactual", draw.question(premise), draw.cf_program.to_json(), c,
         premise.explanation.format(b=b, c=c),
         {"premise": premise.text, "premise_kind": premise.kind,
          "interventions": [i.to_json() for i in premise.interventions],
          "intervened_image": f"images/{intervened}"}),
    )
    items = []
    for (role, text, program, answer, why, extra), letter, offered in zip(
            roles, job.letters, s.options, strict=True):
        items.append(Item(
            id=job.item_id(role), images=(f"images/{job.name}",),
            question=text, kind="choice", target=answer,
            choices=_choices(offered, letter), pair_id=job.pair_id, role=role,
            group=job.category, meta={"category": job.category, "template": job.template},
            provenance={**common, "program": program, **extra, "answer": answer,
                        "explanation": why},
        ))
    return Built(files, (items[0], items[1]))
