"""The annotation store: one SQLite file (WAL) per dataset under ``$WHATIF_HOME/human/``.

Keyed by the dataset's ``items.jsonl`` hash, then by annotator: the plan dealt to each
annotator (which item at which position) and each answer are committed as they happen, so a
closed browser, a killed server or a second server on the same file lose nothing, and an
annotator resumes at the first unanswered position. An annotator may go back and change an
answer (the newest is kept; its seconds are added to the first's). What is stored: the
annotator's name, each answer (the letter, yes/no, number or text they gave, or "unsure"), the
seconds spent on it, the plan, and the time of each annotator's last request (with
``--per-item K``, the items dealt to someone who has not been seen for ``RESERVATION_S`` are
dealt to others too); no address, no browser data.

A store that cannot be written (a read-only file or folder) can still be read, for ``whatif
human export``: ``HumanStore(..., readonly=True)``. A failed write (a full disk, a lock) raises
its real cause (``human.store_errors``).
"""

from __future__ import annotations

import contextlib
import json
import math
import secrets
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from whatifbench.core.dataset import Dataset
from whatifbench.core.fsutil import ensure_dir
from whatifbench.errors import WhatifError
from whatifbench.human.plan import Pool, make_pool, next_block
from whatifbench.human.records import Answer, Settings
from whatifbench.human.store_errors import annotation_store_error
from whatifbench.runner.store import whatif_home

