"""Reference models without weights: random, constant, ignore-premise (believes its eyes),
flip-eyes (flips what it sees)."""

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
        return self.seen(item) if item.role == "counterfactual" else None

    def seen(self, item: Item) -> str | None:
        """What perfect eyes answer to a counterfactual item: its original's answer, or the
        option closest to it when that is not offered (``None``: no original, or no option
        to compare with)."""
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


@register("backend", "builtin:flip-eyes")
class FlipEyesBackend(IgnorePremiseBackend):
    """Answers originals correctly and each counterfactual with another option than its eyes.

    The other half of the believe-your-eyes reference: a reader with perfect eyes that takes
    every premise to change the answer, without working out how. A counterfactual of two
    options (or yes/no) gets the option ``builtin:ignore-premise`` does not choose; one of K
    options gets one of the other K − 1, drawn per item (-M seed=N, default 0); an open answer
    (a number without options) has no other option, and it abstains. Where a design makes the
    counterfactual answer equal the original's as often as it makes it another option (1/K of
    the pairs), both references score chance on the counterfactual questions.
    """

    arg_names = frozenset({"delay", "seed"})

    @property
    def version(self) -> str:
        return "1"

    def answer(self, item: Item, request: Request) -> str | None:
        if item.role in ("original", "basic"):
            return item.target
        if item.role != "counterfactual":
            return None
        seen = self.seen(item)
        if seen is None:
            return None
        if item.kind == "yes-no" and not item.choices:
            return {"yes": "no", "no": "yes"}.get(seen.strip().lower())
        others = [c for c in item.choices if c != seen]
        if not others:
            return None
        return others[int(seeded_unit(self.args.get("seed", 0), item.id) * len(others))]
