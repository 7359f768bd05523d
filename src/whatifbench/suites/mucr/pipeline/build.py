"""``whatif build mucr``: core caption pairs → LLM contextual descriptions → N candidate
pictures per description → a draft MuCR dataset with a selection sheet (MuCR §3).

Every model call goes through the run store (``runner.cached.generate_cached``), the LLM's and
the image backend's alike: an interrupted build resumes, a repeated build makes no call, and a
failed call is retried by running the same command again. A reply that cannot be read is asked
again once with a stricter prompt (``attempts``); a pair whose replies stay unreadable leaves
its whole group out (C2E/E2C need all four pairs), which the summary and ``pipeline.jsonl``
report.

The draft dataset is a complete MuCR dataset (candidate 1 of each side, the LLM's draft cue,
false cues and explanations) that names the ``mucr-build`` reviewer. Its pictures have opaque
names (``scenes.opaque``: a draft evaluated before review must not give C2E/E2C answers away by
a ``cause-1.png``); which candidate is which, per pair and side, is in the private file
(``core.private``, section ``candidates``), which the review sheet reads. ``whatif review export``
gives the selection sheet (all candidates of each pair side by side) and ``whatif review
import`` writes the final dataset from the picks and the annotations people wrote.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.fsutil import dumps, sha256_bytes, sha256_file
from whatifbench.core.item import Item
from whatifbench.core.namekey import name_key
from whatifbench.core.outputs import check_output
from whatifbench.core.params import SECRET, Model, Param, card_params, declared
from whatifbench.core.registry import register
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.imagegen.base import (
    ImageBackend,
    image_request,
    make_image_backend,
    picture_bytes,
)
from whatifbench.models.make import make_backend
from whatifbench.runner.cached import generate_cached
from whatifbench.runner.store import RunStore
from whatifbench.scenes.opaque import Namer, Telling
from whatifbench.suites.mucr.items import make_items
from whatifbench.suites.mucr.pipeline.captions import CaptionPair, read_captions
from whatifbench.suites.mucr.pipeline.prompts import (
    DESCRIBE,
    Drafted,
    describe_prompt,
    image_prompt,
    parse_reply,
)
from whatifbench.suites.mucr.prompts import CHOICE_METRICS
from whatifbench.suites.mucr.records import Record

VERSION = "1"
LOG = "pipeline.jsonl"
REVIEWER = "mucr-build"
SIDES = ("cause", "effect")
MAX_NEW_TOKENS = 1024
CANDIDATES = "candidates"
"""The private file's section of each pair's candidate pictures, per side (``core.private``)."""


@dataclass(frozen=True)
class BuildResult:
    """What a build wrote and how."""

    card: Card
    """The draft dataset's card."""
    pairs: int
    """Pairs in the draft dataset."""
    dropped_groups: tuple[str, ...]
    """Groups left out because a pair's LLM replies could not be read."""
    from_store: int
    """Replies and pictures served by the run store."""
    computed: int
    """Replies and pictures computed in this run."""


def _describe(llm: Backend, pairs: Sequence[CaptionPair], store: RunStore, attempts: int,
              progress: bool) -> tuple[dict[str, Drafted], dict[str, list[dict[str, Any]]],
                                       list[int]]:
    """Drafted descriptions per pair id, the replies per pair (for the log), and
    ``[from_store, computed]``."""
    drafted: dict[str, Drafted] = {}
    log: dict[str, list[dict[str, Any]]] = {p.id: [] for p in pairs}
    counts = [0, 0]
    pending = list(pairs)
    for attempt in range(1, attempts + 1):
        if not pending:
            break
        requests = [Request(item_id=f"mucr-build:{p.id}:describe:{attempt}",
                            max_new_tokens=MAX_NEW_TOKENS,
                            turns=(Turn("user", (Part(text=describe_prompt(
                                p.cause, p.effect, p.style, attempt)),)),))
                    for p in pending]
        fetched = generate_cached(llm, requests, store, progress=progress,
                                  label=f"describe × {llm.spec}")
        counts[0] += fetched.from_store
        counts[1] += fetched.computed
        failed = [(p, r.error) for p, r in zip(pending, fetched.responses, strict=True)
                  if r.error]
        if failed:
            raise WhatifError(
                f"{len(failed)} of {len(pending)} calls to {llm.spec} failed (pair "
                f"{failed[0][0].id}: {failed[0][1]}). Every reply received so far is saved in "
                "the run store; run the same command again to retry the failed calls.")
        still = []
        for p, response in zip(pending, fetched.responses, strict=True):
            parsed, why = parse_reply(response.text or "")
            log[p.id].append({"attempt": attempt, "reply": response.text, "problem": why})
            if parsed is None:
                still.append(p)
            else:
                drafted[p.id] = parsed
        pending = still
    return drafted, log, counts


