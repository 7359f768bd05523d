"""Reference rows beside chance and the text-only baseline: what readers that never work a
premise out score on the suite's own tables.

- **believes its eyes**: perfect eyes, every counterfactual answered with what the picture
  shows (``builtin:ignore-premise``);
- **flips what it sees**: perfect eyes, every counterfactual answered with another option
  (``builtin:flip-eyes``: the other one of two; of more, one drawn per item);
- **blind, pairs at once**: the audit's pair-aware blind guesser (``joint guess``: both texts
  of a pair, or every member of a contrast set, guessed together), its out-of-fold answers
  scored as a run; items outside such units keep the audit's one-question-at-a-time guess.

The first two apply to paired suites (``Suite.pair_roles``); they answer every original right,
so their pair accuracy is their counterfactual accuracy, and a design where either beats the
counterfactual's chance rewards a policy short of reasoning. The third is the floor of the
paired metrics (acc+, pair accuracy, all-right per set) for a reader that sees no picture.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.requests import Request
from whatifbench.report.table import Table

EYES = "believes its eyes (reference)"
"""The label of the believe-your-eyes row."""
FLIP = "flips what it sees (reference)"
"""The label of the flip row."""
JOINT = "blind, pairs at once (audit)"
"""The label of the pair-aware blind row."""
NOTE = ("believes its eyes / flips what it sees = a reader with perfect eyes that answers every "
        "counterfactual with what the picture shows / with another option (builtin:"
        "ignore-premise / builtin:flip-eyes): neither works a premise out, so a score near "
        "theirs is no evidence of counterfactual reasoning.")
JOINT_NOTE = ("blind, pairs at once = the audit's blind guesser of whole pairs and sets (both "
              "texts read together, out of fold): the floor of the pair metrics without a "
              "picture.")

Tables = Callable[[str, Callable[[Item], tuple[str | None, bool]]], list[Table]]
"""Makes the suite's tables of one labelled row from an answer per item."""


def policy_rows(suite: Any, items: Sequence[Item], tables: Tables
                ) -> list[tuple[str, list[Table]]]:
    """``(label, tables)`` of the two eyes references, for a paired suite (else none; no flip
    row where a counterfactual has an open answer, a number without options: there is no
    "other option" to give)."""
    if suite.pair_roles is None:
        return []
    from whatifbench.models.builtin.reference import FlipEyesBackend, IgnorePremiseBackend

    # another option than the eyes' is defined only where every counterfactual has options
    closed = all(item.choices or item.kind == "yes-no" for item in items
                 if item.role == "counterfactual")
    out = []
    for label, cls, spec in ((EYES, IgnorePremiseBackend, "builtin:ignore-premise"),
                             *([(FLIP, FlipEyesBackend, "builtin:flip-eyes")] * closed)):
        backend = cls(spec, {})
        backend.prepare(items)

        def answer(item: Item, backend: Any = backend) -> tuple[str | None, bool]:
            said = backend.answer(item, Request(item.id, ()))
            return said, said is not None and bool(suite.is_correct(item, said))

        out.append((label, tables(label, answer)))
    return out


def joint_row(audit: dict[str, Any], tables: Tables) -> list[tuple[str, list[Table]]]:
    """``(label, tables)`` of the audit's pair-aware guesser (none when the cached audit has
    no such outcomes, or no unit)."""
    found = audit.get("per_item")
    if not isinstance(found, dict):
        return []
    ids, joint, blind = found.get("ids"), found.get("joint"), found.get("blind")
    if not (isinstance(ids, list) and isinstance(joint, list) and isinstance(blind, list)
            and len(ids) == len(joint) == len(blind)) or not any(j in (0, 1) for j in joint):
        return []
    right = {str(i): bool(j) if j in (0, 1) else bool(b)
             for i, j, b in zip(ids, joint, blind, strict=True)}

    def answer(item: Item) -> tuple[str | None, bool]:
        if right.get(item.id, False):
            return item.target, True
        return next((c for c in item.choices if c != item.target), None), False

    return [(JOINT, tables(JOINT, answer))]
