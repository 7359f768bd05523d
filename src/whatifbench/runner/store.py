"""The run store: every response written to SQLite as it arrives; reruns resume and hit the cache.

Responses are keyed by a hash of (backend spec, public backend args, backend version, request
content including image bytes, generation parameters). Failed calls are kept for inspection but
never served from the cache, so they are retried on the next run.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from whatifbench.core.fsutil import ensure_dir
from whatifbench.errors import WhatifError
from whatifbench.models.base import Response

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    item_id TEXT NOT NULL,
    ok INTEGER NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
);
"""


def whatif_home() -> Path:
    """Folder for the shared store and cached default suites (``$WHATIF_HOME``)."""
    env = os.environ.get("WHATIF_HOME")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "whatifbench"


def default_store_path() -> Path:
    """``$WHATIF_HOME/store.sqlite``."""
    return whatif_home() / "store.sqlite"


class RunStore:
    """A SQLite file of responses; safe for several processes (WAL, busy timeout)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_store_path()
        ensure_dir(self.path.parent)
        try:
            self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise WhatifError(
                f"Cannot use the run store {self.path} ({exc}); pass --store with another file "
                "or delete the damaged one."
            ) from None

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        """Successful responses stored under any of ``keys``."""
        keys = list(keys)
        found: dict[str, Response] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT key, response FROM responses WHERE ok = 1 AND key IN ({marks})", chunk
            )
            for key, text in rows:
                found[key] = Response.from_json(json.loads(text))
        return found

    def put(self, key: str, backend: str, item_id: str, response: Response) -> None:
        """Store one response now (committed before returning)."""
        ok = 1 if response.error is None else 0
        self.db.execute(
            "INSERT INTO responses (key, backend, item_id, ok, response, created) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET ok = excluded.ok, "
            "response = excluded.response, created = excluded.created WHERE responses.ok = 0",
            (key, backend, item_id, ok, json.dumps(response.to_json(), ensure_ascii=False),
             time.time()),
        )

    def count(self) -> int:
        """Number of stored responses."""
        return int(self.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self.db.close()
