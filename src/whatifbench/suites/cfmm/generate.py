"""``whatif generate cfmm-synthetic``: CFMM-style basic/counterfactual pairs on the scene engine
(count, color, size, shape, direction), answers computed by programs on intervened scenes."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

from whatifbench.core.card import Card
from whatifbench.core.contract import Demo
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.design import DEFAULT_DESIGN, PAPER, SHORTCUT_FREE, check_design
from whatifbench.core.item import Item
from whatifbench.core.params import SECRET, Design, Executor, Param, card_params, declared
from whatifbench.core.registry import register
from whatifbench.metrics.stats import percent
from whatifbench.runner.executors.config import JobMap
from whatifbench.scenes.opaque import Namer, Telling, Unique, opaque_naming
from whatifbench.scenes.options import deal, deal_by
from whatifbench.scenes.pool import process_pool
from whatifbench.scenes.render import reuse_image_memory
from whatifbench.suites.cfmm.design import deal_answers
from whatifbench.suites.cfmm.layout import CANVAS
from whatifbench.suites.cfmm.pairs import ROLE_SUFFIX, complete_pairs, pair_facts
from whatifbench.suites.cfmm.scenes import CfmmSyntheticScenes
from whatifbench.suites.cfmm.synth import (
    CATEGORIES,
    GENERATOR,
    VERSION,
    Built,
    Job,
    build,
    templates_of,
)
from whatifbench.suites.cvqa.synthetic.generate import default_workers

DEFAULT_CHANGED = 80.0
"""The paper design's default share (percent) of pairs whose counterfactual answer differs
from the basic one."""
FREE_CHANGED = 50.0
"""The shortcut-free design's default share: believing what you see and flipping it score the
same (chance), and at this share the answer changes in exactly half of every template's pairs
(the count templates: the right counterfactual option has the other rank than the basic
one in half of them)."""

WHOLE_DATASET = (
    "What a reader of the whole dataset can infer (a harness that asks one item at a time shows "
    "none of it; few-shot demonstrations never come from an item's own pair or picture): each "
    "picture has a basic and a counterfactual question (one pair id) whose options relate only "
    "as the premise allows (every pairing possible), so a guess of the pair as a whole is right "
    "a quarter of the time; nothing of another pair. images/intervened/ shows every "
    "counterfactual scene (provenance.intervened_image): keep it, and the items' provenance, "
    "out of what a model sees (exports leave both out unless --with-answers). File names and "
    "ids are keyed by a secret kept out of the dataset, items.jsonl is in id order and the "
    "images are written in name order with one time: neither says which picture is which.")
"""``card.extra["whole_dataset_reader"]`` of the shortcut-free design."""


def _rng(seed: int, *parts: object) -> random.Random:
    key = ":".join(map(str, (GENERATOR, "plan", seed, *parts))).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def plan(per_category: int, seed: int, changed_percent: float | None = None,
         design: str = SHORTCUT_FREE, namer: Namer | None = None) -> list[Job]:
    """Every pair to make. Per category, the templates, which pairs change their answer
    (exactly ``round(per_category × changed_percent / 100)``; the shortcut-free design at its
    default ``FREE_CHANGED``: half of every template's pairs), the correct option positions
    (half A, half B per role) and, for the shortcut-free design, the right answers
    (``design.deal_answers``) are dealt here, before any work is split; ``namer`` gives the
    shortcut-free design's opaque names."""
    if changed_percent is None:
        changed_percent = DEFAULT_CHANGED if design == PAPER else FREE_CHANGED
    jobs = []
    for category in CATEGORIES:
        templates = deal(_rng(seed, category, "templates"), templates_of(category, design),
                         per_category)
        if design == SHORTCUT_FREE and changed_percent == FREE_CHANGED:
            # half of every template's pairs change their answer, dealt after the templates
            changed = deal_by(_rng(seed, category, "changed-by-template"), (True, False),
                              templates)
        else:
            n_changed = round(per_category * changed_percent / 100)
            changed = [True] * n_changed + [False] * (per_category - n_changed)
            _rng(seed, category, "changed").shuffle(changed)
        letters = [deal(_rng(seed, category, role), (0, 1), per_category)
                   for role in ("basic", "counterfactual")]
        answers, colors, dealt = deal_answers(templates, changed,
                                              _rng(seed, category, "answers"))
        pairs = dealt if design == SHORTCUT_FREE else list(zip(*letters, strict=True))
        jobs += [Job(category, i, seed, templates[i], changed[i], pairs[i], design, answers[i],
                     colors[i], namer) for i in range(per_category)]
    return jobs


J = TypeVar("J")
R = TypeVar("R")


def parallel_map(fn: Callable[[J], R], jobs: Sequence[J], workers: int,
                 executor: JobMap | None = None) -> Iterator[R]:
    """``map(fn, jobs)`` in ``workers`` processes (``scenes.pool``) or in Ray tasks
    (``executor``), results in order."""
    if executor is not None:
        yield from executor.map(fn, jobs, setup=reuse_image_memory)
        return
    if workers <= 1 or len(jobs) < 2 * workers:
        reuse_image_memory()
        yield from map(fn, jobs)
        return
    chunk = max(1, min(32, len(jobs) // (workers * 8)))
    with process_pool(workers, fn.__module__) as pool:
        yield from pool.imap(fn, jobs, chunksize=chunk)


def balance(items: Sequence[Item]) -> dict[str, Any]:
    """Per category: answer-changed share, correct option A share per role (percent), pairs
    per template and per premise kind."""
    out: dict[str, Any] = {}
    for basic, cf in complete_pairs(items):
        cat = out.setdefault(basic.group or "", {"pairs": 0, "changed": 0, "basic_a": 0,
                                                  "counterfactual_a": 0,
                                                  "templates": Counter(), "premises": Counter()})
        cat["pairs"] += 1
        cat["changed"] += basic.target != cf.target
        cat["basic_a"] += basic.target_index == 0
        cat["counterfactual_a"] += cf.target_index == 0
        cat["templates"][basic.meta.get("template", "")] += 1
        cat["premises"][cf.provenance.get("premise_kind", "")] += 1
    return {name: {"answer_changed_percent": percent(c["changed"], c["pairs"]),
                   "correct_option_a_percent": {
                       "basic": percent(c["basic_a"], c["pairs"]),
                       "counterfactual": percent(c["counterfactual_a"], c["pairs"])},
                   "templates": dict(sorted(c["templates"].items())),
                   "premises": dict(sorted(c["premises"].items()))}
            for name, c in out.items()}


def _tell(telling: Telling, job: Job, built: Built) -> None:
    """The telling names of one pair (the private file's sections)."""
    telling.add("images", f"images/{job.name}", job.old_name)
    telling.add("images", f"images/intervened/{job.intervened_name}",
                f"intervened/{job.old_name}")
    telling.add("pairs", job.pair_id, f"{job.category}-{job.index + 1:06d}")
    for item in built.items:
        telling.add("items", item.id,
                    f"{job.category}-{job.index + 1:06d}-{ROLE_SUFFIX[item.role or '']}")


@register("generator", "cfmm-synthetic")
class CfmmSyntheticGenerator:
    """CFMM-Synthetic: basic/counterfactual two-option pairs on procedural scenes.

    Five categories (count, color, size, shape, direction); answers are computed on the
    intervened scenes."""

    version = VERSION
    suite = "cfmm"
    """The suite of the datasets it writes."""
    scene_source = CfmmSyntheticScenes
    """The oracle's scenes of its items (``scenes.source``)."""
    demo = Demo(params={"per_category": 20, "design": DEFAULT_DESIGN},
                small={"per_category": 6, "design": DEFAULT_DESIGN})
    """100 generated pairs: the suite's example (the inspect task's default)."""

    @staticmethod
    @declared
    def generate(
        out: str | Path, *,
        per_category: Annotated[int, Param(
            "pairs per category (default 200: 1,000 pairs, 2,000 items)", metavar="N",
            low=1)] = 200,
        seed: Annotated[int, Param("random seed")] = 0,
        overwrite: bool = False,
        workers: Annotated[int | None, Param(
            "processes (default: all CPUs; the output does not change)", metavar="N", low=1,
            card=False)] = None,
        answer_changed: Annotated[float | None, Param(
            "share of pairs whose counterfactual answer differs from the basic one (default "
            f"{FREE_CHANGED:g} in the shortcut-free design: believing what you see and "
            f"flipping it then score chance; {DEFAULT_CHANGED:g} in the paper design)",
            metavar="PERCENT", low=0, high=100, card="answer_changed_percent")] = None,
        design: Annotated[str, Design(
            "what the text shows and the answers first, then the scene, and premises that "
            "leave the answer open until the picture is read, so that no text-only reader, "
            "and no reader that believes or flips what it sees, beats chance (paper: "
            "generator 1.0's pairs)")] = SHORTCUT_FREE,
        executor: Annotated[JobMap | None, Executor()] = None,
        secret_file: Annotated[str | Path | None, SECRET] = None) -> Card:
        """Write ``5 × per_category`` pairs to ``out`` (one image, one intervened image and two
        items per pair). ``workers`` or ``executor`` (Ray tasks; images come back to this
        process, which writes them) change only the speed; ``answer_changed``: default by
        design (``FREE_CHANGED``, ``DEFAULT_CHANGED``); ``design``: ``shortcut-free`` (see
        ``cfmm.design`` and ``cfmm.free``) or ``paper`` (generator 1.0's distribution, with
        its text-only shortcuts); ``secret_file``: the naming secret of the shortcut-free
        design's opaque names (``core.namekey``; default: the home secret)."""
        if answer_changed is None:
            answer_changed = DEFAULT_CHANGED if check_design(design) == PAPER else FREE_CHANGED
        params = {**card_params(CfmmSyntheticGenerator.generate, locals()),
                  "canvas": [CANVAS, CANVAS], "categories": list(CATEGORIES)}
        namer, telling = opaque_naming(check_design(design), secret_file, GENERATOR, seed)
        jobs = plan(per_category, seed, answer_changed, design, namer)
        with DatasetWriter(out, overwrite) as writer:
            items: list[Item] = []
            unique = Unique("images")
            for job, built in zip(jobs, parallel_map(build, jobs, workers or default_workers(),
                                                     executor), strict=True):
                for name, data in built.files:  # opaque names: a collision is refused
                    writer.add_image(unique.check(name, built.items[0].pair_id), data)
                items += built.items
                if telling is not None:
                    _tell(telling, job, built)
            if telling is not None:  # written by id: the file's order says nothing
                writer.add_items(sorted(items, key=lambda item: item.id))
                writer.private = telling.private()
            else:
                writer.add_items(items)
            card = writer.finish(
                name="cfmm-synthetic", suite="cfmm", version=VERSION,
                generator={"name": GENERATOR, "params": params}, seed=seed,
                extra={**pair_facts(items), "by_category": balance(items), **(
                    {"whole_dataset_reader": WHOLE_DATASET} if design != PAPER else {})})
        return card
