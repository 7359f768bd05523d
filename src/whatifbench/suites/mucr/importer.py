"""``whatif import mucr``: release records + images → a MuCR dataset of four items per pair.

The release names its images after their pair and part, so a C2E/E2C candidate's file name
would give its answer away to any harness that shows paths: the images are stored under opaque
names (``scenes.opaque``: an HMAC of the release name under the naming secret, ``core.namekey``;
the extension kept), and the release's names of the stored images are kept in the private file
(``core.private``, ``images`` section), which no export carries. The release's record ids
stay the items' ids (``<id>-c2e`` …), so results map back to it.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter, check_image, problems_message
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.jsonfile import iter_objects
from whatifbench.core.namekey import name_key
from whatifbench.core.params import SECRET, Param, card_params, declared
from whatifbench.core.readfile import read_bytes
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.scenes.opaque import Namer, Telling
from whatifbench.suites.mucr.items import make_items
from whatifbench.suites.mucr.prompts import CHOICE_METRICS, LETTERS
from whatifbench.suites.mucr.reasons import DEFAULT_READING, READINGS
from whatifbench.suites.mucr.records import (
    CATEGORIES,
    STYLES,
    Record,
    group_problems,
    parse_record,
    raw_id,
)

VERSION = "3"
"""Version of the importer (recorded on the card; 2: opaque image names; 3: keyed by the
naming secret, the release names in the private file)."""
IMPORTER = "mucr-import"
"""The importer's name on the card (and the key of its image names)."""
FIX = ("Fix these records (or the images folder) and run the import again; nothing was written.")


def read_release(jsonl: Path, images: Path, reading: str = DEFAULT_READING,
                 namer: Namer | None = None) -> tuple[list[Record], dict[str, Path]]:
    """Validated records and the source file of each image name; one ``WhatifError`` listing
    every problem of the file (ordered by line) otherwise. ``reading``: how ``causal_reason``
    is read (``reasons.READINGS``); ``namer``: the stored names (``importer_namer``)."""
    if reading not in READINGS:
        raise WhatifError(f"Unknown causal_reason reading {reading!r}; use one of "
                          f"{', '.join(READINGS)}.")
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
        record, errs = parse_record(obj, reading)
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
    sources = _images(records, images, problems, namer or importer_namer(None, 0))
    if not records and not problems:
        raise WhatifError(f"{jsonl} holds no records; pass the release's JSONL file.")
    if problems:
        listed = [f"{jsonl}:{line}: {p}" for line, p in sorted(problems, key=lambda x: x[0])]
        raise WhatifError(problems_message(f"The MuCR file {jsonl}", listed, FIX))
    return records, sources


def _images(records: list[Record], images: Path,
            problems: list[tuple[int, str]], namer: Namer) -> dict[str, Path]:
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
            target = dataset_name(name, namer)
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


def importer_namer(secret_file: str | Path | None, seed: int) -> Namer:
    """The opaque names of an import (``core.namekey``: ``secret_file``, else the home
    secret)."""
    return Namer(name_key(secret_file), (IMPORTER, seed))


def dataset_name(name: str, namer: Namer) -> str:
    """Where a release image is stored in the dataset's ``images/``: an opaque name keyed by
    the release name (under the naming secret), with the release name's extension (lower case;
    none when it is not a plain one like ``.png``)."""
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    return namer.file("image", name,
                      suffix=suffix if re.fullmatch(r"\.[a-z0-9]{1,5}", suffix) else "")


def unknown_values(records: list[Record]) -> dict[str, Counter[str]]:
    """Labels and styles outside the paper's sets, with how many records carry each."""
    return {"label": Counter(r.category for r in records if r.category not in CATEGORIES),
            "style": Counter(r.style for r in records if r.style not in STYLES)}


