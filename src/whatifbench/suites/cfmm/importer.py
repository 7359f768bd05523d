"""``whatif import cfmm``: your CFMM-style pairs (JSONL or CSV, one pair per line) + images →
a dataset folder. Every problem of the file is reported at once; nothing is written unless all
of it is valid."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from whatifbench.core.card import Card
from whatifbench.core.dataset import (
    DatasetWriter,
    lone_surrogate,
    problems_message,
    sort_images,
)
from whatifbench.core.fsutil import sha256_bytes
from whatifbench.core.item import Item
from whatifbench.core.jsonfile import jsonl_lines, loads
from whatifbench.core.outputs import check_output
from whatifbench.core.params import Param, card_params, declared
from whatifbench.core.readfile import read_bytes
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.suites.cfmm.pairs import pair_facts, pair_items
from whatifbench.suites.cfmm.schema import (
    FIELDS,
    OPTIONAL,
    REQUIRED,
    PairRecord,
    parse_record,
    relative_image,
)

IMPORTER_VERSION = "1"
LISTED_IMAGES = 5
FIX = (f"Each record needs the fields {', '.join(REQUIRED)} and may also have "
       f"{', '.join(OPTIONAL)} (as JSONL keys or CSV columns; docs/cfmm.md describes them). "
       "Fix these lines and run the command again; nothing was written.")


def read_records(path: Path, fmt: str) -> tuple[list[PairRecord], list[str], list[str]]:
    """Parse and validate every record of a JSONL or CSV file.

    Returns the valid records, the problems (each with ``file:line``) and the image paths that
    all records (valid or not) name, so that one run reports duplicates and missing images of
    invalid lines too.
    """
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        raise WhatifError(f"The file {path} does not exist; check the path.") from None
    except IsADirectoryError:
        raise WhatifError(f"{path} is a folder; pass the {fmt.upper()} file itself.") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WhatifError(f"{path} is not UTF-8 text ({exc}); save it as UTF-8.") from None
    rows = _jsonl_rows(text) if fmt == "jsonl" else _csv_rows(text)
    records: list[PairRecord] = []
    problems: list[str] = []
    images: dict[str, None] = {}
    first_line: dict[str, int] = {}
    for line, obj, row_problems in rows:
        where = f"{path}:{line}"
        problems += [f"{where}: {p}" for p in row_problems]
        if row_problems and obj is None:
            continue
        record, errs = parse_record(obj, line)
        problems += [f"{where}: {e}" for e in errs]
        if isinstance(obj, dict):
            rid = str(obj.get("id") or "").strip() or f"line{line}"
            if rid in first_line:
                problems.append(f"{where}: duplicate id {rid!r} (first on line "
                                f"{first_line[rid]})")
                continue
            first_line[rid] = line
            image = record.image if record else relative_image(obj.get("image"))
            if image:
                images[image] = None
        if record is not None:
            records.append(record)
    if not records and not problems:
        problems.append(f"{path} holds no pairs")
    return records, problems, list(images)


Row = tuple[int, object, list[str]]


def _jsonl_rows(text: str) -> list[Row]:
    rows: list[Row] = []
    for lineno, line in jsonl_lines(text):
        try:
            obj = loads(line)
            bad = lone_surrogate(line, obj)
            rows.append((lineno, None, [bad]) if bad else (lineno, obj, []))
        except json.JSONDecodeError as exc:
            rows.append((lineno, None, [(f"not valid JSON ({exc.msg} at column {exc.colno}); "
                                        "each line must hold one JSON object")]))
    return rows


def _csv_rows(text: str) -> list[Row]:
    reader = csv.reader(io.StringIO(text, newline=""))  # rows end at \r or \n only
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        return []
    except csv.Error as exc:
        return [(1, None, [f"the header is not valid CSV ({exc})"])]
    missing = [f for f in REQUIRED if f not in header]
    unknown = [h for h in header if h not in FIELDS]
    duplicated = sorted({h for h in header if header.count(h) > 1})
    problems = []
    if missing:
        problems.append(f"the header lacks the column(s) {', '.join(missing)}")
    if unknown:
        problems.append(f"the header has unknown column(s) {', '.join(unknown)}")
    if duplicated:
        problems.append(f"the header repeats the column(s) {', '.join(duplicated)}")
    if problems:
        return [(1, None, ["; ".join(problems)])]
    rows: list[Row] = []
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            rows.append((start, None, [f"not valid CSV ({exc})"]))
            break
        if any(c.strip() for c in cells):
            if len(cells) > len(header):
                rows.append((start, None, [(f"{len(cells)} cells but the header has "
                                           f"{len(header)} columns")]))
            else:
                rows.append((start, dict(zip(header, cells, strict=False)), []))
        start = reader.line_num + 1
    return rows


def _image_problems(names: Sequence[str], images: Path) -> list[str]:
    """Missing and unreadable images, as counts with the first few names."""
    missing, unreadable = sort_images((rel, images / rel) for rel in names)
    corrupt = [f"{rel} ({why.removeprefix('cannot be read as an image ')})"
               for rel, why in unreadable.items()]
    problems = []
    for found, what in ((missing, "missing under"), (corrupt, "unreadable in")):
        if found:
            shown = ", ".join(found[:LISTED_IMAGES]) + (", ..." if len(found) > LISTED_IMAGES
                                                        else "")
            problems.append(f"{len(found)} image(s) {what} {images}: {shown}")
    return problems


@declared
def import_cfmm(
    out: str | Path, *,
    jsonl: Annotated[str | Path | None, Param(
        "one pair per line (docs/cfmm.md)", metavar="FILE", card=False)] = None,
    csv_file: Annotated[str | Path | None, Param(
        "the same fields as CSV columns", metavar="FILE", flag="--csv", card=False)] = None,
    images: Annotated[str | Path, Param(
        "folder the records' 'image' paths are relative to", metavar="DIR", card=False)],
    overwrite: bool = False,
    name: Annotated[str, Param("dataset name for the card", card=False)] = "cfmm") -> Card:
    """Import a CFMM file (``jsonl`` or ``csv_file``, exactly one) with its images into the
    dataset ``out``."""
    if (jsonl is None) == (csv_file is None):
        raise WhatifError("Pass exactly one of --jsonl FILE or --csv FILE.")
    fmt, path = ("jsonl", Path(jsonl)) if jsonl is not None else ("csv", Path(str(csv_file)))
    images = Path(images)
    if not images.is_dir():
        raise WhatifError(f"The images folder {images} does not exist; pass --images DIR, the "
                          "folder the 'image' paths are relative to.")
    out = Path(out)
    check_output(out, [path, images], overwrite)  # before reading anything
    records, problems, names = read_records(path, fmt)
    problems += _image_problems(names, images)
    if problems:
        raise WhatifError(problems_message(str(path), problems, FIX))
    items: list[Item] = []
    with DatasetWriter(out, overwrite, inputs=[path, images]) as writer:
        copied: dict[str, str] = {}
        for record in records:
            rel = record.image
            if rel not in copied:
                copied[rel] = writer.add_image(rel, read_bytes(images / rel))
            items += pair_items(record, copied[rel], {"source": f"{path.name}:{record.line}"})
        writer.add_items(items)
        card = writer.finish(
            name=name, suite="cfmm", version=IMPORTER_VERSION,
            generator={"name": "import:cfmm", "params": {
                **card_params(import_cfmm, locals()), "format": fmt, "file": path.name,
                "file_sha256": sha256_bytes(read_bytes(path)), "images": len(copied)}},
            seed=None, extra=pair_facts(items),
        )
    return card


@register("importer", "cfmm")
class CfmmImporter:
    """CFMM pairs from your JSONL or CSV file (one basic/counterfactual pair per line)."""

    entry = staticmethod(import_cfmm)
    """``--jsonl FILE | --csv FILE``, ``--images DIR``, ``--name``."""
