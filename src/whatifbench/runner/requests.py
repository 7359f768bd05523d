"""Turn items into backend requests: prompts, strategies, demonstrations, image layout, keys."""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Sequence
from pathlib import Path

from whatifbench.core.composite import compose
from whatifbench.core.dataset import Dataset
from whatifbench.core.decoding import request_seed
from whatifbench.core.fsutil import cached_file, sha256_file
from whatifbench.core.item import Item
from whatifbench.core.protocol import CCOT_DESCRIBE, Protocol
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.core.suite import Suite
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.runner.store import whatif_home


class ImageHasher:
    """sha256 of image files, computed once per file version in a process (a file whose size
    or modification time changed is hashed again)."""

    _known: dict[tuple[str, int, int], str] = {}

    def __call__(self, path: str) -> str:
        info = os.stat(path)
        key = (path, info.st_size, info.st_mtime_ns)
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = sha256_file(Path(path))
        return found


def request_key(backend: Backend, mode: str, request: Request, hasher: ImageHasher) -> str:
    """The cache key: backend identity + request content (image bytes hashed) + parameters."""
    turns = [
        [t.role, [["image", hasher(p.image)] if p.image else ["text", p.text] for p in t.parts]]
        for t in request.turns
    ]
    payload = {
        "backend": backend.cache_identity(),
        "mode": mode,
        "item": request.item_id,
        "turns": turns,
        "candidates": list(request.candidates),
        "answer_prefix": request.answer_prefix,
        "max_new_tokens": request.max_new_tokens if mode == "generate" else None,
    }
    if request.plain:  # only when set, so that the keys of chat requests stay as they were
        payload["plain"] = True
    if mode == "generate" and request.decoding is not None and not request.decoding.is_default:
        payload["decoding"] = request.decoding.to_json()  # greedy keys stay as they were
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def answer_mode_for(mode: str, item: Item) -> str:
    """The answer mode of one item: free-text items have nothing to rank and are generated."""
    return "generate" if item.kind == "text" else mode


def choose_demos(dataset: Dataset, evaluated: Sequence[Item], seed: int,
                 suite: Suite) -> dict[str, Item]:
    """One demonstration per evaluated item, chosen deterministically.

    A demonstration has the item's group and role and is allowed by ``suite.may_demonstrate``
    (never the item's own pair). Items outside the evaluated set are preferred (the first in a
    seeded order, so the items of a group share it); when everything is evaluated, another
    pair's item is used (leave-pair-out).
    """
    evaluated_ids = {i.id for i in evaluated}

    def order(item: Item) -> str:
        return hashlib.sha256(f"{seed}:{item.id}".encode()).hexdigest()

    buckets: dict[tuple[str | None, str | None], list[Item]] = {}
    for item in sorted(dataset.items, key=order):
        buckets.setdefault((item.group, item.role), []).append(item)
    has_outside = {k: any(c.id not in evaluated_ids for c in b) for k, b in buckets.items()}
    demos: dict[str, Item] = {}
    for item in evaluated:
        key = (item.group, item.role)
        fallback: Item | None = None
        for c in buckets.get(key, []):
            if not suite.may_demonstrate(c, item):
                continue
            fallback = fallback or c
            if not has_outside[key] or c.id not in evaluated_ids:
                demos[item.id] = c
                break
        else:
            if fallback is None:
                raise WhatifError(
                    f"No demonstration is available for item {item.id} (group {item.group!r}): "
                    "the dataset has no other item of its group and role. Use --strategy "
                    "zero-shot or cot."
                )
            demos[item.id] = fallback
    return demos


