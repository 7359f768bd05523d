"""The explorer's data: every run's samples lined up with its dataset's items, as compact JSON.

Strings are stored once (``strings``) and referenced by index (``-1`` = none), booleans as
strings of ``0``/``1``, samples as columns aligned with the dataset's items; images are listed
per dataset and embedded as thumbnails for a budget of pairs (the most telling first), or
served at full size by ``whatif view``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.images import Inside
from whatifbench.core.suite import Sample, suite_for
from whatifbench.report import MAX_IMAGES, overview
from whatifbench.report.datasets import DatasetView, locate
from whatifbench.report.images import thumbnail_uris
from whatifbench.report.labels import dataset_key, model_name, run_labels
from whatifbench.runner.results import RunResult, backend_failed

FACETS = ("category", "style", "template", "rung", "task_type", "graph_type", "format")
"""Item metadata offered as filters besides the group."""
THUMB = 256
"""Longest side of an embedded thumbnail (pixels)."""
CLIP = 4000
"""Longest text kept in a self-contained page (the rest is in samples.jsonl)."""


@dataclass(frozen=True)
class Source:
    """A run and where it came from."""

    run: RunResult
    """The run."""
    folder: str | None = None
    """The run folder it was read from (``None``: evaluated in this process)."""
    execution: dict[str, Any] | None = None
    """Cache hits, computed responses, errors and time, when recorded."""


@dataclass(frozen=True)
class Options:
    """How the page is built."""

    images: str = "embed"
    """``embed``: thumbnails in the file; ``serve``: URLs that ``whatif view`` answers."""
    max_images: int = MAX_IMAGES
    """Thumbnails embedded per report (``embed``)."""
    clip: int | None = CLIP
    """Longest text kept (``None``: everything)."""
    dataset_roots: tuple[Path, ...] = ()
    """Where to look for datasets that moved (``--dataset-root``)."""


class Strings:
    """Each distinct string once; ``-1`` stands for none."""

    def __init__(self, clip: int | None) -> None:
        self.index: dict[str, int] = {}
        self.values: list[str] = []
        self.clip = clip

    def __call__(self, text: Any) -> int:
        found = self.index.get(text) if isinstance(text, str) else None
        if found is not None:
            return found
        if text is None:
            return -1
        if not isinstance(text, str):
            text = json.dumps(text, ensure_ascii=False)
        if self.clip is not None and len(text) > self.clip:
            text = text[:self.clip] + " … [cut here; the full text is in samples.jsonl]"
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.values)
            self.values.append(text)
        return found

    def many(self, texts: Iterable[Any]) -> list[int]:
        """``[self(text) for text in texts]``, strings seen before without a call each."""
        get = self.index.get
        return [found if text.__class__ is str and (found := get(text)) is not None
                else self(text) for text in texts]


SAFE_INTEGER = 2**53 - 1
"""Largest integer a browser's JSON parser keeps exactly (``Number.MAX_SAFE_INTEGER``)."""


SPEC_CHARS = 4096
"""Longest text of a run spec the page shows (a longer one is cut, saying how long it was)."""


def cut_texts(value: Any, limit: int, cut: Callable[[str], str]) -> Any:
    """``value`` (JSON-like) with every text longer than ``limit`` replaced by ``cut(text)``."""
    if isinstance(value, str):
        return cut(value) if len(value) > limit else value
    if isinstance(value, dict):
        return {k: cut_texts(v, limit, cut) for k, v in value.items()}
    if isinstance(value, list):
        return [cut_texts(v, limit, cut) for v in value]
    return value


def bounded(value: Any) -> Any:
    """``value`` with every text longer than ``SPEC_CHARS`` cut, saying how long it was (a run
    spec on the page: its size stays bounded by the runs, not by what a spec holds)."""
    return cut_texts(value, SPEC_CHARS,
                     lambda text: f"{text[:SPEC_CHARS]}… ({len(text):,} characters in all)")


