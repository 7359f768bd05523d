"""The C-VQA-Synthetic generator: six templates × N images, two questions per image."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import random
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

from whatifbench.core.card import Card
from whatifbench.core.contract import Demo
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.design import DEFAULT_DESIGN, PAPER, SHORTCUT_FREE, check_design
from whatifbench.core.item import Item
from whatifbench.core.params import SECRET, Design, Executor, Param, card_params, declared
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.runner.executors.config import JobMap
from whatifbench.scenes.opaque import Namer, Telling, Unique, opaque_naming
from whatifbench.scenes.options import deal_by
from whatifbench.scenes.pool import process_pool
from whatifbench.scenes.render import reuse_image_memory
from whatifbench.suites.cvqa.synthetic.flowers import CANVAS
from whatifbench.suites.cvqa.synthetic.options import LETTERS, balanced_letters
from whatifbench.suites.cvqa.synthetic.pair import GENERATOR, VERSION, Built, Job, build_all
from whatifbench.suites.cvqa.synthetic.planned import N_MAX
from whatifbench.suites.cvqa.synthetic.scenes import CvqaSyntheticScenes
from whatifbench.suites.cvqa.synthetic.templates import TEMPLATES

ROLES = ("original", "counterfactual")
BATCH = 16
"""Most images per batch handed to a worker (see ``run_jobs``)."""
RAY_SPLIT = 8
"""Workers assumed when cutting batches for Ray tasks (the output never depends on it)."""

WHOLE_DATASET = (
    "What a reader of the whole dataset can infer (a harness that asks one item at a time shows "
    "none of it; few-shot demonstrations never come from an item's own pair or picture): each "
    "image has two questions, an original and its counterfactual (one pair id); where the "
    "premise names N (templates 2 and 4) the counterfactual answer is the original minus N, so "
    "a guess of the pair as a whole is right a quarter of the time (the joint chance of pair "
    "accuracy), elsewhere one in sixteen; no question names another's answer and no picture "
    "is shared between pairs. images/intervened/ (with --intervened-images) shows every "
    "counterfactual scene: keep it out of what a model sees (exports leave it out unless "
    "--with-answers). File names and ids are keyed by a secret kept out of the dataset, "
    "items.jsonl is in id order and the images are written in name order with one time.")
"""``card.extra["whole_dataset_reader"]`` of the shortcut-free design."""


def plan(per_template: int, seed: int, intervened: bool = False,
         balanced_values: bool = False, design: str = DEFAULT_DESIGN,
         namer: Namer | None = None) -> list[Job]:
    """Every image to make, numbered as the release (template k after templates 1 … k−1).

    The correct letters are dealt here, balanced per template and role, so that they do not
    depend on how the work is split between processes. The shortcut-free design also deals
    the right original option's rank among the original options, balanced per template and
    letter (the smallest option at A is right as often as at B ...), the right counterfactual
    option's rank balanced per template, original rank and counterfactual letter (so that it
    says nothing of the original's), and the two letters of a pair independently (the same
    letter in about a quarter of the pairs, as for any four-option guess); where the premise
    names N, each counterfactual option is its original minus N, so its rank is the original
    one, and the counterfactual letter is dealt balanced per rank.
    ``namer`` gives the shortcut-free design's opaque names.
    """
    jobs = []
    for template in TEMPLATES:
        letters = [balanced_letters(per_template, random.Random(_seed(seed, template, role)))
                   for role in ROLES]
        ranks = cf_ranks = [0] * per_template
        if design == SHORTCUT_FREE:
            ranks = deal_by(random.Random(_seed(seed, template, "rank")), range(len(LETTERS)),
                            letters[0])
            if template in N_MAX:
                letters[1] = deal_by(random.Random(_seed(seed, template, "cf-by-rank")),
                                     range(len(LETTERS)), ranks)
                cf_ranks = ranks
            else:
                cf_ranks = deal_by(random.Random(_seed(seed, template, "cf-rank")),
                                   range(len(LETTERS)), list(zip(ranks, letters[1],
                                                                 strict=True)))
        for index in range(per_template):
            number = (template - 1) * per_template + index + 1
            jobs.append(Job(template, index, number, seed, (letters[0][index], letters[1][index]),
                            intervened, balanced_values, design, ranks[index],
                            cf_ranks[index], namer))
    return jobs


def _seed(seed: int, template: int, role: str) -> int:
    key = f"{GENERATOR}:letters:{seed}:{template}:{role}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


def default_workers() -> int:
    """Processes to use: the CPUs this process may run on (at most 8)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus))


