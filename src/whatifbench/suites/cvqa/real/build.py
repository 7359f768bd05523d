"""``whatif build cvqa-real``: VQAv2 questions → LLM rewrites (C-VQA Appendix B) → checked pairs.

Every model call goes through the run store (``runner.cached.generate_cached``): an interrupted
build resumes, a repeat is free. Replies are parsed (``cot_reply``) and checked (``verify``);
pairs failing a check are kept but flagged (``meta.status = "flagged"``) for human review
unless ``drop_flagged``; malformed replies produce no pair. ``pipeline.jsonl`` in the dataset
records every selected question with its outcome and the raw reply.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import IMAGES, DatasetWriter, check_image
from whatifbench.core.fsutil import dumps, sha256_bytes, sha256_file
from whatifbench.core.item import Item
from whatifbench.core.outputs import check_output
from whatifbench.core.params import Model, Param, card_params, declared
from whatifbench.core.readfile import read_bytes
from whatifbench.core.registry import register
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.make import make_backend
from whatifbench.runner.cached import generate_cached
from whatifbench.runner.store import RunStore
from whatifbench.suites.cvqa.real import vqa
from whatifbench.suites.cvqa.real.cot_reply import parse_reply
from whatifbench.suites.cvqa.real.llm_prompts import PROMPTS, question_prompt
from whatifbench.suites.cvqa.real.release import pair_items
from whatifbench.suites.cvqa.real.verify import check_pair

VERSION = "1"
MAX_NEW_TOKENS = 512
LOG = "pipeline.jsonl"
SOURCES = {"direct": "C-VQA Appendix B.1", "boolean": "C-VQA Appendix B.2"}


@dataclass(frozen=True)
class BuildResult:
    """What a build wrote."""

    card: Card
    """The dataset's card."""
    outcomes: dict[str, int]
    """Selected questions by outcome: ``auto-verified``, ``flagged``, ``malformed``."""
    from_store: int
    """Replies served by the run store."""
    computed: int
    """Replies computed in this run."""


@declared
def build_dataset(
    out: str | Path, *,
    questions: Annotated[str | Path, Param(
        "VQAv2 questions file (e.g. v2_OpenEnded_mscoco_val2014_questions.json)",
        metavar="Q.json", flag="--vqa-questions", card="vqa_questions")],
    annotations: Annotated[str | Path, Param(
        "VQAv2 annotations file (v2_mscoco_val2014_annotations.json)", metavar="A.json",
        flag="--vqa-annotations", card="vqa_annotations")],
    images: Annotated[str | Path, Param("COCO images folder", metavar="DIR", card=False)],
    model: Annotated[str | Backend, Model(
        "the rewriting LLM, e.g. openai:gpt-4o-mini", args="model_args")],
    model_args: Mapping[str, Any] | None = None,
    min_agreement: Annotated[int, Param(
        "annotators (of 10) who must give the same answer (default 8)",
        low=1)] = vqa.DEFAULT_MIN_AGREEMENT,
    per_group: Annotated[int | None, Param(
        "seeded random number of questions per group (default: all)", low=1)] = None,
    groups: Annotated[Sequence[str], Param(
        "groups to generate: direct, boolean (comma-separated)")] = ("direct", "boolean"),
    seed: Annotated[int, Param("seed for --per-group", card=False)] = 0,  # the card's seed
    drop_flagged: Annotated[bool, Param(
        "leave out pairs that fail an automatic check")] = False,
    store: Annotated[str | Path | RunStore | None, Param(
        "run store (default $WHATIF_HOME/store.sqlite)", metavar="FILE", card=False)] = None,
    overwrite: bool = False,
    name: Annotated[str, Param("dataset name", card=False)] = "cvqa-real-built",
    progress: Annotated[bool, Param(
        "hide the progress bar", cli_default=True, card=False)] = False,
) -> BuildResult:
    """Run the pipeline and write the dataset (``model``: a spec or a backend instance)."""
    bad = [g for g in groups if g not in PROMPTS]
    if bad or not groups:
        raise WhatifError(f"--groups {','.join(groups)!r}: the pipeline writes the groups "
                          f"{', '.join(PROMPTS)} (indirect questions are written by hand in the "
                          "review sheet).")
    questions, annotations, images = Path(questions), Path(annotations), Path(images)
    if not images.is_dir():
        raise WhatifError(f"The images folder {images} does not exist; pass --images.")
    sources = (questions, annotations, images)
    check_output(out, sources, overwrite)  # before any model call
    qs, subtype = vqa.load_questions(questions)
    anns = vqa.load_annotations(annotations)
    qualified = vqa.select(qs, anns, subtype, min_agreement, groups)
    present = [c for c in qualified if (images / c.image).is_file()]
    chosen = vqa.sample(present, per_group, seed)
    unreadable = {c.image for c in chosen if check_image(images / c.image)}
    chosen = [c for c in chosen if c.image not in unreadable]
    if not chosen:
        raise WhatifError(
            f"No question qualifies: {len(qualified)} questions of {questions.name} have "
            f"at least {min_agreement} agreeing annotators, {len(present)} of them have their "
            f"image in {images}. Check --images and --min-agreement.")
    requests = [Request(item_id=f"vqa-{c.question_id}", max_new_tokens=MAX_NEW_TOKENS,
                        turns=(Turn("user", (Part(text=question_prompt(c.group, c.question,
                                                                       c.answer)),)),))
                for c in chosen]
    backend = make_backend(model, model_args or {}) if isinstance(model, str) else model
    described = backend.describe()
    own_store = not isinstance(store, RunStore)
    run_store = store if isinstance(store, RunStore) else RunStore(store)
    try:
        fetched = generate_cached(backend, requests, run_store, progress=progress,
                                  label=f"rewrite × {backend.spec}")
    finally:
        if own_store:
            run_store.close()
        if isinstance(model, str):
            backend.close()
    failed = [(c, r.error) for c, r in zip(chosen, fetched.responses, strict=True) if r.error]
    if failed:
        raise WhatifError(
            f"{len(failed)} of {len(chosen)} model calls failed (question "
            f"{failed[0][0].question_id}: {failed[0][1]}). Every reply received so far is "
            "saved in the run store; run the same command again to retry the failed calls.")
    params = {**card_params(build_dataset, locals()),
              "vqa_questions_sha256": sha256_file(questions),
              "vqa_annotations_sha256": sha256_file(annotations), "model": described,
              "prompts_sha256": {g: sha256_bytes(PROMPTS[g].encode()) for g in groups}}
    outcomes: Counter[str] = Counter()
    results = [_candidate(c, r.text or "", described, seed)
               for c, r in zip(chosen, fetched.responses, strict=True)]
    kept = [(c, o) for c, o in zip(chosen, results, strict=True) if o.items
            and not (drop_flagged and o.status == "flagged")]
    outcomes.update(o.status for o in results)
    if not kept:
        raise WhatifError(f"None of the {len(chosen)} replies gave a usable pair "
                          f"({dict(outcomes)}); check the model with a few questions first.")
    with DatasetWriter(out, overwrite, sources) as writer:
        for cand, outcome in kept:
            if not writer.has_image(cand.image):
                writer.add_image(cand.image, read_bytes(images / cand.image))
            writer.add_items(outcome.items)
        (writer.stage / LOG).write_text("".join(dumps(o.log) + "\n" for o in results),
                                        encoding="utf-8")
        card = writer.finish(
            name=name, suite="cvqa-real", version=VERSION,
            generator={"name": "build:cvqa-real", "params": params}, seed=seed,
            counts={"qualified_questions": len(qualified), "with_image": len(present),
                    "unreadable_images": len(unreadable), "selected": len(chosen),
                    "outcomes": dict(sorted(outcomes.items()))})
    return BuildResult(card, dict(outcomes), fetched.from_store, fetched.computed)


