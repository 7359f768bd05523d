"""``DatasetWriter``: a dataset written into a staging folder that replaces ``out`` only when
complete, with files that carry nothing but their content.

**Order and times.** A file system remembers how a folder was written: modification times,
inode numbers and (on tmpfs) the listing order follow the order files were created in. Written
as a generator draws them (a pair's cause, then its effect), they would pair pictures up and
tell which is which. The writer therefore holds image bytes until ``finish`` (in memory, beyond
``SPILL_BYTES`` in a spill file of the staging folder), writes them in the order of their names,
and gives every file of the dataset one modification time. Generators with opaque names
(``core.namekey``) add items in an order of their own too (sorted by id).

**Orientation.** Every image is ``core.images.normalised`` on the way in (EXIF orientation
applied, the tag dropped); the originals' orientation, size and hash are recorded on the card
(``extra.normalised_images``).

**Private file.** What only the dataset's makers need (the telling names behind opaque ones)
goes to ``private`` and is written to ``private/names.json`` (``core.private``).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, BinaryIO

from whatifbench.core.card import Card
from whatifbench.core.fsutil import dumps, sha256_bytes, sha256_file
from whatifbench.core.images import normalised
from whatifbench.core.integrity import image_files
from whatifbench.core.item import Item
from whatifbench.core.layout import CARD, IMAGES, ITEMS
from whatifbench.core.outputs import PathLike, staged_dir
from whatifbench.core.private import write_private
from whatifbench.errors import WhatifError

SPILL_BYTES = 256 * 2**20
"""Image bytes held in memory before further images go to the spill file."""
SPILL = ".pending-images"
"""The spill file in the staging folder (removed before the folder is published)."""


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

    Use as a context manager; add images with ``add_image`` (written in ``finish``, in name
    order) or write files under ``self.images`` yourself (hashed in ``finish``), add items in
    order, then call ``finish``. If the block raises, nothing appears at ``out``. Items are
    serialized when added (so that a generator's workers overlap with it). ``inputs`` are the
    files and folders the dataset is made from: ``out`` must not touch them
    (``core.outputs.check_output``, checked on entry). ``private`` holds what goes to the
    private file (``core.private``), by section.
    """

    def __init__(self, out: str | Path, overwrite: bool = False,
                 inputs: Iterable[PathLike] = ()) -> None:
        self.out = Path(out)
        self.overwrite = overwrite
        self.inputs = tuple(inputs)
        self._stack = ExitStack()
        self._items: list[Item] = []
        self._lines: list[str] = []
        self._ids: set[str] = set()
        self._hashes: dict[str, str] = {}
        self._held: dict[str, bytes | tuple[int, int]] = {}
        self._held_bytes = 0
        self._spill: BinaryIO | None = None
        self._normalised: dict[str, dict[str, object]] = {}
        self.private: dict[str, Any] = {}
        self.stage = Path()
        self.images = Path()
        self.card: Card | None = None

    def __enter__(self) -> DatasetWriter:
        staged = staged_dir(self.out, self.overwrite, self.inputs)
        self.stage = self._stack.enter_context(staged)
        self.images = self.stage / IMAGES
        self.images.mkdir()
        return self

    def __exit__(self, *exc: object) -> bool | None:
        self._close_spill()
        if exc[0] is None and self.card is None:
            self._stack.__exit__(RuntimeError, RuntimeError("finish() was not called"), None)
            raise RuntimeError("DatasetWriter.finish() was not called before the block ended.")
        return self._stack.__exit__(*exc)  # type: ignore[arg-type]

    def add_image(self, name: str, data: bytes) -> str:
        """Keep image bytes for ``images/<name>`` (normalised: ``core.images.normalised``);
        return the item-relative path. Adding a name twice keeps the last bytes."""
        rel = f"{IMAGES}/{name}"
        try:
            data, original = normalised(data)
        except (OSError, ValueError, SyntaxError) as exc:
            raise WhatifError(f"The image {name} carries an EXIF orientation but cannot be "
                              f"turned and written again ({exc}); convert it to PNG or JPEG "
                              "and import it again.") from None
        if original is not None:
            self._normalised[rel] = original
        self._hashes[rel] = sha256_bytes(data)
        old = self._held.get(name)
        if isinstance(old, bytes):
            self._held_bytes -= len(old)
        if self._held_bytes + len(data) <= SPILL_BYTES:
            self._held[name] = data
            self._held_bytes += len(data)
        else:
            spill = self._spill_file()
            self._held[name] = (spill.tell(), len(data))
            spill.write(data)
        return rel

    def copy_file(self, rel: str, data: bytes) -> str:
        """Keep ``data`` at the dataset-relative path ``rel`` of another dataset: an image under
        ``images/`` goes through ``add_image`` (written in name order), any other file is
        written now."""
        prefix = f"{IMAGES}/"
        if rel.startswith(prefix):
            return self.add_image(rel.removeprefix(prefix), data)
        path = self.stage / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return rel

    def has_image(self, name: str) -> bool:
        """Whether ``images/<name>`` was added or written."""
        return name in self._held or (self.images / name).exists()

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

    def _items_bytes(self) -> bytes:
        return "".join(self._lines).encode("utf-8")

    def items_sha256(self) -> str:
        """The hash ``items.jsonl`` gets from the items added so far."""
        return sha256_bytes(self._items_bytes())

    def _spill_file(self) -> BinaryIO:
        if self._spill is None:
            self._spill = open(self.stage / SPILL, "w+b")  # closed on exit
        return self._spill

    def _close_spill(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None
            (self.stage / SPILL).unlink(missing_ok=True)

    def _write_images(self) -> None:
        """Every held image, in the order of the names."""
        made: set[Path] = set()
        for name in sorted(self._held):
            held = self._held[name]
            if isinstance(held, tuple):
                assert self._spill is not None
                self._spill.seek(held[0])
                data = self._spill.read(held[1])
            else:
                data = held
            path = self.images / name
            if path.parent not in made:
                path.parent.mkdir(parents=True, exist_ok=True)
                made.add(path.parent)
            path.write_bytes(data)
        self._held.clear()
        self._close_spill()

    def finish(self, *, name: str, suite: str, version: str, generator: dict[str, Any],
               seed: int | None, counts: dict[str, Any] | None = None,
               extra: dict[str, Any] | None = None) -> Card:
        """Write the images, ``items.jsonl``, ``card.json`` (with hashes) and the private file;
        the rename happens on exit."""
        self._write_images()
        data = self._items_bytes()
        (self.stage / ITEMS).write_bytes(data)
        image_hashes = {rel: self._hashes.get(rel) or sha256_file(self.stage / rel)
                        for rel in image_files(self.stage, self._hashes)}
        all_counts = count_items(self._items)
        all_counts.update(counts or {})
        extra = dict(extra or {})
        if self._normalised:
            extra["normalised_images"] = dict(sorted(self._normalised.items()))
        self.card = Card(
            name=name, suite=suite, version=version, generator=generator, seed=seed,
            counts=all_counts,
            hashes={
                "items_sha256": sha256_bytes(data),
                "images_sha256": sha256_bytes(dumps(image_hashes).encode("utf-8")),
                "images": image_hashes,
            },
            extra=extra,
        )
        (self.stage / CARD).write_text(
            json.dumps(self.card.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        if self.private:
            write_private(self.stage, self.private)
        _one_time(self.stage)
        return self.card


def _one_time(root: Path) -> None:
    """Give every file and folder under ``root`` one modification time (now)."""
    now = time.time_ns()
    for folder, dirs, files in os.walk(root):
        for entry in (*files, *dirs):
            os.utime(os.path.join(folder, entry), ns=(now, now), follow_symlinks=False)
    os.utime(root, ns=(now, now))
