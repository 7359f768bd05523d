"""Cost of the run store's integrity checks (per-row checksums) and of migrating an old store.

For N responses (default 50,000, replies of ~200 characters as a chat model gives), prints in one
run:

1. reading them all back with ``RunStore.get_many`` (checksum verified, JSON parsed) against a
   baseline measured on the same file: the same query and ``Response.from_json`` without the
   checksum (best of three, alternating);
2. storing them with ``RunStore.put`` (redaction, checksum, one commit per row as in a run)
   against a bare ``INSERT`` of the same rows, one commit each;
3. migrating a store of the old schema (no checksum column) holding N rows: the time of the
   first ``RunStore(...)`` open, against opening the migrated store again.

    PYTHONPATH=src python bench/bench_store.py [N]
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from whatifbench.core.requests import Response
from whatifbench.runner.store import RunStore

OLD_SCHEMA = ("CREATE TABLE responses (key TEXT PRIMARY KEY, backend TEXT NOT NULL, "
              "item_id TEXT NOT NULL, ok INTEGER NOT NULL, response TEXT NOT NULL, "
              "created REAL NOT NULL)")


def responses(n: int) -> list[tuple[str, Response]]:
    """``n`` keys (sha256-like) and replies with token usage, as an openai: run stores them."""
    return [(f"{k:064x}", Response(text=f"The answer is ({'ABCD'[k % 4]}). " + "x" * 180,
                                   meta={"finish_reason": "stop", "attempts": 1,
                                         "usage": {"prompt_tokens": 900, "completion_tokens": 50}}))
            for k in range(n)]


def timed(work: object) -> float:
    start = time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - start


def main(n: int) -> None:
    rows = responses(n)
    keys = [k for k, _ in rows]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store.sqlite"
        store = RunStore(path)
        put = timed(lambda: [store.put(k, "openai:m", f"i{j}", r)
                             for j, (k, r) in enumerate(rows)])
        db = sqlite3.connect(path)

        def baseline_read() -> None:
            for start in range(0, n, 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for _key, text in db.execute(
                        f"SELECT key, response FROM responses WHERE ok = 1 AND key IN ({marks})",
                        chunk):
                    Response.from_json(json.loads(text))
        got: dict[str, Response] = {}
        verified = bare_read = float("inf")
        for _ in range(3):  # alternate, best of three: both read a warm file
            bare_read = min(bare_read, timed(baseline_read))
            verified = min(verified, timed(lambda: got.update(store.get_many(keys))))
        assert len(got) == n and store.damaged == 0
        store.close()
        db.close()

        bare = sqlite3.connect(Path(tmp) / "bare.sqlite", isolation_level=None)
        bare.execute("PRAGMA journal_mode=WAL")
        bare.execute("PRAGMA synchronous=NORMAL")
        bare.execute(OLD_SCHEMA)
        bare_put = timed(lambda: [bare.execute(
            "INSERT INTO responses VALUES (?, ?, ?, 1, ?, 0)",
            (k, "openai:m", f"i{j}", json.dumps(r.to_json(), ensure_ascii=False)))
            for j, (k, r) in enumerate(rows)])
        bare.close()  # bare.sqlite now holds an old-schema store of n rows

        old = Path(tmp) / "bare.sqlite"
        migrate = timed(lambda: RunStore(old).close())
        reopen = timed(lambda: RunStore(old).close())

    print(f"N = {n} stored responses")
    print(f"read all   get_many (checksums)  {verified:7.3f} s   bare SELECT + parse "
          f"{bare_read:7.3f} s   ratio {verified / bare_read:5.2f}   "
          f"({1e6 * (verified - bare_read) / n:.1f} µs per row more)")
    print(f"store all  put (redact+checksum) {put:7.3f} s   bare INSERT          "
          f"{bare_put:7.3f} s   ratio {put / bare_put:5.2f}")
    print(f"migration  first open of an old store {migrate:7.3f} s   reopen {reopen:7.3f} s "
          f"({1e6 * migrate / n:.1f} µs per row, once)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000)