MAX_SECONDS = 3600.0
"""Longer times per item are stored as this (a break, not work)."""
LOCK_TIMEOUT = 30.0
MAX_POSITION = 2**31
"""Positions in a plan are below this."""
RESERVATION_S = 1800.0
"""With ``--per-item K``, items dealt to an annotator who has answered none of their unit and
has not been seen for this long no longer count against K (they may still answer them)."""

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
CREATE TABLE IF NOT EXISTS seen (annotator TEXT PRIMARY KEY, at REAL NOT NULL);
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
                 path: str | Path | None = None, readonly: bool = False) -> None:
        self.dataset = dataset
        self.path = Path(path) if path else store_path(dataset)
        self.readonly = readonly
        self.now: Callable[[], float] = time.time
        """The clock of reservations (replaced in tests)."""
        self._lock = threading.Lock()  # one connection, used by one thread at a time
        self._conn: sqlite3.Connection | None = None
        if readonly:
            found = self._info()
        else:
            ensure_dir(self.path.parent)
            found = self._create(settings)
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

    def _info(self) -> dict[str, str]:
        """The info table of a store opened read-only."""
        with self._read() as db:
            try:
                found = dict(db.execute("SELECT key, value FROM info").fetchall())
            except sqlite3.OperationalError as exc:
                if "no such table" not in str(exc):
                    raise
                found = {}
        if "settings" not in found:
            raise WhatifError(f"The annotation store {self.path} holds no answers yet (it was "
                              "created but never used).")
        return found

    def _create(self, settings: Settings | None) -> dict[str, str]:
        """The info table, written first when the store is new."""
        with self._tx() as db:
            found = dict(db.execute("SELECT key, value FROM info").fetchall())
            if "settings" not in found:
                chosen = settings or Settings()
                for key, value in (("settings", json.dumps(chosen.to_json())),
                                   ("dataset", self.dataset.card.name),
                                   ("items_sha256", self.dataset.items_sha256),
                                   ("token", secrets.token_urlsafe(24))):
                    db.execute("INSERT INTO info VALUES (?, ?)", (key, value))
                found = dict(db.execute("SELECT key, value FROM info").fetchall())
        return found

    # -- connections ---------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        """The store's connection, opened (and its schema made) on first use; call with the
        lock held."""
        db = self._conn
        if db is None:
            if self.readonly:
                db = self._open_readonly()
            else:
                try:
                    db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT, isolation_level=None,
                                         check_same_thread=False)
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("PRAGMA synchronous=FULL")
                    db.executescript(SCHEMA)
                except sqlite3.DatabaseError as exc:
                    raise annotation_store_error(self.path, exc, LOCK_TIMEOUT) from None
            self._conn = db
        return db

    def _open_readonly(self) -> sqlite3.Connection:
        """A read-only connection: ``mode=ro``, or, where SQLite cannot even make the WAL index
        beside a read-only file, ``immutable=1`` (nobody can write there either)."""
        if not self.path.is_file():
            raise WhatifError(f"The annotation store {self.path} does not exist.")
        base = self.path.resolve().as_uri()
        last: sqlite3.DatabaseError | None = None
        for mode in ("mode=ro", "immutable=1"):
            try:
                db = sqlite3.connect(f"{base}?{mode}", uri=True, timeout=LOCK_TIMEOUT,
                                     isolation_level=None, check_same_thread=False)
                db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                return db
            except sqlite3.DatabaseError as exc:
                last = exc
        assert last is not None
        raise annotation_store_error(self.path, last, LOCK_TIMEOUT) from None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """The connection for reading, failures said as the store's."""
        with self._lock:
            db = self._db()
            try:
                yield db
            except sqlite3.DatabaseError as exc:
                raise annotation_store_error(self.path, exc, LOCK_TIMEOUT) from None

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``: other writers, in other processes too,
        wait). When the commit itself fails (a full disk), SQLite has already rolled back: the
        error raised is the commit's, not a failed second rollback's."""
        with self._lock:
            db = self._db()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        with contextlib.suppress(sqlite3.Error):
                            db.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as exc:
                raise annotation_store_error(self.path, exc, LOCK_TIMEOUT) from None

    def close(self) -> None:
        """Close the connection (the next use opens it again)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- dealing and answering -----------------------------------------------------------------
    def progress(self, annotator: str) -> Progress:
        """Where ``annotator`` stands, dealing the next block when everything dealt is
        answered (a new annotator is registered on first call; each call marks them seen)."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM annotators WHERE name = ?", (annotator,)).fetchone() \
                    is None:
                number = db.execute("SELECT COUNT(*) FROM annotators").fetchone()[0]
                db.execute("INSERT INTO annotators VALUES (?, ?)", (annotator, number))
            self._seen(db, annotator)
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

    def _seen(self, db: sqlite3.Connection, annotator: str) -> None:
        db.execute("INSERT OR REPLACE INTO seen VALUES (?, ?)", (annotator, float(self.now())))

    def _next(self, db: sqlite3.Connection, annotator: str) -> tuple[int, str] | None:
        row = db.execute(
            "SELECT p.position, p.item_id FROM plan p LEFT JOIN answers a ON a.annotator = "
            "p.annotator AND a.item_id = p.item_id WHERE p.annotator = ? AND a.item_id IS NULL "
            "ORDER BY p.position LIMIT 1", (annotator,)).fetchone()
        return (int(row[0]), str(row[1])) if row else None

    def _holdings(self, db: sqlite3.Connection, annotator: str) -> tuple[set[int], Counter[int]]:
        """The units dealt to ``annotator``, and how many annotators hold each unit: those who
        answered some of it, and those seen in the last ``RESERVATION_S`` (a reservation of
        someone who left expires). Without ``--per-item`` only the first is needed."""
        own: set[int] = set()
        claims: Counter[int] = Counter()
        held: set[tuple[str, int]] = set()
        if self.settings.per_item is None:
            for (item_id,) in db.execute("SELECT item_id FROM plan WHERE annotator = ?",
                                         (annotator,)):
                unit = self.pool.unit_of.get(item_id)
                if unit is not None:
                    own.add(unit)
            return own, claims
        worked = {(who, self.pool.unit_of.get(item_id))
                  for who, item_id in db.execute("SELECT annotator, item_id FROM answers")}
        since = float(self.now()) - RESERVATION_S
        live = {who for (who,) in db.execute("SELECT annotator FROM seen WHERE at >= ?",
                                             (since,))}
        for who, item_id in db.execute("SELECT annotator, item_id FROM plan"):
            unit = self.pool.unit_of.get(item_id)
            if unit is None or (who, unit) in held:
                continue
            held.add((who, unit))
            if who == annotator:
                own.add(unit)
            if who == annotator or who in live or (who, unit) in worked:
                claims[unit] += 1
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
               seconds: float | None, revise: bool = False) -> bool:
        """Record the answer at ``position`` of ``annotator``'s plan; ``False`` when that
        position is not dealt to them. A position answered before keeps its first answer (a
        repeated submission, e.g. after a reconnect, changes nothing) unless ``revise`` (the
        annotator went back to change it): then the newest answer is kept, and its seconds are
        added to those spent before."""
        seconds = stored_seconds(seconds)
        with self._tx() as db:
            row = db.execute("SELECT item_id FROM plan WHERE annotator = ? AND position = ?",
                             (annotator, position)).fetchone()
            if row is None:
                return False
            self._seen(db, annotator)
            given = ("" if unsure else reply, int(unsure))
            if revise:
                db.execute(
                    "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (annotator, "
                    "item_id) DO UPDATE SET reply = excluded.reply, unsure = excluded.unsure, "
                    "seconds = CASE WHEN excluded.seconds IS NULL THEN answers.seconds ELSE "
                    f"MIN(COALESCE(answers.seconds, 0) + excluded.seconds, {MAX_SECONDS}) END",
                    (annotator, row[0], *given, seconds, position))
            else:
                db.execute("INSERT OR IGNORE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                           (annotator, row[0], *given, seconds, position))
        return True

    # -- reading -------------------------------------------------------------------------------
    def given(self, annotator: str, position: int) -> Answer | None:
        """The answer ``annotator`` gave at ``position`` (``None``: not answered, or not
        theirs)."""
        with self._read() as db:
            row = db.execute("SELECT item_id, reply, seconds, unsure FROM answers WHERE "
                             "annotator = ? AND position = ?", (annotator, position)).fetchone()
        return Answer(annotator, row[0], row[1], row[2], bool(row[3])) if row else None

    def previous(self, annotator: str, before: int | None) -> int | None:
        """The answered position of ``annotator`` just before ``before`` (``None``: the last
        one), which the Back action shows; ``None`` when there is none."""
        with self._read() as db:
            row = db.execute("SELECT MAX(position) FROM answers WHERE annotator = ? AND "
                             "position < ?", (annotator, MAX_POSITION if before is None
                                              else before)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def answers(self) -> list[Answer]:
        """Every answer, by annotator (in order of arrival) then position."""
        with self._read() as db:
            rows = db.execute(
                "SELECT a.annotator, a.item_id, a.reply, a.seconds, a.unsure FROM answers a "
                "JOIN annotators n ON n.name = a.annotator ORDER BY n.number, a.position"
            ).fetchall()
        return [Answer(who, item, reply, seconds, bool(unsure))
                for who, item, reply, seconds, unsure in rows]


def stored_seconds(value: float | None) -> float | None:
    """Seconds as stored: between 0 and ``MAX_SECONDS`` (a longer time is a break, not work),
    to the millisecond; ``None`` for none or not a number."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an integer beyond the float range
        seconds = MAX_SECONDS if value > 0 else 0.0
    except (TypeError, ValueError):
        return None
    if math.isnan(seconds):
        return None
    return round(min(max(seconds, 0.0), MAX_SECONDS), 3)
