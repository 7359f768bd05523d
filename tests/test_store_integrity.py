"""The run store (issue 11 items 10 and 12): every row carries a checksum verified when read (a
damaged row is computed again, never served), old stores are migrated, and a locked, read-only
or damaged store gets one message that never advises deleting it (it may hold paid answers).
Replies without content (``content: null``) are failed calls: tests/test_openai_failures.py."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from util import make_choice_dataset, run_outputs

from whatifbench.cli.main import main
from whatifbench.errors import WhatifError
from whatifbench.runner import store as store_module
from whatifbench.runner.store import RunStore, row_checksum
from whatifbench.runner.store_errors import store_error


def _run(ds: Path, out: Path, store: Path, *extra: str) -> int:
    return main(["run", "--suite", str(ds), "--model", "builtin:random", "--out", str(out),
                 "--store", str(store), "--no-progress", *extra])


def _results(out: Path) -> object:
    return run_outputs(out)[0]


@pytest.fixture
def ran(tmp_path: Path) -> tuple[Path, Path]:
    """(dataset, store) after one run of builtin:random over 12 items."""
    ds = make_choice_dataset(tmp_path / "ds")
    store = tmp_path / "store.sqlite"
    assert _run(ds, tmp_path / "first", store) == 0
    return ds, store


def _sql(store: Path, statement: str, *args: object) -> None:
    with sqlite3.connect(store) as db:
        db.execute(statement, args)


@pytest.mark.parametrize("damage", ["text", "json", "status"])
def test_a_damaged_row_is_computed_again_never_served(
        ran: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        damage: str) -> None:
    ds, store = ran
    capsys.readouterr()
    with sqlite3.connect(store) as db:
        key, text = db.execute("SELECT key, response FROM responses ORDER BY key").fetchone()
        if damage == "text":  # a changed answer: the checksum no longer matches
            changed = text.replace('"text": "', '"text": "Z', 1)
            assert changed != text
            db.execute("UPDATE responses SET response = ? WHERE key = ?", (changed, key))
        elif damage == "json":  # unreadable JSON, even with a matching checksum
            db.execute("UPDATE responses SET response = ?, checksum = ? WHERE key = ?",
                       ('{"text": "A', row_checksum(key, 1, '{"text": "A'), key))
        else:  # a failed call turned into a success without its checksum
            db.execute("UPDATE responses SET ok = 0 WHERE key = ?", (key,))
            db.execute("UPDATE responses SET ok = 1 WHERE key = ?", (key,))
            db.execute("UPDATE responses SET checksum = 'x' WHERE key = ?", (key,))
    assert _run(ds, tmp_path / "second", store) == 0
    err = capsys.readouterr().err
    assert "11 from the store, 1 computed, 0 errors" in err
    assert "1 stored answer(s) failed the store's integrity check" in err
    assert _results(tmp_path / "second") == _results(tmp_path / "first")
    # The row was replaced by a sound one.
    assert _run(ds, tmp_path / "third", store) == 0
    err = capsys.readouterr().err
    assert "12 from the store, 0 computed" in err and "integrity" not in err


def test_a_store_without_checksums_is_migrated_and_keeps_serving(
        ran: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds, store = ran
    old = tmp_path / "old.sqlite"  # the schema of whatifbench before checksums
    with sqlite3.connect(old) as db:
        db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, backend TEXT NOT NULL, "
                   "item_id TEXT NOT NULL, ok INTEGER NOT NULL, response TEXT NOT NULL, "
                   "created REAL NOT NULL)")
        db.execute("ATTACH DATABASE ? AS new", (str(store),))
        db.execute("INSERT INTO responses SELECT key, backend, item_id, ok, response, created "
                   "FROM new.responses")
    capsys.readouterr()
    assert _run(ds, tmp_path / "second", old) == 0
    assert "12 from the store, 0 computed" in capsys.readouterr().err
    with sqlite3.connect(old) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
        rows = db.execute("SELECT key, ok, response, checksum FROM responses").fetchall()
    assert len(rows) == 12 and all(c == row_checksum(k, ok, t) for k, ok, t, c in rows)


def test_a_store_locked_by_another_process_gets_one_message(
        ran: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ds, store = ran
    holder = subprocess.Popen(
        [sys.executable, "-c",
         ("import sqlite3, sys, time\n"
         "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "db.execute('BEGIN IMMEDIATE')\n"
         "print('locked', flush=True)\n"
         "time.sleep(120)\n"), str(store)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        monkeypatch.setattr(store_module, "LOCK_TIMEOUT", 0.5)
        started = time.monotonic()
        code = _run(ds, tmp_path / "second", store, "--seed", "1", "--limit", "2", "-M",
                    "seed=7")
        err = capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
    assert code == 2 and time.monotonic() - started < 30
    assert "stayed locked by another process for more than 0.5 s" in err
    assert "--store" in err and "delete" not in err.lower() and "Traceback" not in err


def test_a_damaged_store_file_gets_one_message_and_is_left_untouched(
        ran: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds, store = ran
    db = sqlite3.connect(store, isolation_level=None)  # enough rows for several pages
    db.executemany("INSERT INTO responses VALUES (?, 'b', 'i', 0, ?, 0, NULL)",
                   [(f"pad{i}", "x" * 300) for i in range(200)])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file
    db.close()
    with open(store, "r+b") as handle:  # every page but the first (the header)
        handle.seek(4096)
        handle.write(bytes(range(256)) * (store.stat().st_size // 256))
    before = store.read_bytes()
    capsys.readouterr()
    assert _run(ds, tmp_path / "second", store) == 2
    err = capsys.readouterr().err
    assert f"The run store {store} is damaged" in err and ".recover" in err
    assert "delete" not in err.lower() and "Traceback" not in err
    assert store.read_bytes() == before
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all " * 100)
    with pytest.raises(WhatifError, match="is damaged"):
        RunStore(garbage)


def test_no_store_message_advises_deleting_it(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    RunStore(path).close()
    readonly = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        with pytest.raises(sqlite3.OperationalError) as info:
            readonly.execute("DELETE FROM responses")
    finally:
        readonly.close()
    message = str(store_error(path, info.value, 60))
    assert "read-only" in message and "kept as it is" in message
    for text in ("database is locked", "attempt to write a readonly database",
                 "database disk image is malformed", "file is not a database",
                 "database or disk is full", "unable to open database file", "disk I/O error"):
        message = str(store_error(path, sqlite3.OperationalError(text), 60))
        assert "delete" not in message.lower() and "--store" in message, text
    assert os.path.exists(path)