def unknown_warning(jsonl: Path, records: list[Record]) -> str | None:
    """One sentence about the labels/styles kept as given, or ``None`` when there are none."""
    found = unknown_values(records)
    parts = [f"{key} {', '.join(f'{v!r} ({n})' for v, n in sorted(values.items()))} (the "
             f"paper's: {', '.join(known)})"
             for (key, values), known in zip(found.items(), (CATEGORIES, STYLES), strict=True)
             if values]
    if not parts:
        return None
    return (f"whatif: warning: {jsonl} has records whose {' and '.join(parts)}; they are kept "
            "as given and reported as categories of their own.")


Reading = Literal["annotators", "parts"]
"""The readings of ``causal_reason`` (``reasons.READINGS``)."""


@declared
def import_mucr(
    jsonl: Annotated[str | Path, Param(
        "the release's records (JSONL, or JSON records one after another, or a JSON array)",
        metavar="FILE")],
    images: Annotated[str | Path, Param(
        "folder of the image files named by image_0/image_1", metavar="DIR", card=False)],
    out: str | Path,
    seed: Annotated[int, Param(
        "seed of the answer positions and of the stored image names")] = 0,
    overwrite: bool = False,
    causal_reason: Annotated[Reading, Param(
        "how the three causal_reason entries are read: 'annotators' (default; three "
        "volunteers' explanations, each split into cause image / effect image / causal link, "
        "as MuCR Eq. 6-8 compare each part with three annotations) or 'parts' (the three "
        "parts themselves)")] = "annotators",
    warn: Callable[[str], None] | None = None,
    secret_file: Annotated[str | Path | None, SECRET] = None) -> Card:
    """Validate the release file and images, then write the dataset (all or nothing).
    ``causal_reason``: the reading of the explanations (``annotators`` or ``parts``);
    ``warn`` receives the one warning about labels/styles outside the paper's sets
    (default: printed to stderr); ``secret_file``: the naming secret of the stored image names
    (``core.namekey``; the release names go to the private file)."""
    jsonl, images = Path(jsonl), Path(images)
    namer = importer_namer(secret_file, seed)
    records, sources = read_release(jsonl, images, causal_reason, namer)
    message = unknown_warning(jsonl, records)
    if message is not None:
        (warn or (lambda text: print(text, file=sys.stderr)))(message)
    with DatasetWriter(out, overwrite, inputs=(jsonl, images)) as writer:
        rel = {name: writer.add_image(dataset_name(name, namer), read_bytes(path))
               for name, path in sources.items()}
        items = make_items(records, rel, seed, jsonl.name)
        telling = Telling(namer.key)
        for name, path in rel.items():
            telling.add("images", path, name)
        writer.add_items(items)
        writer.private = telling.private()
        card = writer.finish(
            name="mucr", suite="mucr", version=VERSION,
            generator={"name": IMPORTER, "params": {
                **card_params(import_mucr, locals()), "jsonl_sha256": sha256_file(jsonl)}},
            seed=seed,
            counts=_counts(records),
            extra={"answer_positions": {
                m: dict(sorted(Counter(i.provenance["position"] for i in items
                                       if i.group == m).items()))
                for m in CHOICE_METRICS}, "letters": list(LETTERS)},
        )
    return card


def _counts(records: list[Record]) -> dict[str, Any]:
    """Groups, and pairs per category and style: the paper's values first (zeros included),
    then any other value found, as its own category."""
    unknown = {key: dict(sorted(found.items()))
               for key, found in unknown_values(records).items()}
    by_category = Counter(r.category for r in records)
    by_style = Counter(r.style for r in records)
    return {
        "groups": len({frozenset((r.id, *r.links)) for r in records}),
        "pairs_by_category": {c: by_category[c] for c in [*CATEGORIES, *unknown["label"]]},
        "pairs_by_style": {s: by_style[s] for s in [*STYLES, *unknown["style"]]},
        "unknown_labels": unknown["label"],
        "unknown_styles": unknown["style"],
    }


@register("importer", "mucr")
class MucrImporter:
    """MuCR release records (JSONL) + images → four items per pair (C2E, E2C, Cue, Exp)."""

    version = VERSION

    entry = staticmethod(import_mucr)
    """``--jsonl FILE --images DIR [--seed S] [--secret-file FILE] [--causal-reason R]`` (the
    CLI adds --out/--overwrite)."""
