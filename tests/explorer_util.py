"""A small paired dataset over real photographs, with hostile text in some questions, and a
model whose replies are hostile, for the results explorer tests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from photos import PHOTOS, photo_png

from whatifbench.answers.letters import letter_for
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.models.base import Backend

HOSTILE = ("<script>alert('question')</script>", '"><img src=x onerror=alert(2)>',
           "</textarea><b>bold</b>", "</script><script>alert(3)</script>")
"""Texts that would run or render as markup if a page used them unescaped."""
REPLY = "<script>alert('reply')</script> \"><img src=y onerror=alert(4)> </textarea>"
"""What ``test:hostile`` says when it does not answer."""
TRACE = {"backend": "test",
         "program": "def execute_command(image):\n    return '<script>x</script>'",
         "calls": [{"tool": "find", "args": ["<b>cat</b>"], "result": 3}], "value": 3,
         "failure": None}
"""The program trace ``test:hostile`` records for pair p0."""


def make_explorer_dataset(out: Path, n_pairs: int = 10) -> Path:
    """``n_pairs`` original/counterfactual pairs (four options, groups abs_counting_1/2) over
    photographs; pair 0 stores an intervened image; pairs 1–4 carry hostile questions."""
    with DatasetWriter(out) as writer:
        for k in range(n_pairs):
            rel = writer.add_image(f"{k:03d}.png", photo_png(PHOTOS[k % len(PHOTOS)], 96))
            extra: dict[str, Any] = {}
            if k == 0:
                extra["intervened_image"] = writer.add_image(
                    "intervened/000.png", photo_png(PHOTOS[1], 96))
            for r, role in enumerate(("original", "counterfactual")):
                values = [str(3 + k + 4 * j) for j in range(4)]
                target = values[(k + r) % 4]
                question = f"How many things are there ({role}, pair {k})?"
                if 1 <= k <= len(HOSTILE):
                    question = f"{HOSTILE[k - 1]} {question}"
                if role == "counterfactual":
                    question = f"If one thing were added, {question}"
                options = "  ".join(f"{letter_for(i)}:{v}" for i, v in enumerate(values))
                writer.add_item(Item(
                    id=f"p{k}-{role[0]}", images=(rel,), question=f"{question} {options}",
                    kind="choice", target=target, choices=tuple(values), pair_id=f"p{k}",
                    role=role, group=f"abs_counting_{1 + k % 2}",
                    meta={"template": 1 + k % 2, "image": f"{k:03d}.png"},
                    provenance=extra if role == "counterfactual" else {}))
        writer.finish(name="explorer", suite="cvqa-synthetic", version="test",
                      generator={"name": "hand"}, seed=0)
    return out


@register("backend", "test:hostile")
class HostileModel(Backend):
    """Answers with the right letter on some items and with markup on the others (unparsed)."""

    capabilities = Capabilities(generate=True)

    def prepare(self, items: Sequence[Item]) -> None:
        self._items = {i.id: i for i in items}

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            item = self._items[request.item_id]
            digest = hashlib.sha256(item.id.encode()).digest()[0]
            answer = f"The answer is {letter_for(item.target_index)}."
            if item.pair_id == "p0":  # as a program backend would record it
                yield i, Response(text=answer, meta={"trace": TRACE})
            elif digest % 3 == 0:
                yield i, Response(text=REPLY)
            else:
                yield i, Response(text=answer)


def load_samples(folder: Path) -> list[dict[str, Any]]:
    """``samples.jsonl`` of a run folder."""
    return [json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines() if x]


def pair_outcomes(samples: list[dict[str, Any]], model: str) -> dict[str, str]:
    """Per pair: ``RR``/``RW``/``WR``/``WW`` (original, counterfactual right or wrong)."""
    by_pair: dict[str, dict[str, bool]] = {}
    for s in samples:
        if s["model"] == model:
            by_pair.setdefault(s["pair_id"], {})[s["role"]] = s["correct"]
    return {p: ("R" if r["original"] else "W") + ("R" if r["counterfactual"] else "W")
            for p, r in by_pair.items()}
