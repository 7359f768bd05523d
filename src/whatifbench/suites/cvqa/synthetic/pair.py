"""One image and its two questions: sample a valid scene, compute answers, render, make items."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from whatifbench.core.design import PAPER, SHORTCUT_FREE
from whatifbench.core.item import Item
from whatifbench.scenes.filters import leaks, scene_problems
from whatifbench.scenes.model import Scene
from whatifbench.scenes.opaque import Namer
from whatifbench.scenes.options import arrange
from whatifbench.scenes.programs import Program
from whatifbench.scenes.render import encode_png, render
from whatifbench.suites.cvqa.synthetic.dots import dot_scene
from whatifbench.suites.cvqa.synthetic.flowers import flower_scene
from whatifbench.suites.cvqa.synthetic.identity import GENERATOR, VERSION
from whatifbench.suites.cvqa.synthetic.options import make_options, options_text
from whatifbench.suites.cvqa.synthetic.planned import Plan, draw_plan
from whatifbench.suites.cvqa.synthetic.templates import (
    DOTS_IN_CIRCLES,
    FLOWER_TEMPLATES,
    N_RANGES,
    RANGES,
    Instance,
    explain,
    flowers_in,
    template_1,
    template_2,
    template_3,
    template_4,
    template_5,
    template_6,
)

MAX_ATTEMPTS = 500
PLAN_ATTEMPTS = 200
"""Scenes drawn for one shortcut-free plan before the plan is drawn again ..."""
MAX_PLANS = 50
"""... and plans before giving up (every plan has a scene: none is redrawn in practice)."""


@dataclass(frozen=True)
class Job:
    """One image to make."""

    template: int
    """1 … 6."""
    index: int
    """0-based position within its template."""
    number: int
    """1-based image number over the whole dataset (the file name)."""
    seed: int
    """The dataset seed."""
    letters: tuple[int, int]
    """Correct option positions (0–3) of the original and counterfactual question."""
    intervened: bool = False
    """Also render the intervened scene (``images/intervened/<name>``)."""
    balanced_values: bool = False
    """Draw distractors so that the correct value's rank among the options is uniform."""
    design: str = PAPER
    """``paper`` (the release's distribution) or ``shortcut-free`` (``planned``)."""
    answer: int = 0
    """Shortcut-free: the right original option's rank among the original options (dealt)."""
    cf_answer: int = 0
    """Shortcut-free: the right counterfactual option's rank among the counterfactual options
    (dealt; templates 2 and 4 take the original's)."""
    namer: Namer | None = field(default=None, repr=False, compare=False)
    """Shortcut-free: the dataset's opaque names (``scenes.opaque``)."""

    def _names(self) -> Namer:
        if self.namer is None:
            raise ValueError(f"a {self.design} job needs a namer (the naming secret)")
        return self.namer

    @property
    def release_name(self) -> str:
        """``abs_counting_000001.png`` ... (the release's naming)."""
        return f"abs_counting_{self.number:06d}.png"

    @property
    def name(self) -> str:
        """The image file: the release's name (``paper``), else an opaque one
        (``scenes.opaque``: keyed by the image number, never by its answers)."""
        if self.design == PAPER:
            return self.release_name
        return self._names().file("image", self.number)

    @property
    def intervened_name(self) -> str:
        """The intervened scene's file under ``images/intervened/``."""
        if self.design == PAPER:
            return self.release_name
        return self._names().file("intervened", self.number)

    @property
    def pair_id(self) -> str:
        """``abs_counting_000001`` (``paper``), else opaque."""
        if self.design == PAPER:
            return self.release_name.removesuffix(".png")
        return self._names().name("pair", self.number)

    def item_id(self, role: str) -> str:
        """``abs_counting_000001:original`` (``paper``), else opaque."""
        if self.design == PAPER:
            return f"{self.pair_id}:{role}"
        return self._names().name("item", self.number, role)

    @property
    def image_seed(self) -> int:
        """The image's own seed: independent of worker count and of other images."""
        key = f"{GENERATOR}:{self.seed}:{self.template}:{self.index}".encode()
        return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


@dataclass(frozen=True)
class Sample:
    """A valid scene with its instance and answers."""

    scene: Scene
    """The scene as drawn."""
    after: Scene
    """The scene after the premise's interventions."""
    instance: Instance
    """The filled-in template."""
    answers: tuple[int, int]
    """(original, counterfactual), computed by the programs."""
    other: str | None
    """Flower templates: the colour of the polygon the question does not name."""
    attempts: int
    """How many scenes were drawn until one passed every check."""
    plan: Plan | None = None
    """The shortcut-free plan the scene was built for (its options), else ``None``."""


class NoScene(RuntimeError):
    """No valid scene came up in the attempts allowed."""


def sample(template: int, rng: random.Random, plan: Plan | None = None,
           attempts: int = MAX_ATTEMPTS) -> Sample:
    """Draw scenes until one passes the range, change, leakage and ambiguity checks; with a
    ``plan``, scenes built for its answers (only what the text does not show is redrawn).
    Raises ``NoScene`` after ``attempts`` draws."""
    for attempt in range(1, attempts + 1):
        scene, instance, other = _draw(template, rng, plan)
        after = instance.intervened(scene)
        orig, cf = answers = instance.answers(scene, after)
        (o_lo, o_hi), (c_lo, c_hi) = RANGES[template]
        if plan is not None:
            if answers != plan.answers:
                continue
        elif not (o_lo <= orig <= o_hi and c_lo <= cf <= c_hi) or orig == cf:
            continue
        if leaks(instance.premise, cf) or scene_problems(scene) or instance.problems(scene, after):
            continue
        return Sample(scene, after, instance, answers, other, attempt, plan)
    raise NoScene(f"no valid scene for template {template} after {attempts} attempts")


