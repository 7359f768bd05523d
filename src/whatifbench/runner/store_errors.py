"""One message per kind of run-store failure, saying what to do.

A store may hold answers that cost money, so no message ever advises deleting it: a locked or
read-only store is fine as it is, and a damaged one is left in place for recovery.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from whatifbench.errors import WhatifError

ANOTHER = "or pass --store with another file for this run"


class NotWritable(WhatifError):
    """The store cannot be written: read-only, not to be opened or created, or its disk full."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
        """Why, in a few words (the SQLite message)."""


def store_error(path: Path, exc: sqlite3.DatabaseError, lock_timeout: float) -> WhatifError:
    """The ``WhatifError`` for a failed SQLite operation on the store at ``path``."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    why = str(exc)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in why:
        return WhatifError(
            f"The run store {path} stayed locked by another process for more than "
            f"{lock_timeout:g} s (another whatif run writing to it, or a program holding it "
            "open inside a transaction, such as a sqlite3 shell). Nothing is wrong with the "
            f"store: wait until that process finishes and run the same command again, {ANOTHER}."
        )
    if name.startswith("SQLITE_READONLY") or "readonly" in why:
        return NotWritable(
            f"The run store {path} cannot be written ({why}): the file or its folder is "
            "read-only. The store is kept as it is; make the file and its folder writable, "
            f"{ANOTHER}.", why)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in why \
            or "not a database" in why:
        return WhatifError(
            f"The run store {path} is damaged ({why}). It is left untouched: the answers it "
            f"still holds can be copied into a new store with "
            f"'sqlite3 {path} .recover | sqlite3 recovered.sqlite' and used with "
            f"--store recovered.sqlite; {ANOTHER.removeprefix('or ')} to start afresh."
        )
    if name.startswith("SQLITE_FULL") or "disk is full" in why:
        return NotWritable(
            f"The disk holding the run store {path} is full ({why}). The answers stored so far "
            f"are kept; free some space and run the same command again, {ANOTHER} on another "
            "disk.", why)
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in why:
        return NotWritable(
            f"Cannot open the run store {path} ({why}): check that its folder exists and can be "
            f"written, {ANOTHER}.", why)
    return WhatifError(
        f"The run store {path} could not be used ({type(exc).__name__}: {why}). It is left "
        f"untouched; run the same command again, {ANOTHER}."
    )