def js_safe(value: Any) -> Any:
    """``value`` with every integer a browser would round (seeds, hashes as numbers) turned
    into its decimal string, so the page shows it digit for digit."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE_INTEGER:
        return str(value)
    if isinstance(value, dict):
        return {k: js_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [js_safe(v) for v in value]
    return value


def _labels(item: dict[str, Any]) -> list[Any]:
    """The label of each image (MuCR's ``Cause``, ``A`` … in ``meta["image_labels"]``)."""
    labels = (item.get("meta") or {}).get("image_labels")
    images = item.get("images") or []
    return list(labels) if isinstance(labels, list) and len(labels) == len(images) else []


def _item_record(sid: str, raw: dict[str, Any] | None, s: Sample) -> dict[str, Any]:
    if raw is not None:
        return raw
    return {"id": sid, "pair_id": s.pair_id, "role": s.role, "group": s.group,
            "question": s.question, "kind": None, "choices": [], "target": s.target,
            "images": [], "meta": s.meta, "provenance": {}}


def _facets(item: dict[str, Any]) -> list[str]:
    out = [f"group: {item['group']}"] if item.get("group") else []
    meta = item.get("meta") or {}
    out += [f"{k}: {meta[k]}" for k in FACETS if isinstance(meta.get(k), (str, int))]
    return out


def _dataset(group: Sequence[Source], view: DatasetView, runs_json: list[dict[str, Any]],
             s: Strings) -> tuple[dict[str, Any], list[str]]:
    """The dataset entry: items of every sampled id, in dataset order; and its image paths."""
    sampled: dict[str, Sample] = {}
    for src in group:
        for sample in src.run.samples:
            sampled.setdefault(sample.item_id, sample)
    order = [i for i in view.items if i in sampled] + [i for i in sampled if i not in view.items]
    images: list[str] = []
    where: dict[str, int] = {}

    def image(rel: Any) -> int:
        if not isinstance(rel, str):
            return -1
        if rel not in where:
            where[rel] = len(images)
            images.append(rel)
        return where[rel]

    records = [_item_record(sid, view.items.get(sid), sampled[sid]) for sid in order]
    # Few-valued columns first: their strings get the small (short) indexes.
    column: dict[str, list[Any]] = {
        col: s.many(r.get(key) for r in records)
        for col, key in (("role", "role"), ("kind", "kind"), ("group", "group"))}
    column["target"] = s.many(r.get("target") for r in records)  # answers: often few
    column["choices"] = [s.many(r.get("choices") or ()) for r in records]
    column["facets"] = [s.many(_facets(r)) for r in records]
    column["pair"] = s.many(r.get("pair_id") for r in records)
    column["id"] = s.many(order)
    column["question"] = s.many(r.get("question") for r in records)
    column["images"] = [[image(p) for p in r.get("images") or []] for r in records]
    column["labels"] = [s.many(_labels(r)) for r in records]
    column["intervened"] = [image((r.get("provenance") or {}).get("intervened_image"))
                            for r in records]
    column["provenance"] = [js_safe(r.get("provenance")) or None for r in records]
    cols = {k: column[k] for k in ("id", "pair", "role", "group", "question", "kind", "choices",
                                   "target", "images", "labels", "intervened", "facets",
                                   "provenance")}
    position = {sid: k for k, sid in enumerate(order)}
    for src, entry in zip(group, runs_json, strict=True):
        entry["samples"] = _samples(src.run.samples, position, s)
    return {"name": group[0].run.dataset, "suite": group[0].run.suite, "path": view.recorded,
            "found": str(view.root) if view.root else None, "problem": view.problem,
            "items": cols, "images": images, "thumbs": {}}, order


def _bits(values: Sequence[bool | None]) -> str:
    """``1``/``0`` per value; ``-`` for ``None`` (an answer neither right nor wrong: free text
    graded by a score, or not judged)."""
    return "".join("-" if v is None else "1" if v else "0" for v in values)


def _strings(values: list[Any], s: Strings) -> list[int] | None:
    """String indexes of a column; ``None`` when every value is empty."""
    return s.many(values) if any(values) else None


def _error(sample: Sample) -> str | None:
    """The backend error that ended the item: the model's call, or a judge call grading it."""
    if sample.error is not None or not backend_failed(sample):
        return sample.error
    return "a judge call grading this reply failed after all retries"


def _samples(samples: Sequence[Sample], position: dict[str, int], s: Strings) -> dict[str, Any]:
    """A run's samples as columns (a column that is empty throughout is ``None``); ``item``
    points into the dataset's items."""
    parsers = sorted({p for x in samples for p in x.parses})
    return {
        "item": [position[x.item_id] for x in samples],
        "prompt": s.many(x.prompt for x in samples),
        "input": _strings([x.model_input for x in samples], s),
        "response": _strings([x.response for x in samples], s),
        "prediction": s.many(x.prediction for x in samples),
        "correct": _bits([x.correct for x in samples]),
        "unparsed": _bits([x.unparsed for x in samples]),
        "flag": _strings([x.flag for x in samples], s),
        "error": _strings([_error(x) for x in samples], s),
        "parses": {p: s.many(x.parses.get(p) for x in samples) for p in parsers},
        "scores": [x.scores for x in samples] if any(x.scores for x in samples) else None,
        "score": [x.score for x in samples] if any(x.score is not None for x in samples)
        else None,
        "judgement": [js_safe(x.judgement) or None for x in samples]
        if any(x.judgement for x in samples) else None,
        "trace": [js_safe(x.trace) for x in samples] if any(x.trace for x in samples) else None,
    }


def _thumbs(dataset: dict[str, Any], ids: Sequence[str], view: DatasetView,
            runs: Sequence[RunResult], budget: int) -> int:
    """Embed thumbnails of the most telling pairs first (a model got the original right and
    the counterfactual wrong, or models disagree), then the rest in dataset order."""
    if view.root is None or budget <= 0:
        return 0
    cols = dataset["items"]
    units: dict[int, list[int]] = {}
    for k, pair in enumerate(cols["pair"]):
        units.setdefault(pair if pair >= 0 else -2 - k, []).append(k)
    right = [{s.item_id: s.correct for s in run.samples} for run in runs]

    def telling(members: list[int]) -> bool:
        for r in right:  # one question of the unit right, another wrong
            marks = {r.get(ids[k]) for k in members}
            if True in marks and False in marks:
                return True
        return any(len({r.get(ids[k]) for r in right} - {None}) > 1 for k in members)

    ordered = sorted(units.values(), key=lambda m: not telling(m))
    chosen: dict[int, None] = {}
    for members in ordered:
        wanted = [i for k in members for i in (*cols["images"][k], cols["intervened"][k])
                  if i >= 0 and i not in chosen]
        if len(chosen) + len(set(wanted)) > budget:
            break
        chosen.update(dict.fromkeys(wanted))
    root = view.root
    inside = Inside(root)  # a file that leads outside the dataset folder is never embedded
    chosen = {i: None for i in chosen if inside.outside(dataset["images"][i]) is None}
    uris = thumbnail_uris([root / dataset["images"][i] for i in chosen], THUMB)
    for i, uri in zip(chosen, uris, strict=True):
        if uri is not None:
            dataset["thumbs"][str(i)] = uri
    return len(chosen)


def build_payload(sources: Sequence[Source],
                  per_dataset: Callable[[list[RunResult]], dict[str, Any]],
                  options: Options | None = None) -> dict[str, Any]:
    """Everything the page shows, as one JSON-ready dict; ``per_dataset(runs)`` adds each
    dataset's tables and figures."""
    options = options or Options()
    s = Strings(options.clip)
    groups: dict[tuple[str, str, str], list[Source]] = {}
    for src in sources:
        groups.setdefault(dataset_key(src.run), []).append(src)
    datasets: list[dict[str, Any]] = []
    runs_json: list[dict[str, Any]] = []
    budget = options.max_images if options.images == "embed" else 0
    for d, group in enumerate(groups.values()):
        runs = [src.run for src in group]
        labels = run_labels(runs)
        view = locate(runs[0].spec, runs[0].dataset, options.dataset_roots)
        entries = []
        for src, label in zip(group, labels, strict=True):
            entries.append({
                "label": label, "name": model_name(src.run), "model": src.run.model,
                "dataset": d, "suite": src.run.suite, "folder": src.folder,
                "spec": js_safe(bounded(src.run.spec.to_json())), "execution": src.execution,
                "counts": overview.counts(src.run.samples),
                "eyes": overview.believes_eyes(src.run.samples, view.items,
                                              suite_for(src.run.suite).pair_roles),
            })
        dataset, order = _dataset(group, view, entries, s)
        budget -= _thumbs(dataset, order, view, runs, budget)
        dataset["ranking"] = overview.ranking(runs, labels)
        dataset["runs"] = list(range(len(runs_json), len(runs_json) + len(entries)))
        dataset.update(per_dataset(runs))
        datasets.append(dataset)
        runs_json += entries
    return {"version": 1, "images": options.images, "clip": options.clip,
            "max_images": options.max_images, "strings": s.values, "datasets": datasets,
            "runs": runs_json}
