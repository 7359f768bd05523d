"""The run store: every response written to SQLite as it arrives; reruns resume and hit the cache.

Responses are keyed by a hash of (backend spec, public backend args, backend version, request
content including image bytes, generation parameters). Failed calls are kept for inspection but
never served, so they are retried on the next run.

Every row carries a checksum of its key, status and stored text, verified whenever the row is
read: a row that fails it (or whose text is no longer a readable response) is never served; it
is computed again and replaced. Stores written before checksums existed (schema 0) are
migrated when first opened: the column is added and the rows they hold are sealed as they are.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from whatifbench import secrets
from whatifbench.core.fsutil import ensure_dir
from whatifbench.core.home import whatif_home
from whatifbench.core.requests import Response
from whatifbench.runner.store_errors import store_error

SCHEMA_VERSION = 1
"""``PRAGMA user_version`` of the store: 1 = rows carry a checksum."""
LOCK_TIMEOUT = 60.0
"""Seconds to wait for another process's write lock before giving up with a message."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    item_id TEXT NOT NULL,
    ok INTEGER NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL,
    checksum TEXT
);
"""


def default_store_path() -> Path:
    """``$WHATIF_HOME/store.sqlite``."""
    return whatif_home() / "store.sqlite"


def row_checksum(key: str, ok: int, text: str) -> str:
    """The checksum stored with a row: sha256 of its key, status and response text."""
    return hashlib.sha256(f"{key}\n{int(ok)}\n{text}".encode()).hexdigest()


def read_row(key: str, ok: int, text: str, checksum: str | None) -> Response | None:
    """The response of a successful row, or ``None`` when the row fails its checksum or no
    longer reads as a successful response (damaged: never served). Rows written into a migrated
    store by an older whatifbench have no checksum; they are served when they read correctly."""
    if checksum is not None and checksum != row_checksum(key, ok, text):
        return None
    try:
        response = Response.from_json(json.loads(text))
    except (ValueError, TypeError, AttributeError):
        return None
    return response if response.error is None else None


def _row_sound(key: str, ok: int, text: str, checksum: str | None) -> int:
    return int(read_row(key, ok, text, checksum) is not None)


class RunStore:
    """A SQLite file of responses; safe for several processes (WAL, busy timeout)."""

    def __init__(self, path: str | Path | None = None, lock_timeout: float | None = None) -> None:
        self.path = Path(path) if path else default_store_path()
        self.lock_timeout = LOCK_TIMEOUT if lock_timeout is None else lock_timeout
        self.damaged = 0
        """Rows read in this session that failed their checksum or were unreadable (recomputed,
        never served)."""
        ensure_dir(self.path.parent)
        with self._guard():
            self.db = sqlite3.connect(self.path, timeout=self.lock_timeout, isolation_level=None)
            self.db.create_function("row_checksum", 3, row_checksum, deterministic=True)
            self.db.create_function("row_sound", 4, _row_sound, deterministic=True)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            self._migrate()

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn SQLite failures into one ``WhatifError`` that says what to do."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc, self.lock_timeout) from None

    def _migrate(self) -> None:
        """Schema 0 → 1: add the checksum column and seal the rows already there."""
        if self._has_checksums():
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if not self._has_checksums():  # another process may have migrated meanwhile
                self.db.execute("ALTER TABLE responses ADD COLUMN checksum TEXT")
                self.db.execute("UPDATE responses SET checksum = row_checksum(key, ok, response)")
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _has_checksums(self) -> bool:
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(responses)")}
        return "checksum" in columns

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        """Successful responses stored under any of ``keys`` whose rows are sound
        (``read_row``); the others are counted in ``damaged``."""
        keys = list(keys)
        found: dict[str, Response] = {}
        with self._guard():
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self.db.execute(
                    "SELECT key, ok, response, checksum FROM responses "
                    f"WHERE ok = 1 AND key IN ({marks})", chunk).fetchall()
                for key, ok, text, checksum in rows:
                    response = read_row(key, ok, text, checksum)
                    if response is None:
                        self.damaged += 1
                    else:
                        found[key] = response
        return found

    def put(self, key: str, backend: str, item_id: str, response: Response) -> Response:
        """Store one response now (committed before returning) and return it as stored: with
        every known credential removed (``secrets.redact``). A successful row is never
        replaced, unless it is damaged."""
        stored = Response.from_json(secrets.redact_value(response.to_json()))
        ok = 1 if stored.error is None else 0
        text = json.dumps(stored.to_json(), ensure_ascii=False)
        with self._guard():
            self.db.execute(
                "INSERT INTO responses (key, backend, item_id, ok, response, created, checksum) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET ok = excluded.ok, "
                "response = excluded.response, created = excluded.created, "
                "checksum = excluded.checksum WHERE responses.ok = 0 OR NOT row_sound("
                "responses.key, responses.ok, responses.response, responses.checksum)",
                (key, secrets.redact(backend), item_id, ok, text, time.time(),
                 row_checksum(key, ok, text)),
            )
        return stored

    def count(self) -> int:
        """Number of stored responses."""
        with self._guard():
            return int(self.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self.db.close()
