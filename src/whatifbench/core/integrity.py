"""Check a dataset's files against the hashes its card recorded when it was written.

``card.json`` holds ``items_sha256`` (of ``items.jsonl``), ``images`` (``path → sha256`` of
every file under ``images/``) and ``images_sha256`` (the sha256 of that mapping as JSON). A run
records these hashes, so they must be true: a card edited by hand, or items and images changed
after the card was written, are named here. Image hashes computed while the images were being
checked (one read per file) are passed in and not computed again.
"""

from __future__ import annotations

import os
from collections.abc import Container, Iterable, Mapping
from pathlib import Path

from whatifbench.core.card import Card
from whatifbench.core.fsutil import dumps, sha256_bytes, sha256_file

IMAGES = "images"


def integrity_problems(root: Path, card: Card, items_sha256: str, referenced: Iterable[str],
                       known: Mapping[str, str]) -> list[str]:
    """What no longer matches ``card.hashes`` (empty when everything does).

    ``referenced``: image paths the items use; ``known``: sha256 already computed by path.
    """
    hashes = card.hashes
    problems: list[str] = []
    recorded = hashes.get("items_sha256")
    if recorded is not None and recorded != items_sha256:
        problems.append(f"items.jsonl changed after card.json was written (its sha256 is "
                        f"{items_sha256[:12]}…, the card says {str(recorded)[:12]}…)")
    listed = hashes.get("images")
    aggregate = hashes.get("images_sha256")
    if isinstance(listed, dict):
        if aggregate is not None and aggregate != sha256_bytes(dumps(listed).encode("utf-8")):
            problems.append("card.json's images_sha256 does not match its own list of image "
                            "hashes (the card was edited)")
        problems += _image_changes(root, listed, referenced, known)
    elif aggregate is not None:
        found = {rel: known.get(rel) or sha256_file(root / rel) for rel in image_files(root)}
        if aggregate != sha256_bytes(dumps(found).encode("utf-8")):
            problems.append("the files under images/ do not match card.json's images_sha256 "
                            "(the card lists no per-file hashes to say which changed)")
    return problems


def _image_changes(root: Path, listed: Mapping[str, object], referenced: Iterable[str],
                   known: Mapping[str, str]) -> list[str]:
    changed, missing = [], []
    for rel, digest in listed.items():
        actual = known.get(rel)
        if actual is None:
            path = root / rel
            if not path.is_file():
                missing.append(rel)
                continue
            actual = sha256_file(path)
        if actual != digest:
            changed.append(rel)
    unlisted = sorted({rel for rel in referenced if rel not in listed})
    out = [f"{rel} changed after card.json was written" for rel in changed]
    out += [f"{rel} is listed in card.json but missing" for rel in missing]
    out += [f"{rel} is used by the items but not listed in card.json (added later)"
            for rel in unlisted]
    return out


def image_files(root: Path, known: Container[str] = ()) -> list[str]:
    """Dataset-relative paths of the files under ``images/``, in path order (the order
    ``DatasetWriter`` hashes them in); names in ``known`` are files without asking the disk."""
    found = []
    for folder, _, files in os.walk(root / IMAGES):
        rel = Path(folder).relative_to(root).as_posix()
        found += [f"{rel}/{name}" for name in files
                  if f"{rel}/{name}" in known or os.path.isfile(Path(folder, name))]
    return sorted(found, key=lambda rel: rel.split("/"))