def run_jobs(jobs: Sequence[Job], workers: int, executor: JobMap | None = None
             ) -> Iterator[Built]:
    """Build every job (in parallel when ``workers`` > 1, or in Ray tasks with ``executor``),
    yielding results in job order.

    Jobs go out in batches (``build_all`` makes a batch phase by phase, on warm caches).
    Workers only compute; the caller writes the files (one writer: file systems often handle
    one process creating files much better than several at once).
    """
    if executor is not None:
        for built in executor.map(build_all, split(jobs, RAY_SPLIT), setup=reuse_image_memory):
            yield from built
        return
    batches = split(jobs, workers)
    if workers <= 1 or len(batches) < 2:
        reuse_image_memory()
        for batch in batches:
            yield from build_all(batch)
        return
    with process_pool(workers, build_all.__module__) as pool:
        for built in pool.imap(build_all, batches):
            yield from built


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while this process gathers thousands of items (they
    hold no cycles, and full collections over them cost more than they free)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def split(jobs: Sequence[Job], workers: int) -> list[Sequence[Job]]:
    """Batches of at most ``BATCH`` jobs, at least four per worker, and smaller ones at the end
    (so that the workers finish together)."""
    size = max(1, min(BATCH, len(jobs) // (4 * workers)))
    small = max(1, size // 4)
    cut = max(0, len(jobs) - 2 * workers * size) // size * size
    return ([jobs[i:i + size] for i in range(0, cut, size)]
            + [jobs[i:i + small] for i in range(cut, len(jobs), small)])


class Tally:
    """The card's balance figures, gathered item by item (while workers are still busy)."""

    def __init__(self) -> None:
        self.letters: dict[str, Counter[str]] = {role: Counter() for role in ROLES}
        self.ranks: dict[str, Counter[int]] = {role: Counter() for role in ROLES}
        self.ranges: dict[str, dict[str, list[int]]] = {}
        self.removed: dict[str, list[int]] = {}

    def add(self, items: Iterable[Item]) -> None:
        """Count more items."""
        for item in items:
            role, group = item.role or "", item.group or ""
            self.letters[role][LETTERS[item.target_index]] += 1
            value = int(item.target)
            self.ranks[role][sorted(int(c) for c in item.choices).index(value)] += 1
            low_high = self.ranges.setdefault(group, {}).setdefault(role, [value, value])
            low_high[0], low_high[1] = min(low_high[0], value), max(low_high[1], value)
            n = item.provenance.get("params", {}).get("n")
            if n is not None and role == "counterfactual":
                span = self.removed.setdefault(group, [n, n])
                span[0], span[1] = min(span[0], n), max(span[1], n)

    def summary(self) -> dict[str, Any]:
        """See ``balance``."""
        shares = {role: {letter: round(100 * counts[letter] / max(1, sum(counts.values())), 2)
                         for letter in LETTERS} for role, counts in self.letters.items()}
        rank_shares = {role: {str(r): round(100 * counts[r] / max(1, sum(counts.values())), 2)
                              for r in range(4)} for role, counts in self.ranks.items()}
        return {"letter_share_percent": shares, "value_rank_share_percent": rank_shares,
                "answer_ranges": dict(sorted(self.ranges.items())),
                "n_ranges": dict(sorted(self.removed.items()))}


def balance(items: Iterable[Item]) -> dict[str, Any]:
    """Letter shares and shares of the correct value's rank among the options (0: smallest)
    per role (percent), answer ranges per template and role, N ranges."""
    tally = Tally()
    tally.add(items)
    return tally.summary()


def _tell(telling: Telling, job: Job, built: Built) -> None:
    """The telling names of one image and its items (the private file's sections)."""
    telling.add("images", f"images/{job.name}", job.release_name)
    if job.intervened:
        telling.add("images", f"images/intervened/{job.intervened_name}",
                    f"intervened/{job.release_name}")
    telling.add("pairs", job.pair_id, job.release_name.removesuffix(".png"))
    for item in built.items:
        telling.add("items", item.id, f"{job.release_name.removesuffix('.png')}:{item.role}")


@register("generator", "cvqa-synthetic")
class CvqaSyntheticGenerator:
    """C-VQA-Synthetic (C-VQA §3.3): flower and dot counting with counterfactual premises."""

    version = VERSION
    suite = "cvqa-synthetic"
    """The suite of the datasets it writes."""
    scene_source = CvqaSyntheticScenes
    """The oracle's scenes of its items (``scenes.source``)."""
    demo = Demo(params={"per_template": 50, "design": DEFAULT_DESIGN},
                small={"per_template": 5, "design": DEFAULT_DESIGN})
    """The suite's example: the small suite of the default run and the inspect task."""

    @staticmethod
    @declared
    def generate(
        out: str | Path, *,
        per_template: Annotated[int, Param(
            "images per template (default 500, as the release)", metavar="N", low=1)] = 500,
        seed: Annotated[int, Param("random seed")] = 0,
        overwrite: bool = False,
        workers: Annotated[int | None, Param(
            "processes (default: all CPUs; the output does not change)", metavar="N", low=1,
            card=False)] = None,
        intervened: Annotated[bool, Param(
            "also render each counterfactual scene (images/intervened/)",
            flag="--intervened-images", card="intervened_images")] = False,
        balanced_values: Annotated[bool, Param(
            "draw distractors so that the correct value is not most often the second smallest "
            "option (the release's text-only shortcut)")] = False,
        design: Annotated[str, Design(
            "the options of both questions first, then which are right, then the scene, so "
            "that no text-only reader, and no reader that believes or flips what it sees, "
            "beats chance")] = DEFAULT_DESIGN,
        secret_file: Annotated[str | Path | None, SECRET] = None,
        executor: Annotated[JobMap | None, Executor()] = None,
        progress: bool = False) -> Card:
        """Write the dataset to ``out``: ``6 × per_template`` images, two items each.

        ``workers`` (default: the available CPUs) or ``executor`` (Ray tasks; images come back
        to this process, which writes them) change only the speed, never the output;
        ``intervened`` also renders each counterfactual scene (``images/intervened/``);
        ``balanced_values`` removes the release's value-rank shortcut (see ``make_options``);
        ``design`` is ``paper`` (the release's distribution, its text-only shortcuts included)
        or ``shortcut-free`` (options drawn first, then the answer, then the scene: see
        ``planned``);
        ``progress`` shows a bar of images drawn on stderr (on a terminal);
        ``secret_file``: the naming secret of the shortcut-free design's opaque names
        (``core.namekey``; default: the home secret).
        """
        if check_design(design) == SHORTCUT_FREE and balanced_values:
            raise WhatifError("--balanced-values changes only the paper design's distractors; "
                              "--design shortcut-free already balances the options: drop one "
                              "of the two.")
        params = {**card_params(CvqaSyntheticGenerator.generate, locals()),
                  "canvas": [CANVAS, CANVAS]}
        namer, telling = opaque_naming(design, secret_file, GENERATOR, seed)
        jobs = plan(per_template, seed, intervened, balanced_values, design, namer)
        with DatasetWriter(out, overwrite) as writer, _collector_paused():
            tally = Tally()
            unique = Unique("images")
            held: list[Item] = []
            from tqdm import tqdm

            bar = tqdm(total=len(jobs), desc="generating images", unit="image",
                       disable=not progress or None, file=sys.stderr, leave=False)
            for job, built in zip(jobs, run_jobs(jobs, workers or default_workers(), executor),
                                  strict=True):
                for name, data in built.files:  # opaque names: a collision is refused
                    writer.add_image(unique.check(name, built.items[0].pair_id), data)
                if telling is None:
                    writer.add_items(built.items)
                else:  # written by id below: the file's order says nothing
                    held += built.items
                    _tell(telling, job, built)
                tally.add(built.items)
                bar.update(1)
            bar.close()
            if telling is not None:
                writer.add_items(sorted(held, key=lambda item: item.id))
                writer.private = telling.private()
            card = writer.finish(
                name="cvqa-synthetic", suite="cvqa-synthetic", version=VERSION,
                generator={"name": GENERATOR, "params": params}, seed=seed,
                extra={"balance": tally.summary(), **(
                    {"whole_dataset_reader": WHOLE_DATASET} if design != PAPER else {})})
        return card
