"""One message per kind of annotation-store failure, saying what to do (the run store's are in
``runner.store_errors``). The store holds people's work, so no message advises deleting it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from whatifbench.errors import WhatifError

OTHER = "or start 'whatif human serve' with --store NEW_FILE to collect into another file"


def annotation_store_error(path: Path, exc: sqlite3.DatabaseError,
                           lock_timeout: float) -> WhatifError:
    """The ``WhatifError`` for a failed SQLite operation on the annotation store at ``path``:
    its real cause (a full disk is said as such, never hidden behind a failed rollback)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    why = str(exc)
    if name.startswith("SQLITE_FULL") or "disk is full" in why:
        return WhatifError(
            f"The disk holding the annotation store {path} is full ({why}); this answer was not "
            "saved, every earlier one is. Free some space and answer again (the page keeps the "
            f"answer), {OTHER} on another disk.")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in why:
        return WhatifError(
            f"The annotation store {path} stayed locked by another process for more than "
            f"{lock_timeout:g} s (a program holding it open inside a transaction, such as a "
            "sqlite3 shell). Nothing is wrong with the store: try again once that process "
            "finishes.")
    if name.startswith("SQLITE_READONLY") or "readonly" in why:
        return WhatifError(
            f"The annotation store {path} cannot be written ({why}): the file or its folder is "
            "read-only. 'whatif human export' can still read it; to collect answers, make the "
            f"file and its folder writable, {OTHER}.")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in why \
            or "not a database" in why:
        return WhatifError(
            f"The annotation store {path} is damaged ({why}). It is left untouched: the answers "
            f"it still holds can be copied out with 'sqlite3 {path} .recover | sqlite3 "
            f"recovered.sqlite' and used with --store recovered.sqlite.")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in why:
        return WhatifError(
            f"Cannot open the annotation store {path} ({why}): check that its folder exists and "
            f"can be read (and written, to collect answers), {OTHER}.")
    return WhatifError(
        f"The annotation store {path} could not be used ({type(exc).__name__}: {why}). It is "
        "left untouched; try again.")
