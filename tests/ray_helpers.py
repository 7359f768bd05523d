"""Helpers of the Ray executor tests: comparable outputs, stored-row counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from whatifbench import api
from whatifbench.runner.store import RunStore


def outputs(folder: Path, runs: list[Any], ignore: tuple[str, ...] = ()) -> tuple[Any, str]:
    """(``results.json`` as data, ``samples.jsonl`` text) of ``runs``; backend arguments named
    in ``ignore`` (e.g. a simulated ``delay``, which changes no answer) are left out."""
    api.write_outputs(folder, runs)
    return written(folder, ignore)


def written(folder: Path, ignore: tuple[str, ...] = ()) -> tuple[Any, str]:
    """Like ``outputs`` for a folder written by ``whatif run``: the exact text of both files,
    or with ``ignore`` the results as data without those arguments."""
    text = (folder / "results.json").read_text()
    samples = (folder / "samples.jsonl").read_text()
    if not ignore:
        return text, samples
    results = json.loads(text)
    for run in results["runs"]:
        for name in ignore:
            run["spec"]["backend"]["args"].pop(name, None)
    return results, samples


def stored(path: Path) -> int:
    """Responses in a run store another process is writing (0 before it exists)."""
    if not path.exists():
        return 0
    try:
        store = RunStore(path)
    except Exception:  # noqa: BLE001  (being created by the other process)
        return 0
    try:
        return store.count()
    finally:
        store.close()
