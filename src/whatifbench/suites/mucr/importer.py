"""``whatif import mucr``: release records + images → a MuCR dataset of four items per pair."""

from __future__ import annotations

import argparse
import dataclasses
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter, check_image, problems_message
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.suites.mucr.items import make_items
from whatifbench.suites.mucr.prompts import CHOICE_METRICS, LETTERS
from whatifbench.suites.mucr.records import (
    CATEGORIES,
    STYLES,
    Record,
    group_problems,
    iter_objects,
    parse_record,
    raw_id,
)

VERSION = "1"
"""Version of the importer (recorded on the card)."""
FIX = ("Fix these records (or the images folder) and run the import again; nothing was written.")


def read_release(jsonl: Path, images: Path) -> tuple[list[Record], dict[str, Path]]:
    """Validated records and the source file of each image name; one ``WhatifError`` listing
    every problem of the file (ordered by line) otherwise."""
    if not images.is_dir():
        raise WhatifError(f"The images folder {images} does not exist; pass the folder that "
                          "holds the release's image files with --images.")
    problems: list[tuple[int, str]] = []
    records: list[Record] = []
    first_line: dict[str, int] = {}
    broken: set[str] = set()
    for line, obj, error in iter_objects(jsonl):
        if error is not None:
            problems.append((line, error))
            broken.add(raw_id(str(obj)) or "")
            continue
        record, errs = parse_record(obj)
        problems += [(line, e) for e in errs]
        if record is None:
            if isinstance(obj, dict) and isinstance(obj.get("id"), (str, int)):
                broken.add(str(obj["id"]).strip())
        elif record.id in first_line:
            first = first_line[record.id]
            problems.append((line, f"duplicate id {record.id!r} (first on line {first})"))
        else:
            first_line[record.id] = line
            records.append(dataclasses.replace(record, line=line))
    problems += group_problems(records, broken)
    sources = _images(records, images, problems)
    if not records and not problems:
        raise WhatifError(f"{jsonl} holds no records; pass the release's JSONL file.")
    if problems:
        listed = [f"{jsonl}:{line}: {p}" for line, p in sorted(problems, key=lambda x: x[0])]
        raise WhatifError(problems_message(f"The MuCR file {jsonl}", listed, FIX))
    return records, sources


def _images(records: list[Record], images: Path,
            problems: list[tuple[int, str]]) -> dict[str, Path]:
    """The source file of each image name; missing, unreadable or clashing images are added to
    ``problems``."""
    sources: dict[str, Path] = {}
    stored: dict[str, str] = {}
    for r in records:
        for key, name in (("image_0", r.cause_image), ("image_1", r.effect_image)):
            if name in sources:
                continue
            path = images / name
            why = check_image(path)
            target = dataset_name(name)
            if why:
                problems.append((r.line, f"{key} {name} ({path}) {why}"))
            elif target in stored and stored[target] != name:
                why = (f"{key} {name} and {stored[target]} would both be stored as {target}; "
                       "give the images distinct names")
                problems.append((r.line, why))
            else:
                stored[target] = name
                sources[name] = path
    return sources


def dataset_name(name: str) -> str:
    """Where a release image is stored in the dataset's ``images/`` (its relative path kept;
    absolute or upward paths reduced to the file name)."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts:
        return path.name
    return path.as_posix()


def import_mucr(jsonl: str | Path, images: str | Path, out: str | Path, seed: int = 0,
                overwrite: bool = False) -> Card:
    """Validate the release file and images, then write the dataset (all or nothing)."""
    jsonl, images = Path(jsonl), Path(images)
    records, sources = read_release(jsonl, images)
    with DatasetWriter(out, overwrite, inputs=(jsonl, images)) as writer:
        rel = {name: writer.add_image(dataset_name(name), path.read_bytes())
               for name, path in sources.items()}
        items = make_items(records, rel, seed, jsonl.name)
        writer.add_items(items)
        card = writer.finish(
            name="mucr", suite="mucr", version=VERSION,
            generator={"name": "mucr-import", "params": {
                "jsonl": jsonl.name, "jsonl_sha256": sha256_file(jsonl), "seed": seed}},
            seed=seed,
            counts=_counts(records),
            extra={"answer_positions": {
                m: dict(sorted(Counter(i.provenance["position"] for i in items
                                       if i.group == m).items()))
                for m in CHOICE_METRICS}, "letters": list(LETTERS)},
        )
    return card


def _counts(records: list[Record]) -> dict[str, Any]:
    by = Counter((r.category, r.style) for r in records)
    return {
        "groups": len({frozenset((r.id, *r.links)) for r in records}),
        "pairs_by_category": {c: sum(by[(c, s)] for s in STYLES) for c in CATEGORIES},
        "pairs_by_style": {s: sum(by[(c, s)] for c in CATEGORIES) for s in STYLES},
    }


@register("importer", "mucr")
class MucrImporter:
    """MuCR release records (JSONL) + images → four items per pair (C2E, E2C, Cue, Exp)."""

    version = VERSION

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """``--jsonl FILE --images DIR [--seed S]`` (the CLI adds --out/--overwrite)."""
        parser.add_argument("--jsonl", required=True, metavar="FILE",
                            help="the release's records (JSONL, or JSON records one after "
                                 "another, or a JSON array)")
        parser.add_argument("--images", required=True, metavar="DIR",
                            help="folder of the image files named by image_0/image_1")
        parser.add_argument("--seed", type=int, default=0,
                            help="seed of the answer positions (default 0)")

    @staticmethod
    def run(args: argparse.Namespace) -> None:
        """Run the import."""
        import_mucr(args.jsonl, args.images, args.out, seed=args.seed, overwrite=args.overwrite)
