"""``builtin:text-prior``: a model that never looks at the image.

It shows how far the question text alone gets. For a choice item it picks the option whose words
all occur in the question (information leakage, e.g. "If I painted the bus blue, what colour
would it be?" → blue); when no single option does, the option that is most frequent among the
choices of all evaluated items (learned in ``prepare`` from the choices only, never from the
targets); remaining ties are broken by a seeded hash (``-M seed=N``), never by position. A
counting item gets the first number written in the question, a yes/no item a seeded coin.
A benchmark whose answers cannot be guessed from text keeps this model near chance.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request
from whatifbench.models.builtin.program import ProgramBackend, seeded_unit

NUMBER_WORDS = {w: str(i) for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty"))}
WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens with number words as digits and a plural ``s`` removed."""
    out = []
    for token in WORD.findall(text.lower()):
        token = NUMBER_WORDS.get(token, token)
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        out.append(token)
    return out


def option_key(option: str) -> str:
    """The normalised form of an option used for frequency counts."""
    return " ".join(tokens(option))


@register("backend", "builtin:text-prior")
class TextPriorBackend(ProgramBackend):
    """Answers from the question text alone: leaked option, else the most frequent option."""

    arg_names = frozenset({"delay", "seed"})
    reads_images = False

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        super().__init__(spec, args)
        self._frequency: Counter[str] = Counter()

    @property
    def version(self) -> str:
        return "1"

    def prepare(self, items: Sequence[Item]) -> None:
        """Count each option over the choices of all evaluated items (targets are not read)."""
        self._frequency = Counter(option_key(c) for i in items if i.kind == "choice"
                                  for c in i.choices)

    def answer(self, item: Item, request: Request) -> str | None:
        words = set(tokens(item.question))
        seed = self.args.get("seed", 0)
        if item.kind == "choice":
            leaked = [c for c in item.choices if tokens(c) and set(tokens(c)) <= words]
            if len(leaked) == 1:
                return leaked[0]
            return max(item.choices, key=lambda c: (self._frequency[option_key(c)],
                                                    seeded_unit(seed, f"{item.id}:{c}")))
        if item.kind == "number":
            return next((t for t in tokens(item.question) if t.isdigit()), None)
        if item.kind == "yes-no":
            return "yes" if seeded_unit(seed, item.id) < 0.5 else "no"
        return None
