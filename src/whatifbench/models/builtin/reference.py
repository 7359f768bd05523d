"""Reference models without weights: random, constant, ignore-premise."""

from __future__ import annotations

from collections.abc import Sequence

from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request
from whatifbench.core.suite import suite_for
from whatifbench.models.builtin.program import ProgramBackend, seeded_unit


@register("backend", "builtin:random")
class RandomBackend(ProgramBackend):
    """Uniformly random answers, seeded per item (-M seed=N, default 0)."""

    arg_names = frozenset({"delay", "seed"})
    reads_images = False

    def answer(self, item: Item, request: Request) -> str | None:
        u = seeded_unit(self.args.get("seed", 0), item.id)
        if item.kind == "choice":
            return item.choices[int(u * len(item.choices))]
        if item.kind == "yes-no":
            return "yes" if u < 0.5 else "no"
        if item.kind == "number":
            return str(int(u * 11))
        return None


@register("backend", "builtin:constant")
class ConstantBackend(ProgramBackend):
    """Always the first option (``yes`` for yes/no, ``1`` for counts)."""

    arg_names = frozenset({"delay"})
    reads_images = False

    def answer(self, item: Item, request: Request) -> str | None:
        if item.kind == "choice":
            return item.choices[0]
        return {"yes-no": "yes", "number": "1"}.get(item.kind)


@register("backend", "builtin:ignore-premise")
class IgnorePremiseBackend(ProgramBackend):
    """Answers originals correctly and each counterfactual with its original's answer.

    It models a reader with perfect eyes who ignores the premise, so it applies only to suites
    of original/basic and counterfactual pairs (``Suite.pair_roles``: C-VQA, CFMM), not to MuCR
    or CELLO.
    """

    arg_names = frozenset({"delay"})
    reads_images = False  # its "perfect eyes" are the items' own answers

    def inapplicable(self, suite: str, generator: str | None = None) -> str | None:
        """Only paired suites have an original answer to repeat."""
        if suite_for(suite).pair_roles is None:
            return (f"it answers only suites of original (or basic) and counterfactual pairs, "
                    f"and {suite} items come in no such pairs")
        return None

    @property
    def version(self) -> str:
        return "2"

    def prepare(self, items: Sequence[Item]) -> None:
        self._factual = {
            i.pair_id: i.target for i in items
            if i.pair_id is not None and i.role in ("original", "basic")
        }

    def answer(self, item: Item, request: Request) -> str | None:
        if item.role in ("original", "basic"):
            return item.target
        if item.role != "counterfactual":
            return None
        seen = getattr(self, "_factual", {}).get(item.pair_id)
        if seen is None:
            return None
        if item.kind != "choice" or seen in item.choices:
            return seen
        try:
            # The eyes' value is not offered: take the option closest to it.
            return min(item.choices, key=lambda c: (abs(float(c) - float(seen)), c))
        except ValueError:
            return None
