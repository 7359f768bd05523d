"""Typed records of the human baseline: one answer, and the settings of an annotation store."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from whatifbench.errors import WhatifError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")
"""An annotator's name: a letter or digit, then up to 63 letters, digits, ``_ . @ -``."""
SHOWN = 60
"""Longest value echoed in a message (longer ones are cut, with their length)."""


def shown(value: object) -> str:
    """``value`` as a message shows it: its ``repr``, cut after ``SHOWN`` characters of text
    with the full length said (a 10,000-character name is not echoed whole)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= SHOWN:
        return repr(value)
    return f"{text[:SHOWN]!r}… ({len(text):,} characters)"


def check_name(name: str, where: str = "--annotator") -> str:
    """``name`` if it is a valid annotator name, else a ``WhatifError`` saying what is allowed."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise WhatifError(
            f"{where} {shown(name)} is not a usable annotator name; use 1 to 64 letters, digits, "
            "'_', '.', '@' or '-', starting with a letter or digit (a pseudonym such as a01 "
            "keeps people's names out of the results).")
    return name


@dataclass(frozen=True)
class Answer:
    """One annotator's answer to one item, from the app or a crowd sheet."""

    annotator: str
    """Who answered (a name or pseudonym)."""
    item_id: str
    """The dataset item answered."""
    reply: str
    """The answer as text, parsed like a model's reply (a letter, yes/no, a number, an
    explanation); empty when the annotator was unsure."""
    seconds: float | None = None
    """Time spent on the item, when recorded."""
    unsure: bool = False
    """The annotator pressed "unsure" (scored as no answer, left out of agreement)."""
    line: int | None = None
    """Crowd sheets: the line of the sheet it came from (for messages)."""


@dataclass(frozen=True)
class Settings:
    """How a store deals items to annotators; fixed when the store is created."""

    per_item: int | None = None
    """Annotators per item (``--per-item K``); ``None``: every annotator gets every item."""
    limit: int | None = None
    """About this many items in the pool (whole pairs spread over the groups, as ``--limit``
    of ``whatif run``); ``None``: the whole dataset."""
    seed: int = 0
    """Seed of the item order and of the counterbalancing."""

    def to_json(self) -> dict[str, Any]:
        """The settings as stored."""
        return {"per_item": self.per_item, "limit": self.limit, "seed": self.seed}

    def describe(self) -> str:
        """``--seed 0 --per-item 3 --limit 200``: the options that give these settings."""
        parts = [f"--seed {self.seed}"]
        if self.per_item:
            parts.append(f"--per-item {self.per_item}")
        if self.limit:
            parts.append(f"--limit {self.limit}")
        return " ".join(parts)
