"""Datasets on disk: ``items.jsonl`` + ``images/`` + ``card.json``; loading validates everything."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.card import Card
from whatifbench.core.fsutil import sha256_bytes
from whatifbench.core.images import Inside, inspect_image
from whatifbench.core.integrity import integrity_problems
from whatifbench.core.item import REPEATABLE_ROLES, Item, item_from_json
from whatifbench.core.jsonfile import jsonl_lines, loads, lone_surrogate
from whatifbench.core.layout import CARD, IMAGES, ITEMS
from whatifbench.errors import WhatifError

MAX_LISTED = 12


@dataclass(frozen=True)
class Dataset:
    """A loaded, validated dataset."""

    root: Path
    """The dataset folder."""
    card: Card
    """Its card."""
    items: tuple[Item, ...]
    """Its items in file order."""
    items_sha256: str
    """sha256 of the ``items.jsonl`` bytes as loaded."""
    verified: bool = False
    """The files were checked against the card's hashes and match them."""

    def image_path(self, rel: str) -> Path:
        """Absolute path of an image referenced by an item."""
        return self.root / rel

    def pairs(self) -> dict[str, list[Item]]:
        """Items grouped by ``pair_id`` (unpaired items are left out)."""
        out: dict[str, list[Item]] = {}
        for item in self.items:
            if item.pair_id is not None:
                out.setdefault(item.pair_id, []).append(item)
        return out

    @property
    def suite(self) -> str:
        """Name of the suite whose protocol and metrics apply."""
        return self.card.suite


def problems_message(source: str, problems: list[str], fix: str) -> str:
    """One message listing problems (the first few, then a count)."""
    shown = problems[:MAX_LISTED]
    more = len(problems) - len(shown)
    lines = [f"{source} has {len(problems)} problem{'s' if len(problems) != 1 else ''}:"]
    lines += [f"  - {p}" for p in shown]
    if more:
        lines.append(f"  ... and {more} more.")
    lines.append(fix)
    return "\n".join(lines)


def check_image(path: Path) -> str | None:
    """Return why a source image of an import cannot be used (missing, unreadable, above the
    pixel limit of ``core.images``), or ``None`` when it opens and decodes (an EXIF orientation
    is fine here: the dataset writer applies it)."""
    return inspect_image(path, turned_ok=True)[0]


def sort_images(files: Iterable[tuple[str, Path | None]]) -> tuple[list[str], dict[str, str]]:
    """Split named image files into the missing ones (path ``None`` or absent) and the ones that
    do not decode (name → why); each name once, in first-seen order. Importers report both."""
    missing: list[str] = []
    unreadable: dict[str, str] = {}
    seen: set[str] = set()
    for name, path in files:
        if name in seen:
            continue
        seen.add(name)
        why = "is missing" if path is None else check_image(path)
        if why == "is missing":
            missing.append(name)
        elif why:
            unreadable[name] = why
    return missing, unreadable


