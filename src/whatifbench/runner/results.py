"""Run results: the records live in ``core.records`` (``RunResult``, ``Sample``, ``Execution``,
``RunSpec``); this module reads run folders with each suite's metrics schema and names the
folders runs are written to."""

from __future__ import annotations

import secrets
import time
import uuid
from pathlib import Path
from typing import Any

from whatifbench.core.records.metrics import Metrics
from whatifbench.core.records.results_file import (
    MAX_RESULTS_MB,
    read_results,
    runs_digest,
    samples_digest,
)
from whatifbench.core.records.run import Execution, RunResult
from whatifbench.core.records.sample import Sample, backend_failed
from whatifbench.core.records.spec import SPEC_FIELDS, RunSpec

__all__ = ["MAX_RESULTS_MB", "SPEC_FIELDS", "Execution", "RunResult", "RunSpec", "Sample",
           "backend_failed", "default_run_folder", "load_runs", "metrics_schema", "new_run_id",
           "runs_digest", "samples_digest"]


def metrics_schema(suite: str) -> Any:
    """The metrics schema the registered suite ``suite`` declares (``Metrics``, what every
    suite's metrics share, for a suite that declares none or is not installed)."""
    from whatifbench.core.registry import lookup
    from whatifbench.errors import WhatifError

    try:
        found = lookup("suite", suite).obj
    except WhatifError:  # not installed: its tables cannot be drawn, its shared parts are read
        return Metrics
    return getattr(found, "metrics_schema", None) or Metrics


def load_runs(folder: str | Path) -> list[RunResult]:
    """Read a run folder written by ``whatif run`` (``core.records.results_file.read_results``
    with each suite's metrics schema)."""
    return read_results(folder, metrics_schema)


def new_run_id() -> str:
    """A random id for one run output folder (``results.json`` and each ``samples.jsonl`` line)."""
    return uuid.uuid4().hex


def default_run_folder() -> Path:
    """``whatif-out/run-YYYYmmdd-HHMMSS-XXXXXX``: unique even for runs started in the same
    second (the random suffix; the folder is published with a rename that never replaces)."""
    return Path("whatif-out") / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
