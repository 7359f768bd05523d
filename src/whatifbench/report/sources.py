"""Runs with their origin: the folder they were read from and how they were executed
(``execution.json`` beside ``results.json``: cache hits, computed responses, errors, time —
kept apart so that ``results.json`` stays deterministic)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import read_text
from whatifbench.report.payload import Source
from whatifbench.runner.results import RunResult, load_runs

EXECUTION = "execution.json"


def execution_json(sources: Sequence[Source]) -> str:
    """The text of ``execution.json``: one entry per run, in ``results.json`` order."""
    entries = [{"dataset": s.run.dataset, "model": s.run.model, "folder": s.folder,
                **(s.execution or {"recorded": False})} for s in sources]
    return json.dumps({"runs": entries}, indent=2, ensure_ascii=False) + "\n"


def fresh(runs: Sequence[RunResult]) -> list[Source]:
    """Runs evaluated in this process (their execution is known)."""
    return [Source(r, None, asdict(r.execution)) for r in runs]


def _entries(folder: Path, runs: Sequence[RunResult]) -> list[dict[str, Any]]:
    """The ``execution.json`` entry of each run (empty when absent or not matching)."""
    try:
        entries = loads(read_text(folder / EXECUTION))["runs"]
    except (OSError, ValueError, KeyError, TypeError):
        return [{} for _ in runs]
    if not isinstance(entries, list) or len(entries) != len(runs):
        return [{} for _ in runs]
    return [e if isinstance(e, dict) and e.get("model") == run.model
            and e.get("dataset") == run.dataset else {}
            for run, e in zip(runs, entries, strict=True)]


def _identity(run: RunResult) -> str:
    """What makes two runs the same run (their samples follow from it)."""
    return json.dumps([run.suite, run.dataset, run.model, run.n_items, run.metrics, run.spec],
                      sort_keys=True, default=str)


def load_sources(folders: Sequence[str | Path], notes: list[str] | None = None) -> list[Source]:
    """Every run of the given run folders, with the folder it was first written to (a merged
    report remembers its sources) and its recorded execution. A run given again (the same
    folder twice, a copy, a merged report holding it) is kept once, and ``notes`` says so."""
    out: list[Source] = []
    seen: dict[str, Path] = {}
    for folder in folders:
        path = Path(folder)
        runs = load_runs(path)
        for run, entry in zip(runs, _entries(path, runs), strict=True):
            key = _identity(run)
            if key in seen:
                if notes is not None:
                    notes.append(f"The run of {run.model} on {run.dataset} in {path} is given "
                                 f"more than once (also in {seen[key]}); it is shown once.")
                continue
            seen[key] = path
            execution = {k: v for k, v in entry.items()
                         if k not in ("dataset", "model", "folder", "recorded")}
            recorded = entry and entry.get("recorded", True)
            out.append(Source(run, str(entry.get("folder") or path.resolve()),
                              execution if recorded else None))
    return out
