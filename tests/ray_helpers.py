"""Helpers of the Ray executor tests: comparable outputs, stored-row counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from util import run_outputs

from whatifbench import api
from whatifbench.runner.store import RunStore


def outputs(folder: Path, runs: list[Any], ignore: tuple[str, ...] = ()) -> tuple[Any, Any]:
    """(``results.json``, ``samples.jsonl``) of ``runs`` as data (see ``written``); backend
    arguments named in ``ignore`` (e.g. a simulated ``delay``, which changes no answer) are left
    out."""
    api.write_outputs(folder, runs, overwrite=True)
    return written(folder, ignore)


def written(folder: Path, ignore: tuple[str, ...] = ()) -> tuple[Any, Any]:
    """Like ``outputs`` for a folder written by ``whatif run``: both files as data, without the
    random ``run_id`` (``util.run_outputs``) and without the backend arguments in ``ignore``."""
    results, samples = run_outputs(folder)
    for run in results["runs"]:  # type: ignore[index]
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