def _pictures(images: ImageBackend, pairs: Sequence[CaptionPair], drafted: Mapping[str, Drafted],
              candidates: int, store: RunStore, progress: bool
              ) -> tuple[dict[tuple[str, str, int], tuple[bytes, str]], list[int]]:
    """``(pair, side, k) → (bytes, extension)`` for every candidate picture."""
    keys: list[tuple[str, str, int]] = []
    requests: list[Request] = []
    for p in pairs:
        for side, text in zip(SIDES, drafted[p.id].descriptions, strict=True):
            for k in range(1, candidates + 1):
                keys.append((p.id, side, k))
                requests.append(image_request(f"mucr-build:{p.id}:{side}:{k}",
                                              image_prompt(text, p.style)))
    fetched = generate_cached(images, requests, store, progress=progress,
                              label=f"pictures × {images.spec}")
    failed = [(key, r.error) for key, r in zip(keys, fetched.responses, strict=True) if r.error]
    if failed:
        (pid, side, k), why = failed[0]
        raise WhatifError(
            f"{len(failed)} of {len(requests)} picture calls to {images.spec} failed (pair {pid}, "
            f"{side} candidate {k}: {why}). Every picture received so far is saved in the run "
            "store; run the same command again to retry the failed calls.")
    out = {key: picture_bytes(r) for key, r in zip(keys, fetched.responses, strict=True)}
    return out, [fetched.from_store, fetched.computed]


Style = Literal["photograph", "comic"]
"""The styles a caption row may leave out (``records.STYLES``)."""


@declared
def build_mucr(
    out: str | Path, *,
    captions: Annotated[str | Path, Param(
        "CSV of core caption pairs: cause,effect,group,category[,style][,id]",
        metavar="FILE")],
    llm: Annotated[str | Backend, Model(
        "the LLM writing the descriptions, e.g. openai:gpt-4o", args="llm_args",
        option="llm", short="-L", base_url="--llm-base-url")],
    images: Annotated[str | ImageBackend, Model(
        "the picture model: openai:MODEL (an images endpoint) or diffusers:PATH (a local "
        "pipeline folder)", args="images_args", option="images-backend", short="-I",
        base_url="--images-base-url")],
    llm_args: Mapping[str, Any] | None = None,
    images_args: Mapping[str, Any] | None = None,
    candidates: Annotated[int, Param("pictures per description", metavar="N", low=1)] = 4,
    style: Annotated[Style, Param("style of pairs whose row gives none")] = "photograph",
    attempts: Annotated[int, Param("LLM attempts per pair when a reply cannot be read",
                                   low=1)] = 2,
    seed: Annotated[int, Param("seed of the answer positions", card=False)] = 0,
    store: Annotated[str | Path | RunStore | None, Param(
        "run store (default $WHATIF_HOME/store.sqlite)", metavar="FILE", card=False)] = None,
    overwrite: bool = False,
    name: Annotated[str, Param("dataset name", card=False)] = "mucr-built",
    secret_file: Annotated[str | Path | None, SECRET] = None,
    progress: Annotated[bool, Param("hide progress bars", cli_default=True,
                                    card=False)] = False) -> BuildResult:
    """Run the pipeline and write the draft dataset (``llm``/``images``: specs, made with
    ``llm_args``/``images_args`` and closed here, or backends; ``secret_file``: the naming
    secret of the candidates' opaque names, ``core.namekey``)."""
    captions = Path(captions)
    pairs = read_captions(captions, style)
    check_output(out, [captions], overwrite)  # before any model call
    llm_backend = make_backend(llm, llm_args or {}) if isinstance(llm, str) else llm
    image_backend = (make_image_backend(images, images_args or {}) if isinstance(images, str)
                     else images)
    own_store = not isinstance(store, RunStore)
    run_store = store if isinstance(store, RunStore) else RunStore(store)
    try:
        drafted, log, counts = _describe(llm_backend, pairs, run_store, attempts, progress)
        groups: dict[str, list[CaptionPair]] = {}
        for p in pairs:
            groups.setdefault(p.group, []).append(p)
        dropped = tuple(g for g, members in groups.items()
                        if any(m.id not in drafted for m in members))
        kept = [p for p in pairs if p.group not in dropped]
        if not kept:
            reasons = Counter(entry["problem"] for entries in log.values() for entry in entries
                              if entry["problem"])
            raise WhatifError(f"No group of four could be drafted: the replies of "
                              f"{llm_backend.spec} could not be read ({dict(reasons)}). Check the "
                              "model with a few captions first.")
        pictures, more = _pictures(image_backend, kept, drafted, candidates, run_store, progress)
        llm_described, images_described = llm_backend.describe(), image_backend.describe()
    finally:
        if own_store:
            run_store.close()
        if isinstance(llm, str):
            llm_backend.close()
        if isinstance(images, str):
            image_backend.close()
    params = {**card_params(build_mucr, locals()), "captions_sha256": sha256_file(captions),
              "llm": llm_described, "images": images_described,
              "describe_prompt_sha256": sha256_bytes(DESCRIBE.encode())}
    key = name_key(secret_file)
    namer = Namer(key, (REVIEWER, seed))
    with DatasetWriter(out, overwrite, [captions]) as writer:
        files: dict[str, str] = {}
        names = {(pid, side, k): namer.file("candidate", pid, side, k, suffix=f".{ext}")
                 for (pid, side, k), (_, ext) in pictures.items()}
        telling = Telling(key)
        for (pid, side, k), (data, _) in pictures.items():
            files[names[pid, side, k]] = writer.add_image(names[pid, side, k], data)
            telling.add("images", files[names[pid, side, k]], f"candidates/{pid}/{side}-{k}")
        records = [_record(p, drafted[p.id], groups[p.group], names) for p in kept]
        items = make_items(records, files, seed, captions.name)
        by_pair = {p.id: p for p in kept}
        for p in kept:  # which picture is which: for the review sheet, never in items.jsonl
            telling.add(CANDIDATES, p.id, {side: [files[names[p.id, side, k]]
                                                  for k in range(1, candidates + 1)]
                                           for side in SIDES})
        writer.add_items(_with_build(item, by_pair[str(item.pair_id)], drafted, llm_described,
                                     images_described) for item in items)
        writer.private = telling.private()
        (writer.stage / LOG).write_text("".join(
            dumps({"id": p.id, "line": p.line, "group": p.group, "cause": p.cause,
                   "effect": p.effect, "status": _status(p, drafted, dropped),
                   "replies": log[p.id],
                   "drafted": drafted[p.id].to_json() if p.id in drafted else None}) + "\n"
            for p in pairs), encoding="utf-8")
        card = writer.finish(
            name=name, suite="mucr", version=VERSION,
            generator={"name": "build:mucr", "params": params}, seed=seed,
            counts={"caption_pairs": len(pairs), "dropped_groups": list(dropped),
                    "pictures": len(pictures)},
            extra={"review": REVIEWER, "status": "draft: picks and annotations not reviewed",
                   "candidates": candidates, "answer_positions": {
                       m: dict(sorted(Counter(i.provenance["position"] for i in items
                                              if i.group == m).items()))
                       for m in CHOICE_METRICS}})
    return BuildResult(card, len(kept), dropped, counts[0] + more[0], counts[1] + more[1])


