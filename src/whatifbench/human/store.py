"""The annotation store: one SQLite file (WAL) per dataset under ``$WHATIF_HOME/human/``.

Keyed by the dataset's ``items.jsonl`` hash, then by annotator: the plan dealt to each
annotator (which item at which position) and each answer are committed as they happen, so a
closed browser, a killed server or a second server on the same file lose nothing, and an
annotator resumes at the first unanswered position. What is stored: the annotator's name,
each answer (the letter, yes/no, number or text they gave, or "unsure"), the seconds spent on
it, the plan; no address, no browser data, no clock times.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from whatifbench.core.dataset import Dataset
from whatifbench.core.fsutil import ensure_dir
from whatifbench.errors import WhatifError
from whatifbench.human.plan import Pool, make_pool, next_block
from whatifbench.human.records import Answer, Settings
from whatifbench.runner.store import whatif_home
from whatifbench.runner.store_errors import store_error

MAX_SECONDS = 3600.0
"""Longer times per item are stored as this (a break, not work)."""
LOCK_TIMEOUT = 30.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS annotators (name TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS plan (
    annotator TEXT NOT NULL, position INTEGER NOT NULL, item_id TEXT NOT NULL,
    PRIMARY KEY (annotator, position), UNIQUE (annotator, item_id));
CREATE TABLE IF NOT EXISTS answers (
    annotator TEXT NOT NULL, item_id TEXT NOT NULL, reply TEXT NOT NULL,
    unsure INTEGER NOT NULL, seconds REAL, position INTEGER NOT NULL,
    PRIMARY KEY (annotator, item_id));
"""


def store_path(dataset: Dataset) -> Path:
    """``$WHATIF_HOME/human/<items sha256>.sqlite``."""
    return whatif_home() / "human" / f"{dataset.items_sha256}.sqlite"


@dataclass(frozen=True)
class Progress:
    """Where an annotator stands."""

    position: int | None
    """The next position to answer (``None``: nothing left)."""
    item_id: str | None
    """The item at that position."""
    answered: int
    """Answers given so far."""
    left: int
    """About how many items are still to come (dealt and not answered, plus what could still
    be dealt)."""


