"""Where audit results are kept: one JSON file per dataset under ``$WHATIF_HOME/audit/``, keyed by
the sha256 of the dataset's ``items.jsonl`` (the audit reads only the items: questions, options,
answers, pairs, ids, image file names and metadata; the file structure probe also the images
the card's hashes cover) and the audit's version (2: the metadata probes and Holm-corrected
flags; 3 was written by two branches of issue 41 apart, one with the joint guess and other
items probes and ``per_item.joint``, the other with the fields, export and file structure
probes and names decoded with public facts; 4: both, so that neither kind of version-3 file is
read for the other). ``whatif audit`` writes it, sealed with the sha256 of its content;
reports, which only read, show its blind accuracy as a reference row when it is there.

A cached audit is read through its schema (``AuditCache``: the parts reports and ``whatif
items`` read are typed): one that does not parse as JSON is computed again; one whose parts
are of the wrong type, or that was changed after it was written, is refused with a sentence
naming the file, line and field (it is ours, so someone edited it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, TypedDict

from whatifbench.core.fsutil import dumps, write_cache
from whatifbench.core.home import whatif_home
from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import read_text
from whatifbench.core.records.metrics import Interval, Probability
from whatifbench.core.records.read import refuse
from whatifbench.core.records.schema import Range, SchemaError, parse
from whatifbench.core.records.spec import Count, Percent
from whatifbench.errors import WhatifError

AUDIT_VERSION = "5"
"""Changes whenever what the audit computes changes, so older cached results are not read."""


class Figures(TypedDict, total=False):
    """A blind baseline's figures over a set of items."""

    accuracy: Percent | None
    blind: Percent | None
    chance: Percent | None
    n: Count
    interval: Interval | None
    hits: Count
    p: Probability | None
    p_holm: Probability | None
    flagged: bool
    null: dict[str, Count]


class Slice(Figures, total=False):
    """The blind baseline on one slice (``key = value``)."""

    key: str
    value: str


class PerItem(TypedDict, total=False):
    """Each audited item's out-of-fold blind outcome."""

    ids: list[str]
    blind: list[bool | Annotated[int, Range(0, 1)]]
    chance: list[Annotated[float, Range(0, 1)]]
    joint: list[Annotated[int, Range(-1, 1)]]
    """The pair-aware guess right (1) or wrong (0) on the item; −1: not in a pair."""


class AuditCache(TypedDict, total=False):
    """A cached audit: the parts other commands read are typed; the rest is the audit's."""

    blind: Figures
    slices: list[Slice]
    per_item: PerItem
    dataset: dict[str, Any]
    sha256: str


def audit_path(items_sha256: str) -> Path:
    """The cache file of the audit of a dataset whose ``items.jsonl`` has this sha256."""
    return whatif_home() / "audit" / f"{items_sha256}.v{AUDIT_VERSION}.json"


def _digest(result: dict[str, Any]) -> str:
    import hashlib

    text = json.dumps({k: v for k, v in result.items() if k != "sha256"}, sort_keys=True,
                      ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def load_audit(items_sha256: str) -> dict[str, Any] | None:
    """The cached audit (the object ``whatif audit --json`` prints), or ``None`` when the dataset
    has not been audited by this version (or the file does not read as JSON)."""
    path = audit_path(items_sha256)
    try:
        text = read_text(path)
        data = loads(text)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("blind"), dict):
        return None
    fix = (f"It is whatif audit's cache; remove it ({path}) and run 'whatif audit' on the "
           "dataset again.")
    try:
        parse(AuditCache, data)
    except SchemaError as exc:
        raise refuse(path, exc, text, fix=fix) from None
    if "sha256" in data and data["sha256"] != _digest(data):
        raise WhatifError(f"{path} was changed after 'whatif audit' wrote it (its content does "
                          f"not have the sha256 it records), so its blind row cannot be "
                          f"trusted. {fix}")
    return {k: v for k, v in data.items() if k != "sha256"}


def save_audit(items_sha256: str, result: dict[str, Any]) -> bool:
    """Cache an audit result (atomically), sealed with its sha256; False when the home could not
    keep it (read-only, full, blocked: best-effort, ``core.fsutil.write_cache``)."""
    sealed = {**result, "sha256": _digest(result)}
    return write_cache(audit_path(items_sha256), dumps(sealed).encode("utf-8"))
