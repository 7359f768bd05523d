"""Hugging Face ``datasets`` folders: export a dataset as Parquet shards with ``Image`` features
and a dataset card, and import such a folder (or one Parquet file) back, byte for byte.

Layout written by ``export_hf`` (what ``push_to_hub`` uploads, and what ``load_dataset(DIR)``
reads offline)::

    DIR/README.md                          dataset card: YAML metadata + description
    DIR/data/test-00000-of-0000N.parquet   one row per item

Columns: ``id``; ``image`` (one ``Image``, when every item has exactly one) or ``images`` (a
list of ``Image``); ``image_paths`` (each image's path in the whatifbench folder, so that names
survive ``push_to_hub``, which keeps only base names); ``question``, ``kind``, ``choices``,
``target``, ``pair_id``, ``role``, ``group``; ``meta`` and ``provenance`` as JSON strings (the
items' public view, ``core.public``, unless ``with_answers``); ``prompt`` (the text whatifbench
poses, for other tools). Image bytes are stored unchanged; the dataset's private folder
(``core.private``) is never read.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import IMAGES, Dataset, DatasetWriter, load_dataset, problems_message
from whatifbench.core.fsutil import dumps, sha256_bytes, write_text_atomic
from whatifbench.core.integrity import image_files
from whatifbench.core.item import Item, item_from_json
from whatifbench.core.jsonfile import loads
from whatifbench.core.outputs import check_output, staged_dir
from whatifbench.core.public import shown
from whatifbench.core.registry import lookup
from whatifbench.core.suite import suite_for
from whatifbench.errors import WhatifError
from whatifbench.integrations.common import prompts, require
from whatifbench.integrations.hf_card import CARD_KEY, card_markdown, read_card_yaml
from whatifbench.integrations.views import hf_columns

SPLIT = "test"
"""The one split: these are evaluation sets."""
SHARD_BYTES = 500 * 2**20
"""Target size of a Parquet shard (the hub's own default)."""
EXTRA = "extra/images"
"""Shards of the images no item shows (configuration ``extra_images``)."""


@dataclass(frozen=True)
class HfExport:
    """What ``export_hf`` wrote."""

    folder: Path
    """The exported folder."""
    rows: int
    """Items written (one row each)."""
    shards: tuple[str, ...]
    """Parquet files, relative to ``folder``."""
    image_column: str
    """``image`` (one per item) or ``images`` (a list per item)."""


def features(single: bool) -> Any:
    """The ``datasets.Features`` of an export (``single``: one ``image`` per row)."""
    ds = require("datasets")
    text = ds.Value("string")
    columns: dict[str, Any] = {"id": text}
    columns["image" if single else "images"] = ds.Image() if single else ds.List(ds.Image())
    columns["image_paths"] = ds.List(text)
    columns.update({"question": text, "kind": text, "choices": ds.List(text), "target": text,
                    "pair_id": text, "role": text, "group": text, "meta": text,
                    "provenance": text, "prompt": text})
    return ds.Features(columns)


def _row(dataset: Dataset, item: Item, prompt: str, single: bool) -> dict[str, Any]:
    images = [{"bytes": dataset.image_path(rel).read_bytes(), "path": rel} for rel in item.images]
    row: dict[str, Any] = {"id": item.id}
    row["image" if single else "images"] = images[0] if single else images
    row.update(hf_columns(item, prompt))
    return row


def _shards(sizes: list[int], shard_bytes: int) -> list[range]:
    """Contiguous row ranges of about ``shard_bytes`` each (image bytes dominate)."""
    count = max(1, math.ceil(sum(sizes) / shard_bytes))
    per = max(1, math.ceil(len(sizes) / count))
    return [range(k, min(k + per, len(sizes))) for k in range(0, len(sizes), per)]


def extra_images(dataset: Dataset) -> list[str]:
    """Files under ``images/`` that no item shows (CFMM's intervened scenes ...), in order."""
    shown = {rel for item in dataset.items for rel in item.images}
    return [rel for rel in image_files(dataset.root) if rel not in shown]


def _write(ds: Any, folder: Path, prefix: str, feats: Any, row: Callable[[int], dict[str, Any]],
           sizes: list[int], shard_bytes: int) -> tuple[str, ...]:
    """Write rows ``row(0)``, ``row(1)`` … as ``prefix-0000k-of-0000n.parquet`` shards (one
    shard's rows in memory at a time); return their paths relative to ``folder``."""
    ranges = _shards(sizes, shard_bytes)
    names = tuple(f"{prefix}-{k:05d}-of-{len(ranges):05d}.parquet" for k in range(len(ranges)))
    for name, chosen in zip(names, ranges, strict=True):
        built = [row(i) for i in chosen]
        columns = {key: [r[key] for r in built] for key in feats}
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        with _QuietProgress(ds):
            ds.Dataset.from_dict(columns, features=feats).to_parquet(str(folder / name))
    return names


def exported_items(data: Dataset, with_answers: bool = False) -> list[Item]:
    """The items as an export writes them: their public view (``core.public``: meta without
    the suite's private keys, provenance without answers, seeds and worlds), or with
    ``with_answers`` the whole record."""
    private = suite_for(data.suite).private_meta
    return [shown(item, with_answers, private) for item in data.items]


def export_hf(dataset: str | Path | Dataset, out: str | Path, overwrite: bool = False,
              license: str = "unknown", shard_bytes: int = SHARD_BYTES,
              with_answers: bool = False) -> HfExport:
    """Write ``dataset`` as a Hugging Face dataset folder at ``out`` (complete or not at all).

    Rows hold the items' public view (``exported_items``). With ``with_answers`` they hold the
    whole record, and images no item shows (CFMM's intervened scenes: the counterfactual's
    answer drawn) go to a second configuration, ``extra_images`` (``path``, ``image``), so
    that the folder holds everything the dataset holds and imports back byte for byte."""
    ds = require("datasets")
    if not isinstance(dataset, Dataset):
        check_output(out, (dataset,), overwrite, kind="export")  # before reading the dataset
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    single = all(len(item.images) == 1 for item in data.items)
    texts = prompts(data)
    items = exported_items(data, with_answers)
    extras = extra_images(data) if with_answers else []
    with staged_dir(Path(out), overwrite, inputs=(data.root,), kind="export") as stage:
        sizes = [sum(data.image_path(rel).stat().st_size for rel in item.images)
                 + len(dumps(item.to_json())) for item in items]
        names = _write(ds, stage, f"data/{SPLIT}", features(single),
                       lambda i: _row(data, items[i], texts[items[i].id], single),
                       sizes, shard_bytes)
        if extras:
            _write(ds, stage, EXTRA, ds.Features({"path": ds.Value("string"),
                                                  "image": ds.Image()}),
                   lambda i: {"path": extras[i], "image": {
                       "bytes": data.image_path(extras[i]).read_bytes(), "path": extras[i]}},
                   [data.image_path(rel).stat().st_size for rel in extras], shard_bytes)
        write_text_atomic(stage / "README.md", card_markdown(
            data, single, license, f"data/{SPLIT}-*", f"{EXTRA}-*" if extras else None,
            with_answers))
    return HfExport(Path(out), len(data.items), names, "image" if single else "images")


class _QuietProgress:
    """Silence the progress bars of ``datasets`` inside a block."""

    def __init__(self, ds: Any) -> None:
        self.utils = ds.utils.logging
        self.was = False

    def __enter__(self) -> None:
        self.was = self.utils.is_progress_bar_enabled()
        self.utils.disable_progress_bar()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            self.utils.enable_progress_bar()


# -- import ----------------------------------------------------------------------------------
def find_card(path: Path) -> tuple[Path, dict[str, Any]] | None:
    """The dataset card (README.md with our metadata) of a folder, or of the folder holding a
    Parquet file (``DIR/data/x.parquet`` → ``DIR/README.md``); ``None`` when there is none."""
    folders = [path] if path.is_dir() else [path.parent, path.parent.parent]
    for folder in folders:
        readme = folder / "README.md"
        if readme.is_file():
            meta = read_card_yaml(readme)
            if CARD_KEY in meta:
                return readme, meta
    return None


def _parquet_files(path: Path) -> list[str]:
    """The item shards of a folder (``data/test-*``, else any Parquet file outside ``extra/``),
    or the one file given."""
    if path.is_file():
        return [str(path)]
    files = sorted(str(p) for p in (path / "data").glob(f"{SPLIT}-*.parquet"))
    files = files or sorted(str(p) for p in path.rglob("*.parquet")
                            if p.relative_to(path).parts[0] != EXTRA.split("/")[0])
    if not files:
        raise WhatifError(
            f"{path} holds no Parquet files; pass a folder written by 'whatif export --format "
            "hf' (or downloaded from the hub), or one .parquet file."
        )
    return files


def _card(path: Path, suite: str | None) -> Card:
    found = find_card(path)
    if found is None:
        if suite is None:
            raise WhatifError(
                f"No whatifbench dataset card (README.md with a '{CARD_KEY}' section) was found "
                f"at {path}; pass the folder that holds README.md, or name the suite with "
                "--suite (one of 'whatif suites')."
            )
        return Card(name=path.stem, suite=suite, version="", generator={"name": "import:hf"},
                    seed=None)
    readme, meta = found
    try:
        card = Card.from_json(meta[CARD_KEY])
    except (KeyError, TypeError, ValueError) as exc:
        raise WhatifError(f"{readme}: the '{CARD_KEY}' section is not a dataset card "
                          f"({exc}); re-export the dataset.") from None
    if suite is not None and suite != card.suite:
        raise WhatifError(f"{readme} says the suite is {card.suite!r}, but --suite is "
                          f"{suite!r}; leave --suite out or pass {card.suite!r}.")
    return card


def _rows(files: list[str], where: Path) -> Iterator[dict[str, Any]]:
    """The rows of Parquet files, image bytes undecoded."""
    ds = require("datasets")
    with tempfile.TemporaryDirectory(prefix="whatif-hf-") as cache, _QuietProgress(ds):
        try:
            table = ds.Dataset.from_parquet(files, cache_dir=cache)
        except (OSError, ValueError, TypeError) as exc:
            raise WhatifError(f"{where} cannot be read as Parquet ({exc}).") from None
        for column in ("image", "images"):
            if column in table.features:
                kind = ds.Image(decode=False)
                table = table.cast_column(column, kind if column == "image" else ds.List(kind))
        yield from table


def _item(row: dict[str, Any], where: str, problems: list[str]) -> tuple[Item, list[bytes]] | None:
    """An item and its images' bytes from one row (problems appended, ``None`` when bad)."""
    missing = [c for c in ("id", "question", "kind", "target") if c not in row]
    if missing:
        problems.append(f"{where}: the column(s) {', '.join(missing)} are missing")
        return None
    images = row.get("images")
    if images is None:
        images = [row["image"]] if row.get("image") is not None else []
    paths = row.get("image_paths") or [f"{IMAGES}/{Path(im.get('path') or '').name}"
                                       for im in images]
    obj: dict[str, Any] = {k: row.get(k) for k in ("id", "question", "kind", "target",
                                                   "pair_id", "role", "group")}
    obj["choices"] = list(row.get("choices") or [])
    obj["images"] = list(paths)
    for column in ("meta", "provenance"):
        try:
            obj[column] = loads(row.get(column) or "{}")
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: column '{column}' is not JSON ({exc.msg})")
            return None
    item, errs = item_from_json(obj)
    problems += [f"{where}: {e}" for e in errs]
    if item is None:
        return None
    blobs = [im.get("bytes") if isinstance(im, dict) else None for im in images]
    if len(blobs) != len(item.images) or any(b is None for b in blobs):
        problems.append(f"{where}: {len(item.images)} image path(s) but {len(blobs)} embedded "
                        "image(s); every image must be stored in the file")
        return None
    return item, [b for b in blobs if b is not None]


def import_hf(path: str | Path, out: str | Path, overwrite: bool = False,
              suite: str | None = None) -> Card:
    """Read an exported folder (or Parquet file) into a dataset folder at ``out``.

    The card's name, suite, version, generator, seed, counts and extra come from README.md, so
    a round trip gives the same ``items.jsonl``, images and ``card.json``.
    """
    path = Path(path)
    if not path.exists():
        raise WhatifError(f"{path} does not exist; pass the exported folder or a .parquet file.")
    files = _parquet_files(path)
    card = _card(path, suite)
    lookup("suite", card.suite)  # an unknown suite is refused before anything is written
    problems: list[str] = []
    written: dict[str, str] = {}  # path → sha256 of its bytes
    with DatasetWriter(out, overwrite, inputs=(path,)) as writer:

        def add(rel: str, blob: bytes, where: str) -> None:
            if not rel.startswith(f"{IMAGES}/"):
                problems.append(f"{where}: image path {rel!r} is not under {IMAGES}/")
            elif rel not in written:
                written[rel] = sha256_bytes(blob)
                writer.add_image(rel.removeprefix(f"{IMAGES}/"), blob)
            elif written[rel] != sha256_bytes(blob):
                problems.append(f"{where}: {rel} holds other bytes than in an earlier row")

        for n, row in enumerate(_rows(files, path), start=1):
            found = _item(row, f"row {n} (id {row.get('id')!r})", problems)
            if found is None:
                continue
            item, blobs = found
            for rel, blob in zip(item.images, blobs, strict=True):
                add(rel, blob, f"row {n}")
            try:
                writer.add_item(item)
            except ValueError as exc:
                problems.append(f"row {n}: {exc}")
        extra = sorted(str(p) for p in path.glob(f"{EXTRA}-*.parquet")) if path.is_dir() else []
        for n, row in enumerate(_rows(extra, path) if extra else iter(()), start=1):
            image = row.get("image") or {}
            if not isinstance(row.get("path"), str) or not isinstance(image.get("bytes"), bytes):
                problems.append(f"{EXTRA} row {n}: a path and the image's bytes are needed")
                continue
            add(row["path"], image["bytes"], f"{EXTRA} row {n}")
        if problems:
            raise WhatifError(problems_message(f"The Hugging Face dataset {path}", problems,
                                               "Re-export the dataset and import it again."))
        # The card's own counts (with extra keys such as what an importer skipped) hold only
        # for the items it describes; a part (one shard) or an edited file gets counts anew.
        whole = writer.items_sha256() == card.hashes.get("items_sha256")
        written_card = writer.finish(name=card.name, suite=card.suite, version=card.version,
                                     generator=card.generator, seed=card.seed,
                                     counts=card.counts if whole else None,
                                     extra=card.extra or None)
        load_dataset(writer.stage, check_images=True)  # pairs, images: refuse before renaming
        return written_card