class HumanStore:
    """The answers of one dataset's annotators; safe for several threads and processes."""

    def __init__(self, dataset: Dataset, settings: Settings | None = None,
                 path: str | Path | None = None) -> None:
        self.dataset = dataset
        self.path = Path(path) if path else store_path(dataset)
        self._lock = threading.Lock()  # one connection, used by one thread at a time
        self._conn: sqlite3.Connection | None = None
        ensure_dir(self.path.parent)
        with self._tx() as db:
            found = dict(db.execute("SELECT key, value FROM info").fetchall())
            if "settings" not in found:
                chosen = settings or Settings()
                for key, value in (("settings", json.dumps(chosen.to_json())),
                                   ("dataset", dataset.card.name),
                                   ("items_sha256", dataset.items_sha256),
                                   ("token", secrets.token_urlsafe(24))):
                    db.execute("INSERT INTO info VALUES (?, ?)", (key, value))
                found = dict(db.execute("SELECT key, value FROM info").fetchall())
        stored = Settings(**json.loads(found["settings"]))
        if settings is not None and settings != stored:
            raise WhatifError(
                f"The annotation store {self.path} of {dataset.root} was started with "
                f"{stored.describe()}, not {settings.describe()}; the answers given so far were "
                "dealt that way. Pass the same options (or none) to go on with it, or collect a "
                "new baseline with --store NEW_FILE.")
        self.settings = stored
        self.token = found["token"]
        self.pool: Pool = make_pool(dataset.items, stored)

    # -- connections ---------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        """The store's connection, opened (and its schema made) on first use; call with the
        lock held."""
        db = self._conn
        if db is None:
            try:
                db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT, isolation_level=None,
                                     check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                db.executescript(SCHEMA)
            except sqlite3.DatabaseError as exc:
                raise store_error(self.path, exc, LOCK_TIMEOUT) from None
            self._conn = db
        return db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``: other writers, in other processes too,
        wait)."""
        with self._lock:
            db = self._db()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as exc:
                raise store_error(self.path, exc, LOCK_TIMEOUT) from None

    def close(self) -> None:
        """Close the connection (the next use opens it again)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- dealing and answering -----------------------------------------------------------------
    def progress(self, annotator: str) -> Progress:
        """Where ``annotator`` stands, dealing the next block when everything dealt is
        answered (a new annotator is registered on first call)."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM annotators WHERE name = ?", (annotator,)).fetchone() \
                    is None:
                number = db.execute("SELECT COUNT(*) FROM annotators").fetchone()[0]
                db.execute("INSERT INTO annotators VALUES (?, ?)", (annotator, number))
            found = self._next(db, annotator)
            if found is None:
                self._deal(db, annotator)
                found = self._next(db, annotator)
            answered = db.execute("SELECT COUNT(*) FROM answers WHERE annotator = ?",
                                  (annotator,)).fetchone()[0]
            dealt = db.execute("SELECT COUNT(*) FROM plan WHERE annotator = ?",
                               (annotator,)).fetchone()[0]
            left = dealt - answered + self._dealable(db, annotator)
        return Progress(found[0] if found else None, found[1] if found else None, answered, left)

    def _next(self, db: sqlite3.Connection, annotator: str) -> tuple[int, str] | None:
        row = db.execute(
            "SELECT p.position, p.item_id FROM plan p LEFT JOIN answers a ON a.annotator = "
            "p.annotator AND a.item_id = p.item_id WHERE p.annotator = ? AND a.item_id IS NULL "
            "ORDER BY p.position LIMIT 1", (annotator,)).fetchone()
        return (int(row[0]), str(row[1])) if row else None

    def _holdings(self, db: sqlite3.Connection, annotator: str) -> tuple[set[int], Counter[int]]:
        own: set[int] = set()
        claims: Counter[int] = Counter()
        seen: set[tuple[str, int]] = set()
        for who, item_id in db.execute("SELECT annotator, item_id FROM plan"):
            unit = self.pool.unit_of.get(item_id)
            if unit is None or (who, unit) in seen:
                continue
            seen.add((who, unit))
            claims[unit] += 1
            if who == annotator:
                own.add(unit)
        return own, claims

    def _dealable(self, db: sqlite3.Connection, annotator: str) -> int:
        own, claims = self._holdings(db, annotator)
        k = self.settings.per_item
        return sum(len(ids) for u, ids in enumerate(self.pool.units)
                   if u not in own and (k is None or claims[u] < k))

    def _deal(self, db: sqlite3.Connection, annotator: str) -> None:
        own, claims = self._holdings(db, annotator)
        number = db.execute("SELECT number FROM annotators WHERE name = ?",
                            (annotator,)).fetchone()[0]
        block = next_block(self.pool, own, claims, self.settings, len(own), int(number))
        start = db.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM plan WHERE annotator = ?",
                           (annotator,)).fetchone()[0]
        db.executemany("INSERT INTO plan VALUES (?, ?, ?)",
                       [(annotator, start + k, item_id) for k, item_id in enumerate(block)])

    def answer(self, annotator: str, position: int, reply: str, unsure: bool,
               seconds: float | None) -> bool:
        """Record the answer at ``position`` of ``annotator``'s plan; ``False`` when that
        position is not dealt to them. A position answered before keeps its first answer (a
        repeated submission, e.g. after a reconnect, changes nothing)."""
        if seconds is not None:
            seconds = round(min(max(float(seconds), 0.0), MAX_SECONDS), 3)
        with self._tx() as db:
            row = db.execute("SELECT item_id FROM plan WHERE annotator = ? AND position = ?",
                             (annotator, position)).fetchone()
            if row is None:
                return False
            db.execute("INSERT OR IGNORE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                       (annotator, row[0], "" if unsure else reply, int(unsure), seconds,
                        position))
        return True

    # -- reading -------------------------------------------------------------------------------
    def answers(self) -> list[Answer]:
        """Every answer, by annotator (in order of arrival) then position."""
        with self._lock:
            rows = self._db().execute(
                "SELECT a.annotator, a.item_id, a.reply, a.seconds, a.unsure FROM answers a "
                "JOIN annotators n ON n.name = a.annotator ORDER BY n.number, a.position"
            ).fetchall()
        return [Answer(who, item, reply, seconds, bool(unsure))
                for who, item, reply, seconds, unsure in rows]