@register("builder", "cvqa-real")
class CvqaRealBuilder:
    """Rewrite VQAv2 questions with counterfactual premises by LLM (C-VQA Appendix B)."""

    version = VERSION

    entry = staticmethod(build_dataset)
    """Inputs, model, selection and store options: ``build_dataset``."""

    @staticmethod
    def summary(result: BuildResult, out: str | Path) -> str:
        """The outcome counts, printed after a build."""
        o = result.outcomes
        return (f"{sum(o.values())} questions rewritten ({result.from_store} replies from the "
                f"store, {result.computed} computed): {o.get('auto-verified', 0)} pass every "
                f"check, {o.get('flagged', 0)} flagged, {o.get('malformed', 0)} malformed. "
                "Review with 'whatif review export'.")


@dataclass(frozen=True)
class Outcome:
    """What became of one selected question."""

    status: str
    """``auto-verified``, ``flagged`` or ``malformed``."""
    log: dict[str, Any]
    """Its ``pipeline.jsonl`` record (question, reply, parse, findings or reason)."""
    items: tuple[Item, ...]
    """The original + counterfactual items (none for a malformed reply)."""


def _candidate(cand: vqa.VqaQuestion, reply: str, model: dict[str, Any], seed: int) -> Outcome:
    """Parse and check one reply."""
    log: dict[str, Any] = {"question_id": cand.question_id, "image": cand.image,
                           "group": cand.group, "question": cand.question,
                           "answer": cand.answer, "reply": reply}
    parsed, why = parse_reply(reply)
    if parsed is None:
        log.update(status="malformed", reason=why)
        return Outcome("malformed", log, ())
    findings = check_pair(cand.group, cand.answer, parsed.new_question, parsed.new_answer,
                          parsed.step1, parsed.step2)
    status = "flagged" if findings else "auto-verified"
    checks = [f.to_json() for f in findings]
    log.update(status=status, parsed=parsed.to_json(), checks=checks)
    meta = {"image": cand.image, "question_id": cand.question_id, "image_id": cand.image_id,
            "flags": [f.code for f in findings], "status": status}
    provenance = {"program": "build:cvqa-real", "version": VERSION, "seed": seed,
                  "prompt": SOURCES[cand.group], "model": model, "reply": reply,
                  "parsed": parsed.to_json(), "checks": checks,
                  "vqa": {"question_id": cand.question_id, "answer": cand.answer,
                          "agreement": cand.agreement, "annotators": cand.annotators}}
    items = pair_items(f"q{cand.question_id}", f"{IMAGES}/{cand.image}", cand.group,
                       cand.question, cand.answer, parsed.new_question, parsed.new_answer,
                       meta, provenance)
    return Outcome(status, log, items)
