"""Base class of backends that answer by running a program over the item."""

from __future__ import annotations

import hashlib
import time
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any

from whatifbench import __version__
from whatifbench.answers.letters import letter_for
from whatifbench.core.item import Item
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend


def seeded_unit(seed: object, key: str) -> float:
    """A deterministic number in [0, 1) from a seed and a key (order-independent)."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class ProgramBackend(Backend):
    """A backend whose answer is a value for the item: generation writes it (as an option
    letter for choice items), ranking gives the chosen candidate score 0 and the others -1.

    ``-M delay=SECONDS`` simulates a model's latency per request (for demos and resume tests).
    """

    capabilities = Capabilities(generate=True, rank=True, multi_image=True)
    execution_args = frozenset({"delay"})

    @abstractmethod
    def answer(self, item: Item, request: Request) -> str | None:
        """The chosen value: one of ``item.choices`` for choice items; ``None`` to abstain."""

    def describe(self) -> dict[str, Any]:
        """Also records the package version: a program's answers may change between releases,
        so cached answers of an older release are never reused."""
        return {**super().describe(), "whatifbench": __version__}

    def _wait(self) -> None:
        delay = float(self.args.get("delay", 0) or 0)
        if delay > 0:
            time.sleep(delay)

    def _item(self, request: Request) -> Item:
        if request.item is None:
            raise WhatifError(f"The backend {self.spec} needs the item with each request.")
        return request.item

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            self._wait()
            item = self._item(request)
            value = self.answer(item, request)
            if value is None:
                text = "I cannot tell."
            elif item.kind == "choice":
                text = letter_for(item.choices.index(value))
            else:
                text = value
            yield i, Response(text=text)

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            self._wait()
            item = self._item(request)
            value = self.answer(item, request)
            scores = tuple(0.0 if c == value else -1.0 for c in item.choices)
            yield i, Response(scores=scores, mean_scores=scores)
