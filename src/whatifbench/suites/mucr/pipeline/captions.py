"""Read the core caption pairs of ``whatif build mucr`` (a CSV file) and check them.

Columns (header required, any order, names in any letter case): ``cause`` and ``effect`` (the
two captions; also ``caption_0``/``caption_1``), ``group`` (pairs sharing a kind of causality,
exactly four per group), ``category`` (or ``label``: human, animal, plant, character, mixture),
optional ``style`` (photograph or comic; default ``--style``) and optional ``id`` (default: the
row number). Every problem of the file is reported at once with its line.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from whatifbench.core.dataset import problems_message
from whatifbench.core.readfile import read_text
from whatifbench.errors import WhatifError
from whatifbench.suites.mucr.records import (
    CATEGORIES,
    CATEGORY_ALIASES,
    GROUP_SIZE,
    STYLE_ALIASES,
    STYLES,
)

ALIASES = {"cause": "cause", "caption_0": "cause", "cause_caption": "cause",
           "effect": "effect", "caption_1": "effect", "effect_caption": "effect",
           "group": "group", "category": "category", "label": "category", "style": "style",
           "id": "id"}
REQUIRED = ("cause", "effect", "group", "category")
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""Pair ids name files and items: letters, digits, ``_``, ``.`` and ``-``."""


@dataclass(frozen=True)
class CaptionPair:
    """One core caption pair."""

    id: str
    """Pair id (the ``id`` column, else the row number)."""
    line: int
    """Line of the CSV file."""
    cause: str
    """The cause caption."""
    effect: str
    """The effect caption."""
    group: str
    """Its group of four."""
    category: str
    """One of ``CATEGORIES``."""
    style: str
    """One of ``STYLES``."""


def _norm(value: str, allowed: tuple[str, ...], aliases: dict[str, str]) -> str | None:
    word = value.strip().lower()
    word = aliases.get(word, word)
    return word if word in allowed else None


def read_captions(path: str | Path, default_style: str = "photograph") -> list[CaptionPair]:
    """The caption pairs of ``path``; one ``WhatifError`` listing every problem otherwise."""
    path = Path(path)
    try:
        text = read_text(path, "utf-8-sig")
    except FileNotFoundError:
        raise WhatifError(f"The captions file {path} does not exist; pass a CSV file with "
                          "--captions.") from None
    except UnicodeDecodeError as exc:
        raise WhatifError(f"{path} is not UTF-8 text ({exc}); save it as UTF-8 CSV.") from None
    if default_style not in STYLES:
        raise WhatifError(f"--style {default_style!r} is not one of {', '.join(STYLES)}.")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise WhatifError(f"{path} is empty; it needs a header line "
                          "cause,effect,group,category[,style][,id].") from None
    columns = {ALIASES.get(h.strip().lower()): k for k, h in enumerate(header)}
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise WhatifError(f"{path}:1: the header lacks the column(s) {', '.join(missing)}; the "
                          "columns are cause,effect,group,category[,style][,id].")
    problems: list[str] = []
    pairs: list[CaptionPair] = []
    seen: dict[str, int] = {}
    line = reader.line_num + 1
    for row in reader:
        start, line = line, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue

        def cell(name: str, row: list[str] = row) -> str:
            k = columns.get(name)
            return row[k].strip() if k is not None and k < len(row) else ""

        where = f"{path}:{start}"
        rid = cell("id") or str(len(pairs) + 1)
        category = _norm(cell("category"), CATEGORIES, CATEGORY_ALIASES)
        style = _norm(cell("style") or default_style, STYLES, STYLE_ALIASES)
        errs = [f"{where}: the {c} caption is empty" for c in ("cause", "effect") if not cell(c)]
        if not cell("group"):
            errs.append(f"{where}: the group is empty")
        if category is None:
            errs.append(f"{where}: category {cell('category')!r} is not one of "
                        f"{', '.join(CATEGORIES)}")
        if style is None:
            errs.append(f"{where}: style {cell('style')!r} is not one of {', '.join(STYLES)}")
        if not ID.fullmatch(rid):
            errs.append(f"{where}: id {rid!r} may hold only letters, digits, '_', '.' and '-'")
        elif rid in seen:
            errs.append(f"{where}: id {rid!r} already used on line {seen[rid]}")
        problems += errs
        if errs or category is None or style is None:
            continue
        seen[rid] = start
        pairs.append(CaptionPair(rid, start, cell("cause"), cell("effect"), cell("group"),
                                 category, style))
    sizes: dict[str, list[CaptionPair]] = {}
    for p in pairs:
        sizes.setdefault(p.group, []).append(p)
    for group, members in sizes.items():
        if len(members) != GROUP_SIZE:
            lines = ", ".join(str(p.line) for p in members)
            problems.append(f"{path}:{members[0].line}: group {group!r} has {len(members)} "
                            f"pair(s) (lines {lines}); a group has exactly {GROUP_SIZE}")
    if not pairs and not problems:
        problems.append(f"{path}: no caption pairs")
    if problems:
        raise WhatifError(problems_message(f"The captions file {path}", problems,
                                           "Fix these rows and run the build again; nothing "
                                           "was written and no model was called."))
    return pairs