def load_dataset(root: str | Path, check_images: bool = True, verify: bool = False) -> Dataset:
    """Load and validate a dataset folder; raise one ``WhatifError`` listing every problem.

    ``check_images``: every image must open, stay within the pixel limit and lie inside the
    folder (no symbolic link out of it). ``verify`` (done for runs, whose results record the
    hashes): the files must match the hashes in ``card.json``; with ``check_images`` the images
    are read once for both.
    """
    root = Path(root)
    if not root.is_dir():
        raise WhatifError(
            f"There is no dataset folder at {root}.{_near(root)} Pass a folder made by 'whatif "
            "generate', 'whatif import' or 'whatif build'."
        )
    card_path, items_path = root / CARD, root / ITEMS
    for path in (card_path, items_path):
        if not path.is_file():
            raise WhatifError(
                f"The dataset folder {root} has no {path.name}; it is not a whatifbench dataset "
                "(or it was not written completely). Re-create it with 'whatif generate' or "
                "'whatif import'."
            )
    try:
        card = Card.from_json(loads(card_path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise WhatifError(
            f"{card_path} is not a valid card ({exc}); re-create the dataset."
        ) from None
    raw = items_path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WhatifError(
            f"{items_path} is not UTF-8 text ({exc}); re-create the dataset."
        ) from None
    items, lines, problems = _parse_items(text, items_path)
    want_hash = verify and isinstance(card.hashes.get("images"), dict)
    digests: dict[str, str] = {}
    if check_images:
        problems += _image_problems(root, items, lines, items_path, want_hash, digests)
    if not items and not problems:
        problems.append(f"{items_path} holds no items")
    problems += _pair_problems(items, items_path)
    if problems:
        raise WhatifError(problems_message(
            f"The dataset {root}", problems,
            "Fix these lines (or re-create the dataset) and run the command again.",
        ))
    items_sha256 = sha256_bytes(raw)
    if verify:
        referenced = {rel for item in items for rel in item.images}
        changed = integrity_problems(root, card, items_sha256, referenced, digests)
        if changed:
            raise WhatifError(problems_message(
                f"The dataset {root} does not match the hashes in its card.json; it", changed,
                "Re-create the dataset (or restore the changed files). If you changed them on "
                "purpose and know the results will not match the card, pass --no-verify."))
    return Dataset(root, card, tuple(items), items_sha256, verified=verify and bool(card.hashes))


def _near(root: Path) -> str:
    """What a missing dataset folder was likely meant to be: a folder beside it with a close
    name, or a generator of that name (``whatif generate NAME``)."""
    from whatifbench.core.registry import listing
    from whatifbench.core.suggest import closest

    hints = []
    try:
        siblings = [p.name for p in root.parent.iterdir() if p.is_dir()]
    except OSError:
        siblings = []
    found = closest(root.name, siblings)
    if found:
        hints.append(f" Did you mean {root.parent / found}?")
    generator = closest(root.name, [e.name for e in listing("generator")])
    if generator:
        hints.append(f" To make the {generator} suite, run 'whatif generate {generator} --out "
                     "DIR' and pass DIR.")
    return "".join(hints)


def _parse_items(text: str, items_path: Path) -> tuple[list[Item], dict[str, int], list[str]]:
    """Items of ``items.jsonl``, the line of each id, and the problems of its lines."""
    problems: list[str] = []
    items: list[Item] = []
    seen: dict[str, int] = {}
    for lineno, line in jsonl_lines(text):
        where = f"{items_path}:{lineno}"
        try:
            obj = loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        bad = lone_surrogate(line, obj)
        if bad:
            problems.append(f"{where}: {bad}")
            continue
        item, errs = item_from_json(obj)
        problems += [f"{where}: {e}" for e in errs]
        if item is None:
            continue
        if item.id in seen:
            problems.append(f"{where}: duplicate id {item.id!r} (first on line {seen[item.id]})")
            continue
        seen[item.id] = lineno
        items.append(item)
    return items, seen, problems


def _image_problems(root: Path, items: list[Item], lines: dict[str, int], items_path: Path,
                    want_hash: bool, digests: dict[str, str]) -> list[str]:
    """Each image once: inside the folder, readable, within the pixel limit (hashes kept)."""
    problems: list[str] = []
    seen: set[str] = set()
    inside = Inside(root)
    base = os.fspath(root)
    for item in items:
        for rel in item.images:
            if rel in seen:
                continue
            seen.add(rel)
            where = f"{items_path}:{lines[item.id]}"
            leads = inside.outside(rel)
            if leads is not None:
                problems.append(f"{where}: image {rel} leads to {leads}, outside the dataset "
                                "folder (a symbolic link?); copy the file into the dataset")
                continue
            why, digest = inspect_image(os.path.join(base, rel), want_hash)
            if digest is not None:
                digests[rel] = digest
            if why:
                problems.append(f"{where}: image {rel} {why}")
    return problems


def _pair_problems(items: list[Item], items_path: Path) -> list[str]:
    """Each pair holds distinct roles (but the ``REPEATABLE_ROLES``)."""
    roles: dict[str, list[str]] = {}
    for item in items:
        if item.pair_id is not None and item.role not in (None, *REPEATABLE_ROLES):
            roles.setdefault(item.pair_id, []).append(item.role)
    return [
        f"{items_path}: pair {pid!r} has the role(s) {', '.join(r)} more than once"
        for pid, r in roles.items() if len(set(r)) != len(r)
    ]


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, parsed object)`` for each non-empty line of a JSONL file.

    Raises ``WhatifError`` naming the file and line of the first line that is not JSON.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WhatifError(f"The file {path} does not exist; check the path.") from None
    except UnicodeDecodeError as exc:
        raise WhatifError(f"{path} is not UTF-8 text ({exc}).") from None
    yield from jsonl_records(path, text)


def jsonl_records(path: Path, text: str, hint: str = "each line must hold one JSON object"
                  ) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed value)`` for each non-empty line of ``text`` (read from ``path``).

    The first line that is not JSON (nested too deeply included) or holds a lone surrogate raises
    ``WhatifError`` naming the file and line; ``hint`` says what a line should hold.
    """
    for lineno, line in jsonl_lines(text):
        try:
            obj = loads(line)
        except json.JSONDecodeError as exc:
            raise WhatifError(
                f"{path}:{lineno} is not valid JSON ({exc.msg} at column {exc.colno}); {hint}."
            ) from None
        bad = lone_surrogate(line, obj)
        if bad:
            raise WhatifError(f"{path}:{lineno} {bad}.")
        yield lineno, obj


from whatifbench.core.writer import DatasetWriter, count_items  # noqa: E402  (re-exported)

__all__ = ["CARD", "IMAGES", "ITEMS", "Dataset", "DatasetWriter", "check_image", "count_items",
           "iter_jsonl", "jsonl_records", "load_dataset", "problems_message", "sort_images"]
