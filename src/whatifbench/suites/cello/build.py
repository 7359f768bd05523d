"""``whatif build cello``: Visual Genome scene graphs → CELLO dataset (offline by default).

Scene graphs whose image is not in ``--images`` are skipped and counted; the rest go through
``causal.pipeline``; ``--model SPEC`` optionally rewrites the questions (``causal.rewrite``).
``--design shortcut-free`` (the default) poses contrast sets (``causal.contrast``); ``paper``
the release's kind of questions and distractors, as before, byte for byte.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.design import PAPER, SHORTCUT_FREE, check_design
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.item import CONTRAST_ROLE, Item
from whatifbench.core.outputs import check_output
from whatifbench.core.params import Design, Model, Param, card_params, declared
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.make import make_backend
from whatifbench.runner.store import RunStore
from whatifbench.suites.cello.causal.assemble import Question
from whatifbench.suites.cello.causal.graph import node_attributes
from whatifbench.suites.cello.causal.pipeline import run_pipeline
from whatifbench.suites.cello.causal.rewrite import rewrite_questions
from whatifbench.suites.cello.causal.scene_graph import (
    image_size,
    load_image_sizes,
    load_scene_graphs,
)
from whatifbench.suites.cello.causal.tasks import RUNG_OF, TASKS
from whatifbench.suites.cello.counts import cello_counts
from whatifbench.suites.cello.identity import BUILDER
from whatifbench.suites.cello.images import available_ids, check_folder, copy_images, find_image

VERSION = "1"
DEFAULT_PER_TASK = 100

WHOLE_DATASET = (
    "What a reader of the whole dataset can infer (a harness that asks one item at a time shows "
    "none of it; few-shot demonstrations never come from an item's own set or picture): a "
    "contrast set's members (one pair id) always have different answers, so a guess of the set "
    "as a whole is right on half of the Yes/No sets, 1/6 of the three-option and 1/24 of the "
    "four-option sets (the chance of the all-right metric); the other questions about the "
    "same picture name its objects, among them the answers of multiple-choice questions "
    "(whatif audit: the 'other items' probe).")
"""``card.extra["whole_dataset_reader"]`` of the shortcut-free design."""


def question_item(q: Question, data_id: int, image: str, size: tuple[int, int],
                  seed: int) -> Item:
    """The dataset item of a question (``meta`` holds the release record's fields)."""
    nodes = [[o.object_id, node_attributes(o, size)] for o in q.objects]
    edges = [[u, v, {"relation": r}] for (u, v), r in zip(q.frame.match.edges, q.relations,
                                                           strict=True)]
    binary = TASKS[q.task_type].binary
    meta: dict[str, Any] = {
        "rung": RUNG_OF[q.task_type], "task_type": q.task_type,
        "graph_type": q.frame.match.graph_type,
        "format": "binary" if binary else "multiple_choice", "img_id": q.image_id,
        "data_id": data_id, "answer_index": q.answer_index,
        "option_kinds": list(q.option_kinds) or None,
        "graph": {"nodes": nodes, "edges": edges}, "objs": [o.object_id for o in q.objects],
    }
    if q.contrast is not None:  # how the set's members are worded (``causal.contrast``)
        meta["contrast"] = q.provenance["contrast"]["wording"]
    provenance = {**q.provenance, "seed": seed, "version": VERSION,
                  "template_question": q.template_text}
    return Item(id=f"cello-{data_id}", images=(image,), question=q.text, kind="choice",
                target=q.options[q.answer_index], choices=q.options, pair_id=q.contrast,
                role=CONTRAST_ROLE if q.contrast else None, group=q.task_type, meta=meta,
                provenance=provenance)


def _sizes(images: Path, ids: Sequence[int], known: dict[int, tuple[int, int]]
           ) -> dict[int, tuple[int, int]]:
    sizes: dict[int, tuple[int, int]] = {}
    for img_id in ids:
        size = known.get(img_id)
        if size is None:
            path = find_image(images, img_id)
            size = image_size(path) if path else None
        if size is not None:
            sizes[img_id] = size
    return sizes


@declared
def build_cello(
    scene_graphs: Annotated[str | Path, Param("Visual Genome scene_graphs.json",
                                              metavar="FILE")],
    images: Annotated[str | Path, Param(
        "Visual Genome images <image_id>.jpg (or VG_100K/, VG_100K_2/)", metavar="DIR",
        card=False)],
    out: str | Path, *,
    image_data: Annotated[str | Path | None, Param(
        "Visual Genome image_data.json (image sizes; default: read them from the images)",
        metavar="FILE")] = None,
    per_task: Annotated[int, Param("questions per task type", metavar="N",
                                   low=1)] = DEFAULT_PER_TASK,
    seed: Annotated[int, Param("seed", card=False)] = 0,
    overwrite: bool = False,
    rewriter: Annotated[str | Backend | None, Model(
        "LLM that rewrites the template questions, e.g. openai:gpt-4o",
        args="rewriter_args")] = None,
    rewriter_args: Mapping[str, Any] | None = None,
    tasks: Annotated[Sequence[str] | None, Param(
        "build only this task type (repeatable; default all twelve)", flag="--task",
        metavar="NAME")] = None,
    store: RunStore | None = None,
    design: Annotated[str, Design(
        "every question is asked about two (Yes/No) or four (multiple choice) images that "
        "answer it differently, with the same options")] = SHORTCUT_FREE) -> Card:
    """Build a CELLO dataset; ``rewriter``: a backend (or a spec, with ``rewriter_args``, made
    and closed here) that rewrites the template questions (its calls cached in ``store``,
    default the shared run store); ``design``: ``shortcut-free`` (contrast sets,
    ``causal.contrast``) or ``paper``."""
    check_design(design)
    unknown = [t for t in tasks or () if t not in TASKS]
    if unknown:
        raise WhatifError(f"Unknown task type(s) {', '.join(unknown)}; use {', '.join(TASKS)}.")
    tasks = [t for t in TASKS if not tasks or t in tasks]
    scene_graphs, images = Path(scene_graphs), Path(images)
    image_data = Path(image_data) if image_data else None
    sources = [p for p in (scene_graphs, images, image_data) if p is not None]
    check_output(out, sources, overwrite)  # before reading the inputs
    scenes = load_scene_graphs(scene_graphs)
    known = load_image_sizes(image_data) if image_data else {}
    check_folder(images)
    have = available_ids(images)
    usable = [s for s in scenes if s.image_id in have]
    if not usable:
        raise WhatifError(
            f"None of the {len(scenes)} scene graphs in {scene_graphs} has its image in {images} "
            f"(looked for e.g. {scenes[0].image_id}.jpg there and in VG_100K/, VG_100K_2/); "
            "pass --images with the Visual Genome image folder.")
    with _backend(rewriter, rewriter_args) as backend, \
            DatasetWriter(out, overwrite, sources) as writer:
        result = run_pipeline(usable, per_task, seed, tasks, vocabulary=scenes, design=design)
        if not result.questions and design != PAPER:
            raise WhatifError(
                f"No contrast set could be built from {scene_graphs}: the shortcut-free design "
                "asks each question about several images that answer it differently (the same "
                "objects in a different causal graph), and these scene graphs have none; give "
                "more scene graphs, or pass --design paper for questions that need no contrast "
                "(their wording gives many answers away).")
        if not result.questions:
            raise WhatifError(
                f"No question could be built from {scene_graphs}: none of its causal graphs "
                "matches a template with enough objects for a question (see 'whatif stats "
                f"{scene_graphs}' for the predicate coverage).")
        questions = list(result.questions)
        if backend is not None:
            own = store is None
            store = store or RunStore()
            try:
                questions = rewrite_questions(questions, backend, store)
            finally:
                if own:
                    store.close()
        ids = sorted({q.image_id for q in questions})
        sizes = _sizes(images, ids, known)
        paths = copy_images(writer, images, ids)
        items = [question_item(q, k, paths[q.image_id], sizes[q.image_id], seed)
                 for k, q in enumerate(questions)]
        writer.add_items(items)
        rewrites = Counter(str(q.provenance["rewrite"]["accepted"]) for q in questions
                           if "rewrite" in q.provenance)
        counts = {**cello_counts(items), "images": len(ids),
                  "scene_graphs": {"read": len(scenes), "without_image": len(scenes) - len(usable),
                                   **result.scenes}}
        extra: dict[str, Any] = {
            "candidates": result.candidates, "skipped": result.skipped,
            "rewrites": {"accepted": rewrites["True"], "rejected": rewrites["False"]}
            if backend is not None else None}
        if design != PAPER:
            extra["contrast"] = result.contrast
            extra["whole_dataset_reader"] = WHOLE_DATASET
            counts["by_task"] = {t: counts["by_task"].get(t, 0) for t in tasks}  # zeros too
        params = {**card_params(build_cello, locals()),
                  "scene_graphs_sha256": sha256_file(scene_graphs),
                  "rewrite_model": backend.describe() if backend is not None else None}
        return writer.finish(name="cello", suite="cello", version=VERSION,
                             generator={"name": BUILDER, "params": params}, seed=seed,
                             counts=counts, extra=extra)


@contextlib.contextmanager
def _backend(rewriter: str | Backend | None, args: Mapping[str, Any] | None
             ) -> Iterator[Backend | None]:
    """The rewriter as a backend: a spec is made here (with ``args``) and closed after."""
    if not isinstance(rewriter, str):
        yield rewriter
        return
    backend = make_backend(rewriter, args or {})
    try:
        yield backend
    finally:
        backend.close()


def build_summary(card: Card) -> str:
    """Questions per task, as the build command prints them (with the near-set share of a
    ``shortcut-free`` build: ``causal.near``)."""
    contrast = card.extra.get("contrast") or {}
    lines = ["Questions per task:"]
    for task in card.generator["params"]["tasks"]:
        n = card.counts["by_task"].get(task, 0)
        near = (contrast.get(task) or {}).get("near_items", 0)
        how = f" ({near} in near sets)" if near else ""
        lines.append(f"  {task:<27} {n:>5}{how}")
    return "\n".join(lines)


@register("builder", "cello")
class CelloBuilder:
    """CELLO: twelve causal tasks over four rungs from Visual Genome scene graphs."""

    version = VERSION

    entry = staticmethod(build_cello)
    """``--scene-graphs FILE --images DIR [--image-data FILE] [--per-task N] [--seed S]
    [--task NAME] [--design D] [--model SPEC [-M KEY=VALUE ...]]``."""

    @staticmethod
    def summary(card: Card, out: str | Path) -> str:
        """The questions per task (``build_summary``), and a warning naming the tasks short of
        ``--per-task`` questions."""
        params = card.generator["params"]
        per_task = params["per_task"]
        short = {t: n for t, n in card.counts["by_task"].items() if n < per_task}
        short |= {t: 0 for t in params["tasks"] if t not in card.counts["by_task"]}
        if not short:
            return build_summary(card)
        return (build_summary(card) + f"\nwhatif: warning: fewer than {per_task} questions for "
                + ", ".join(f"{t} ({n})" for t, n in short.items())
                + (": too few images contrast their wording (card.json extra.contrast)"
                   if params["design"] != PAPER else ""))
