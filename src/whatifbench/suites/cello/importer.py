"""``whatif import cello``: the release's ``cello_data.jsonl`` + Visual Genome images → dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import DatasetWriter, problems_message
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.item import Item
from whatifbench.core.jsonfile import iter_objects
from whatifbench.core.params import Param, card_params, declared
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.suites.cello.counts import cello_counts
from whatifbench.suites.cello.images import check_folder, copy_images
from whatifbench.suites.cello.records import infer_kinds, item_from_record, record_problems

VERSION = "1"


def read_release(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` of every record (JSON Lines, a JSON array, or one record, as in
    the release README); one ``WhatifError`` lists all bad records with their lines."""
    records: list[tuple[int, dict[str, Any]]] = []
    problems: list[str] = []
    for lineno, rec, error in iter_objects(path, "--jsonl with the release's cello_data.jsonl"):
        if error is not None:
            problems.append(f"{path}:{lineno}: {error}")
            continue
        found = record_problems(rec)
        problems += [f"{path}:{lineno}: {p}" for p in found]
        if not found:
            records.append((lineno, rec))
    if not records and not problems:
        problems.append(f"{path} holds no records")
    if problems:
        raise WhatifError(problems_message(
            f"The CELLO file {path}", problems,
            "Each record must be a release record (img_id, question, graph_type, task_type, "
            "graph, objs, options, answer_index, data_id), one per line, in a JSON array, or a "
            "single record; fix these records and run again."))
    return records


@declared
def import_cello(
    jsonl: Annotated[str | Path, Param(
        "the release's cello_data.jsonl (JSON Lines, a JSON array, or one record as in the "
        "release README)", metavar="FILE")],
    images: Annotated[str | Path, Param(
        "Visual Genome images <img_id>.jpg (or VG_100K/, VG_100K_2/)", metavar="DIR",
        card=False)],
    out: str | Path, overwrite: bool = False) -> Card:
    """Import the release into a dataset folder (images copied as ``images/<img_id>.jpg``)."""
    jsonl, images = Path(jsonl), Path(images)
    records = read_release(jsonl)
    check_folder(images)
    items: list[Item] = []
    seen: set[str] = set()
    renamed = 0
    with DatasetWriter(out, overwrite, inputs=(jsonl, images)) as writer:
        paths = copy_images(writer, images, [rec["img_id"] for _, rec in records])
        for lineno, rec in records:
            item_id = f"cello-{rec['data_id']}"
            if item_id in seen:
                item_id, renamed = f"{item_id}-L{lineno}", renamed + 1
            seen.add(item_id)
            items.append(item_from_record(
                rec, item_id, paths[rec["img_id"]], infer_kinds(rec),
                {"source": jsonl.name, "line": lineno}))
        writer.add_items(items)
        counts = {**cello_counts(items), "images": len(paths), "repeated_data_ids": renamed}
        return writer.finish(
            name="cello", suite="cello", version=VERSION,
            generator={"name": "cello-import", "params": {
                **card_params(import_cello, locals()), "jsonl_sha256": sha256_file(jsonl)}},
            seed=None, counts=counts)


@register("importer", "cello")
class CelloImporter:
    """CELLO release: cello_data.jsonl + Visual Genome images."""

    version = VERSION

    entry = staticmethod(import_cello)
    """``--jsonl FILE --images DIR``."""