def _status(p: CaptionPair, drafted: Mapping[str, Drafted], dropped: Sequence[str]) -> str:
    if p.id not in drafted:
        return "unreadable"
    return "group dropped" if p.group in dropped else "drafted"


def _record(p: CaptionPair, d: Drafted, group: Sequence[CaptionPair],
            names: Mapping[tuple[str, str, int], str]) -> Record:
    """The draft record of a pair: candidate 1 of each side, the LLM's draft annotations."""
    return Record(p.id, p.line, p.cause, p.effect, tuple(m.id for m in group if m.id != p.id),
                  d.cue, d.false_cues, p.style, p.category,
                  tuple((text,) for text in d.explanations),
                  names[p.id, "cause", 1], names[p.id, "effect", 1])


def _with_build(item: Item, p: CaptionPair, drafted: Mapping[str, Drafted],
                llm: dict[str, Any], images: dict[str, Any]) -> Item:
    """The item with the pair's construction record in ``provenance.build`` (its candidates,
    which tell cause from effect, are in the private file)."""
    build = {"group": p.group, "descriptions": list(drafted[p.id].descriptions),
             "pick": {"cause": 1, "effect": 1},
             "annotations": "llm-draft", "llm": llm, "images": images}
    return replace(item, provenance={**item.provenance, "build": build})


@register("builder", "mucr")
class MucrBuilder:
    """MuCR construction: caption pairs → LLM descriptions → candidate pictures → sheet."""

    version = VERSION

    entry = staticmethod(build_mucr)
    """Inputs, the two models, candidates, style and store options."""

    @staticmethod
    def summary(result: BuildResult, out: str | Path) -> str:
        """What the build did, and what to do next."""
        dropped = (f"; groups left out (unreadable LLM replies, see {LOG}): "
                   f"{', '.join(result.dropped_groups)}" if result.dropped_groups else "")
        return (f"Drafted {result.pairs} pairs ({result.from_store} replies and pictures from "
                f"the store, {result.computed} computed){dropped}. Pick the pictures and check "
                f"the annotations: whatif review export {out} --out sheet.html")