def sample_planned(template: int, rng: random.Random, right: tuple[int, int] | None = None
                   ) -> Sample:
    """The shortcut-free design: draw a plan (``planned.draw_plan``; ``right``: the indexes of
    the right original and counterfactual options), then scenes for it; a plan no scene fits
    in ``PLAN_ATTEMPTS`` draws is replaced by the next one."""
    for _ in range(MAX_PLANS):
        plan = draw_plan(template, rng, right)
        try:
            return sample(template, rng, plan, PLAN_ATTEMPTS)
        except NoScene:
            continue
    raise NoScene(f"no valid scene for template {template} for {MAX_PLANS} plans")


def _draw(template: int, rng: random.Random, plan: Plan | None = None
          ) -> tuple[Scene, Instance, str | None]:
    answers = None if plan is None else plan.answers
    if template in FLOWER_TEMPLATES:
        scene, color, other = flower_scene(template, rng, answers)
        if template == 1:
            return scene, template_1(color), other
        if template == 3:
            return scene, template_3(color, other), other
        inside = [f.id for f in flowers_in(color).select(scene)]
        return scene, template_2(color, _removed(inside, 2, rng, plan)), other
    scene = dot_scene(template, rng, answers)
    if template == 4:
        inside = [d.id for d in DOTS_IN_CIRCLES.select(scene)]
        return scene, template_4(_removed(inside, 4, rng, plan)), None
    return scene, template_5() if template == 5 else template_6(), None


def _removed(ids: list[str], template: int, rng: random.Random, plan: Plan | None = None
             ) -> tuple[str, ...]:
    """N of the counted objects, N within the release's range and not equal to what remains
    (the plan's N when there is a plan)."""
    if plan is not None and plan.n is not None:
        return tuple(sorted(rng.sample(ids, plan.n))) if plan.n <= len(ids) else ()
    low, high = N_RANGES[template]
    choices = [n for n in range(low, min(high, len(ids)) + 1) if n != len(ids) - n]
    if not choices:
        return ()
    return tuple(sorted(rng.sample(ids, rng.choice(choices))))


@dataclass(frozen=True)
class Built:
    """One finished image with its two items (files are written by the caller)."""

    files: tuple[tuple[str, bytes], ...]
    """``(path under images/, PNG bytes)``: the image, and the intervened scene if asked."""
    items: tuple[Item, Item]
    """The original and the counterfactual item."""


def build(job: Job) -> Built:
    """Make one image and its original/counterfactual items."""
    return build_all([job])[0]


def build_all(jobs: Sequence[Job]) -> list[Built]:
    """Make several images, one phase at a time: every scene, then every drawing, then every
    PNG, then every item (each phase runs on warm caches, which makes a batch much cheaper
    than the same images one by one). The output does not depend on how jobs are batched:
    each image has its own random stream."""
    seeds = [job.image_seed for job in jobs]
    rngs = [random.Random(seed) for seed in seeds]
    samples = [sample_planned(job.template, rng, (job.answer, job.cf_answer))
               if job.design == SHORTCUT_FREE
               else sample(job.template, rng) for job, rng in zip(jobs, rngs, strict=True)]
    pictures: list[list[Image.Image]] = [
        [render(s.scene), *([render(s.after)] if job.intervened else [])]
        for job, s in zip(jobs, samples, strict=True)]
    encoded = [[encode_png(p, job.design != PAPER) for p in pics]
               for job, pics in zip(jobs, pictures, strict=True)]
    return [_built(*args) for args in zip(jobs, seeds, rngs, samples, encoded, strict=True)]


def _built(job: Job, image_seed: int, rng: random.Random, s: Sample,
           encoded: list[bytes]) -> Built:
    """The items of one image (``rng`` continues the image's stream after its scene)."""
    files = [(job.name, encoded[0])]
    inst = s.instance
    common: dict[str, Any] = {"generator": GENERATOR, "version": VERSION, "seed": job.seed,
                              "image_seed": image_seed, "template": job.template,
                              "params": inst.params}
    if s.plan is not None:  # what rebuilds the scene from the seed (program tools' oracle)
        common.update(design=job.design, dealt=list(s.plan.right))
    cf_extra: dict[str, Any] = {"premise": inst.premise,
                                "interventions": [i.to_json() for i in inst.interventions]}
    if job.intervened:
        rel = f"intervened/{job.intervened_name}"
        files.append((rel, encoded[1]))
        cf_extra["intervened_image"] = f"images/{rel}"
    explanations = explain(inst, s.scene, s.after, s.answers, s.other)
    items: list[Item] = []
    roles: tuple[tuple[str, str, Program, dict[str, Any]], ...] = (
        ("original", inst.original, inst.program, {}),
        ("counterfactual", inst.counterfactual, inst.cf_program, cf_extra))
    for (role, text, program, extra), value, letter, why in zip(
            roles, s.answers, job.letters, explanations, strict=True):
        if s.plan is None:
            options = make_options(value, letter, rng, job.balanced_values)
        else:  # in an order of its own: the letters of a pair are dealt independently
            options = arrange(value, s.plan.distractors(len(items)), letter, rng)
        items.append(Item(
            id=job.item_id(role), images=(f"images/{job.name}",),
            question=text + options_text(options), kind="choice", target=str(value),
            choices=tuple(str(v) for v in options), pair_id=job.pair_id, role=role,
            group=f"abs_counting_{job.template}",
            meta={"template": job.template, "image": job.name},
            provenance={**common, "program": program.to_json(), **extra, "answer": value,
                        "explanation": why},
        ))
    return Built(tuple(files), (items[0], items[1]))
