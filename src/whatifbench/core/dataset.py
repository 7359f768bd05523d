"""Datasets on disk: ``items.jsonl`` + ``images/`` + ``card.json``; loading validates everything."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from whatifbench.core.card import Card
from whatifbench.core.fsutil import dumps, sha256_bytes, sha256_file, staged_dir
from whatifbench.core.item import Item, item_from_json
from whatifbench.errors import WhatifError

ITEMS = "items.jsonl"
CARD = "card.json"
IMAGES = "images"
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
    """Return why an image cannot be used, or ``None`` when it opens and decodes."""
    if not path.is_file():
        return "is missing"
    try:
        with Image.open(path) as img:
            img.verify()
    except Exception as exc:  # noqa: BLE001  (PIL raises many types for corrupt data)
        return f"cannot be read as an image ({type(exc).__name__}: {exc})"
    return None


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


def load_dataset(root: str | Path, check_images: bool = True) -> Dataset:
    """Load and validate a dataset folder; raise one ``WhatifError`` listing every problem."""
    root = Path(root)
    if not root.is_dir():
        raise WhatifError(
            f"There is no dataset folder at {root}. Pass a folder made by 'whatif generate', "
            "'whatif import' or 'whatif build'."
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
        card = Card.from_json(json.loads(card_path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as exc:
        raise WhatifError(
            f"{card_path} is not a valid card ({exc}); re-create the dataset."
        ) from None
    raw = items_path.read_bytes()
    problems: list[str] = []
    items: list[Item] = []
    seen: dict[str, int] = {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WhatifError(
            f"{items_path} is not UTF-8 text ({exc}); re-create the dataset."
        ) from None
    images: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{items_path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})")
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
        for rel in item.images:
            if rel not in images:
                images.add(rel)
                if check_images:
                    why = check_image(root / rel)
                    if why:
                        problems.append(f"{where}: image {rel} {why}")
    if not items and not problems:
        problems.append(f"{items_path} holds no items")
    problems += _pair_problems(items, items_path)
    if problems:
        raise WhatifError(problems_message(
            f"The dataset {root}", problems,
            "Fix these lines (or re-create the dataset) and run the command again.",
        ))
    return Dataset(root, card, tuple(items), sha256_bytes(raw))


def _pair_problems(items: list[Item], items_path: Path) -> list[str]:
    """Each pair holds distinct roles."""
    roles: dict[str, list[str]] = {}
    for item in items:
        if item.pair_id is not None and item.role is not None:
            roles.setdefault(item.pair_id, []).append(item.role)
    return [
        f"{items_path}: pair {pid!r} has the role(s) {', '.join(r)} more than once"
        for pid, r in roles.items() if len(set(r)) != len(r)
    ]


def count_items(items: Iterable[Item]) -> dict[str, Any]:
    """Counts for the card: items, pairs, and items per group and per role."""
    items = list(items)
    return {
        "items": len(items),
        "pairs": len({i.pair_id for i in items if i.pair_id is not None}),
        "by_group": dict(sorted(Counter(i.group or "" for i in items).items())),
        "by_role": dict(sorted(Counter(i.role or "" for i in items).items())),
    }


class DatasetWriter:
    """Write a dataset into a staging folder that replaces ``out`` only when complete.

    Use as a context manager; write images under ``self.images`` (or with ``add_image``), add
    items in order, then call ``finish``. If the block raises, nothing appears at ``out``.
    ``add_image`` remembers the hash of the bytes it writes (do not change such files
    afterwards); files written under ``self.images`` by other means are hashed in ``finish``.
    Items are serialized when added (so that a generator's workers overlap with it).
    """

    def __init__(self, out: str | Path, overwrite: bool = False) -> None:
        self.out = Path(out)
        self.overwrite = overwrite
        self._stack = ExitStack()
        self._items: list[Item] = []
        self._lines: list[str] = []
        self._ids: set[str] = set()
        self._hashes: dict[str, str] = {}
        self._dirs: set[Path] = set()
        self.stage = Path()
        self.images = Path()
        self.card: Card | None = None

    def __enter__(self) -> DatasetWriter:
        self.stage = self._stack.enter_context(staged_dir(self.out, self.overwrite))
        self.images = self.stage / IMAGES
        self.images.mkdir()
        return self

    def __exit__(self, *exc: object) -> bool | None:
        if exc[0] is None and self.card is None:
            self._stack.__exit__(RuntimeError, RuntimeError("finish() was not called"), None)
            raise RuntimeError("DatasetWriter.finish() was not called before the block ended.")
        return self._stack.__exit__(*exc)  # type: ignore[arg-type]

    def add_image(self, name: str, data: bytes) -> str:
        """Store image bytes as ``images/<name>``; return the item-relative path."""
        path = self.images / name
        if path.parent not in self._dirs:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(path.parent)
        path.write_bytes(data)
        rel = f"{IMAGES}/{name}"
        self._hashes[rel] = sha256_bytes(data)
        return rel

    def add_item(self, item: Item) -> None:
        """Append an item (ids must be unique); it is serialized now."""
        if item.id in self._ids:
            raise ValueError(f"duplicate item id {item.id!r}")
        self._lines.append(dumps(item.to_json()) + "\n")
        self._ids.add(item.id)
        self._items.append(item)

    def add_items(self, items: Iterable[Item]) -> None:
        """Append several items."""
        for item in items:
            self.add_item(item)

    def finish(self, *, name: str, suite: str, version: str, generator: dict[str, Any],
               seed: int | None, counts: dict[str, Any] | None = None,
               extra: dict[str, Any] | None = None) -> Card:
        """Write ``items.jsonl`` and ``card.json`` (with hashes); the rename happens on exit."""
        data = "".join(self._lines).encode("utf-8")
        (self.stage / ITEMS).write_bytes(data)
        image_hashes = {rel: self._hashes.get(rel) or sha256_file(self.stage / rel)
                        for rel in self._image_files()}
        all_counts = count_items(self._items)
        all_counts.update(counts or {})
        self.card = Card(
            name=name, suite=suite, version=version, generator=generator, seed=seed,
            counts=all_counts,
            hashes={
                "items_sha256": sha256_bytes(data),
                "images_sha256": sha256_bytes(dumps(image_hashes).encode("utf-8")),
                "images": image_hashes,
            },
            extra=extra or {},
        )
        (self.stage / CARD).write_text(
            json.dumps(self.card.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        return self.card

    def _image_files(self) -> list[str]:
        """Paths (relative to the dataset, ``/``-separated) of the files under ``images/``, in
        path order."""
        found = []
        for folder, _, files in os.walk(self.images):
            rel = Path(folder).relative_to(self.stage).as_posix()
            found += [f"{rel}/{name}" for name in files
                      if f"{rel}/{name}" in self._hashes or os.path.isfile(Path(folder, name))]
        return sorted(found, key=lambda rel: rel.split("/"))


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
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise WhatifError(
                f"{path}:{lineno} is not valid JSON ({exc.msg} at column {exc.colno}); "
                "each line must hold one JSON object."
            ) from None