class RequestBuilder:
    """Builds the requests of one (suite, protocol) for items of one dataset."""

    def __init__(self, suite: Suite, protocol: Protocol, dataset: Dataset,
                 demos: dict[str, Item] | None = None, seed: int = 0) -> None:
        self.suite = suite
        self.protocol = protocol
        self.dataset = dataset
        self.demos = demos or {}
        self.seed = seed
        self.decoding = suite.decoding(protocol)

    def _images(self, item: Item) -> list[Part]:
        """Image parts; items with ``meta["image_labels"]`` get each label before its image
        (``multi``) or drawn on its tile (``composite``)."""
        paths = [str(self.dataset.image_path(rel)) for rel in item.images]
        labels = item.meta.get("image_labels")
        if self.protocol.image_layout == "composite" and len(paths) > 1:
            tiles = labels or [f"Image {i + 1}" for i in range(len(paths))]
            return [Part(image=composite_file(paths, tiles))]
        if labels and len(labels) == len(paths):
            return [part for label, path in zip(labels, paths, strict=True)
                    for part in (Part(text=f"{label}:"), Part(image=path))]
        return [Part(image=p) for p in paths]

    def _user(self, item: Item, text: str) -> Turn:
        return Turn("user", (*self._images(item), Part(text=text)))

    def text(self, item: Item) -> str:
        """The final prompt text for an item under the protocol's strategy."""
        text = self.suite.prompt_text(item, self.protocol)
        if self.protocol.strategy == "cot":
            text = f"{text}\n{self.suite.cot_suffix}"
        return text

    def demo_answer(self, demo: Item) -> str:
        """How a demonstration's correct answer is written: in rank mode the candidate the
        evaluated item is scored on (the target's), otherwise the suite's ``answer_text``."""
        if self.protocol.answer_mode == "rank" and demo.kind == "choice":
            return self.suite.candidates(demo, self.protocol)[demo.target_index]
        return self.suite.answer_text(demo)

    def build(self, item: Item, description: str | None = None) -> Request:
        """The request for one item (``description``: the CCoT first-stage output)."""
        turns: list[Turn] = []
        if self.protocol.strategy in ("one-shot", "one-shot-cot"):
            demo = self.demos[item.id]
            answer = self.demo_answer(demo)
            if self.protocol.strategy == "one-shot-cot":
                reasoning = self.suite.explain(demo)
                if not reasoning:
                    raise WhatifError(
                        f"The one-shot-cot strategy needs a worked reasoning for the demonstration "
                        f"{demo.id}, and the suite {self.suite.name} has none for it; use "
                        "--strategy one-shot."
                    )
                answer = f"{reasoning} So the answer is {answer}."
            turns += [self._user(demo, self.suite.prompt_text(demo, self.protocol)),
                      Turn("assistant", (Part(text=answer),))]
        text = self.text(item)
        if description is not None:
            text = f"Scene description:\n{description}\n\n{text}"
        turns += self.suite.user_turns(item, self.protocol, tuple(self._images(item)), text)
        rank = answer_mode_for(self.protocol.answer_mode or "generate", item) == "rank"
        decoding = None if rank or self.decoding is None else \
            self.decoding.seeded(request_seed(self.seed, item.id))
        return Request(
            item_id=item.id,
            turns=tuple(turns),
            candidates=self.suite.candidates(item, self.protocol) if rank else (),
            answer_prefix=self.suite.answer_prefix(item, self.protocol),
            max_new_tokens=self.protocol.max_new_tokens or 64,
            plain=self.suite.plain_prompt(self.protocol),
            decoding=decoding,
            item=item,
        )

    def describe_request(self, item: Item) -> Request:
        """CCoT first stage: ask for a scene description of the item's image(s)."""
        return Request(item_id=f"{item.id}#describe",
                       turns=(self._user(item, CCOT_DESCRIBE),),
                       max_new_tokens=256, item=item)


def composite_file(paths: Sequence[str], labels: Sequence[str]) -> str:
    """Path of the cached composite of ``paths`` (content-addressed under ``$WHATIF_HOME``)."""
    key = hashlib.sha256(json.dumps([[sha256_file(Path(p)) for p in paths], list(labels)])
                         .encode()).hexdigest()
    path = whatif_home() / "composites" / f"{key}.png"
    return str(cached_file(path, lambda: compose(paths, labels)))


def limit_groups(items: Sequence[Item]) -> dict[str, str]:
    """The group each unit (pair or single item) is spread over by ``--limit``: the ``group``
    its items share, else the ``category`` of their metadata (MuCR's four metric items of a
    pair), else one group."""
    members: dict[str, list[Item]] = {}
    for item in items:
        members.setdefault(item.unit, []).append(item)
    out = {}
    for unit, found in members.items():
        groups = {i.group for i in found}
        categories = {str(i.meta.get("category")) for i in found if "category" in i.meta}
        out[unit] = (str(groups.pop() or "") if len(groups) == 1 else
                     categories.pop() if len(categories) == 1 else "")
    return out


def spread_limit(items: Sequence[Item], limit: int) -> list[Item]:
    """At least ``limit`` items made of whole pairs, spread evenly over the groups: one pair of
    each group in turn (groups in order of first appearance, pairs in file order), until the
    count is reached. Deterministic; the items keep their file order."""
    if limit < 1:
        raise WhatifError(f"--limit must be a positive number of items, got {limit}.")
    sizes: dict[str, int] = {}
    for item in items:
        sizes[item.unit] = sizes.get(item.unit, 0) + 1
    queues: dict[str, list[str]] = {}
    for unit, group in limit_groups(items).items():
        queues.setdefault(group, []).append(unit)
    kept: set[str] = set()
    total = 0
    while total < limit and any(queues.values()):
        for queue in queues.values():
            if queue and total < limit:
                unit = queue.pop(0)
                kept.add(unit)
                total += sizes[unit]
    return [i for i in items if i.unit in kept]


def select_items(items: Sequence[Item], limit: int | None, subset: float | None,
                 seed: int) -> list[Item]:
    """Apply ``--subset`` (a seeded random share of pairs) then ``--limit`` (whole pairs spread
    evenly over the groups, see ``spread_limit``)."""
    chosen = list(items)
    if subset is not None:
        if not 0 < subset <= 1:
            raise WhatifError(f"--subset must be a fraction in (0, 1], got {subset}.")
        units = sorted({i.unit for i in chosen})
        keep = set(random.Random(seed).sample(units, max(1, round(subset * len(units)))))
        chosen = [i for i in chosen if i.unit in keep]
    if limit is not None:
        chosen = spread_limit(chosen, limit)
    return chosen
