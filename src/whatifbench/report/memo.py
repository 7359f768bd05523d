"""A disk memo for report computations that are pure functions of their inputs: the reference
rows of a dataset's tables (chance and blind pseudo-runs), and the paired comparisons and
multimodal gains of its runs' outcomes. ``whatif run`` computes them when it writes its folder;
a later ``whatif report`` or ``whatif view`` of the same runs reads them back instead of
computing them again.

Entries live under ``$WHATIF_HOME/cache/report/``, named by the sha256 of what they were made
from and of this package's source files (names, sizes, modification times: any code change
makes new entries), written atomically when the home can keep them (best-effort: a read-only
or full home only means computing again); a missing, unreadable or foreign entry is computed
again, never trusted. The folder keeps the ``MAX_ENTRIES`` newest entries.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict, TypeVar

from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import read_text
from whatifbench.core.records.metrics import Interval, Points, Probability
from whatifbench.core.records.read import refuse
from whatifbench.core.records.schema import Range, SchemaError, parse
from whatifbench.core.records.spec import Count, Percent
from whatifbench.core.table import Cell, Table
from whatifbench.errors import WhatifError

T = TypeVar("T")
MAX_ENTRIES = 512
"""Entries kept (the oldest are removed beyond this)."""
_PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def code_digest() -> str:
    """The sha256 of this package's Python source files' names, sizes and modification times
    (once per process; any edit or reinstall gives a new digest without reading the files)."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        st = path.stat()
        digest.update(f"{path.relative_to(_PACKAGE)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def digest_of(value: Any) -> str:
    """The sha256 of ``value``'s canonical JSON (lists, strings, numbers, booleans; anything else
    as its ``str``): every string quoted and escaped, so no two different values share a digest
    whatever characters their strings hold (joining ids with separators let an id holding the
    separator stand for two ids)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def folder() -> Path:
    """Where the entries live."""
    from whatifbench.runner.store import whatif_home

    return whatif_home() / "cache" / "report"


def remembered(kind: str, key: Any, compute: Callable[[], T],
               encode: Callable[[T], Any], decode: Callable[[Any], T], schema: Any = Any) -> T:
    """``compute()``, or the entry stored for (``kind``, ``key``) by an earlier call with this
    source; ``encode``/``decode`` turn the value into JSON and back, ``schema`` is the type of
    that JSON. An entry that is not JSON is computed again; one that holds a value of the wrong
    type or was edited after it was written (its ``sha256``) is refused with one sentence naming
    the file, line and field (``core.records.read``): a cache of ours that someone changed."""
    name = hashlib.sha256(json.dumps([code_digest(), kind, key], sort_keys=True,
                                     default=str).encode()).hexdigest()
    path = folder() / f"{kind}-{name}.json"
    stored = _stored(path, kind, schema)
    if stored is not None:
        return decode(stored)
    value = compute()
    try:
        encoded = encode(value)
        text = json.dumps({"kind": kind, "sha256": digest_of(encoded), "value": encoded},
                          allow_nan=False)
    except ValueError:
        return value  # a value JSON cannot hold: computed, not kept
    from whatifbench.core.fsutil import write_cache

    if write_cache(path, text.encode("utf-8")):  # a read-only or full home: not kept
        _prune(path.parent)
    return value


def _stored(path: Path, kind: str, schema: Any) -> Any:
    """The value of the entry at ``path`` (``None``: none to read, compute it)."""
    try:
        text = read_text(path)
        stored = loads(text)
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("kind") != kind:
        return None
    fix = (f"It is a cache of whatif report; remove it ({path}) and the report computes it "
           "again.")
    try:
        parse(Entry, stored)
        parse(schema, stored["value"], ("value",))
    except SchemaError as exc:
        raise refuse(path, exc, text, fix=fix) from None
    if stored["sha256"] != digest_of(stored["value"]):
        raise WhatifError(f"{path} was changed after it was written (its value does not have "
                          f"the sha256 it records), so its figures cannot be trusted. {fix}")
    return stored["value"]


@dataclass(frozen=True)
class Entry:
    """A memo entry's file: what it holds, sealed."""

    kind: str
    """The computation it remembers."""
    sha256: str
    """``digest_of(value)``: an edited value is refused."""
    value: Any
    """The computed value as JSON (checked by its kind's schema)."""


def _prune(where: Path) -> None:
    """Keep the ``MAX_ENTRIES`` newest entries."""
    try:
        entries = list(os.scandir(where))
    except OSError:
        return
    if len(entries) <= MAX_ENTRIES:
        return
    def age(entry: os.DirEntry[str]) -> float:
        try:
            return entry.stat().st_mtime
        except OSError:  # removed meanwhile by another process
            return 0.0

    entries.sort(key=age)
    for entry in entries[:len(entries) - MAX_ENTRIES]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass


# -- tables as JSON ----------------------------------------------------------------------------
def cell_json(cell: Cell) -> dict[str, Any]:
    """A cell's fields."""
    return {"value": cell.value, "digits": cell.digits, "ci": cell.ci, "n": cell.n,
            "delta": cell.delta, "delta_ci": cell.delta_ci, "p": cell.p}


def _pair(value: Any) -> tuple[float, float] | None:
    return None if value is None else (float(value[0]), float(value[1]))


def cell_back(obj: dict[str, Any]) -> Cell:
    """``cell_json`` read back."""
    return Cell(obj["value"], obj["digits"], _pair(obj["ci"]), obj["n"], obj["delta"],
                _pair(obj["delta_ci"]), obj["p"])


def table_json(table: Table) -> dict[str, Any]:
    """A table's fields (cells tagged)."""
    return {"title": table.title, "columns": list(table.columns),
            "rows": [[{"cell": cell_json(c)} if isinstance(c, Cell) else c for c in row]
                     for row in table.rows],
            "groups": [list(g) for g in table.groups], "notes": list(table.notes),
            "unit": table.unit, "reference_rows": table.reference_rows}


def table_back(obj: dict[str, Any]) -> Table:
    """``table_json`` read back."""
    rows = tuple(tuple(cell_back(c["cell"]) if isinstance(c, dict) else str(c) for c in row)
                 for row in obj["rows"])
    return Table(obj["title"], tuple(obj["columns"]), rows,
                 tuple((str(label), int(width)) for label, width in obj["groups"]),
                 tuple(obj["notes"]), obj["unit"], int(obj["reference_rows"]))


# -- what entries hold -------------------------------------------------------------------------
class CellJSON(TypedDict):
    """``cell_json``."""

    value: float | None
    digits: Annotated[int, Range(0, 10)]
    ci: Interval | None
    n: Count | None
    delta: float | None
    delta_ci: Interval | None
    p: Probability | None


class CellTag(TypedDict):
    """A cell in a table's row."""

    cell: CellJSON


class TableJSON(TypedDict):
    """``table_json``."""

    title: str
    columns: list[str]
    rows: list[list[str | CellTag]]
    groups: list[tuple[str, Count]]
    notes: list[str]
    unit: str
    reference_rows: Count


class Comparison(TypedDict, total=False):
    """``metrics.paired.compare`` of two runs (and its Holm-adjusted p; a slice's key and
    value)."""

    n_items: Count
    n_units: Count
    accuracy_a: Percent | None
    accuracy_b: Percent | None
    difference: Points | None
    ci95: Interval | None
    ci95_method: str | None
    a_only: Count
    b_only: Count
    mcnemar_p: Probability | None
    p_holm: Probability | None
    test: str
    key: str
    value: str


COMPARED = list[tuple[Count, Count, Comparison, list[Comparison]]]
"""The schema of a ``compared`` entry."""
GAINS = list[tuple[Count, Count, Comparison]]
"""The schema of a ``gains`` entry."""
