"""Run results: one entry of ``results.json`` plus its samples and execution counts."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from whatifbench.core.suite import Sample
from whatifbench.errors import WhatifError


@dataclass(frozen=True)
class Execution:
    """How a run was executed (not part of ``results.json``, which stays deterministic)."""

    from_store: int = 0
    """Responses served by the run store (cache hits and resumed work)."""
    computed: int = 0
    """Responses computed by the backend in this invocation."""
    errors: int = 0
    """Requests that failed after all retries (retried on the next run)."""
    seconds: float = 0.0
    """Wall-clock time of the run."""
    judge_from_store: int = 0
    """Judge calls (free-text grading) served by the run store; not counted above."""
    judge_computed: int = 0
    """Judge calls computed in this invocation; not counted above."""
    judge_errors: int = 0
    """Judge calls that failed after all retries; not counted above."""

    def summary(self, n_items: int) -> str:
        """``16 items, 0 from the store, 16 computed, 0 errors; judge: 4 calls (…), 0.3s``:
        model responses and judge calls are counted apart."""
        made = self.from_store + self.computed + self.errors
        calls = "" if made == n_items else f" ({made} model requests)"
        text = (f"{n_items} items{calls}, {self.from_store} from the store, {self.computed} "
                f"computed, {self.errors} errors")
        judged = self.judge_from_store + self.judge_computed + self.judge_errors
        if judged:
            text += (f"; judge: {judged} calls ({self.judge_from_store} from the store, "
                     f"{self.judge_computed} computed, {self.judge_errors} errors)")
        return f"{text}, {self.seconds:.1f}s"


@dataclass(frozen=True)
class RunResult:
    """The evaluation of one dataset by one model."""

    suite: str
    """The suite name (protocol and metrics)."""
    dataset: str
    """The dataset's name from its card."""
    model: str
    """The backend spec."""
    n_items: int
    """Items evaluated."""
    metrics: dict[str, Any]
    """The suite's metrics."""
    spec: dict[str, Any]
    """Everything needed to reproduce the run (suite, data hashes, backend, protocol, versions)."""
    samples: list[Sample] = field(default_factory=list, compare=False)
    """Per-item records."""
    execution: Execution = field(default_factory=Execution, compare=False)
    """Cache hits, computed responses, errors, time."""

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` entry."""
        return {"suite": self.suite, "dataset": self.dataset, "model": self.model,
                "n_items": self.n_items, "metrics": self.metrics, "spec": self.spec}


def load_runs(folder: str | Path) -> list[RunResult]:
    """Read a run folder written by ``whatif run`` (``results.json`` + ``samples.jsonl``)."""
    folder = Path(folder)
    results = folder / "results.json"
    if not results.is_file():
        raise WhatifError(
            f"{folder} holds no results.json; pass a folder written by 'whatif run --out'."
        )
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
        entries = data["runs"]
    except (ValueError, KeyError, TypeError) as exc:
        raise WhatifError(f"{results} is not a whatifbench results file ({exc}).") from None
    samples: dict[tuple[str, str], list[Sample]] = {}
    path = folder / "samples.jsonl"
    if path.is_file():
        names = {f.name for f in fields(Sample)}
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                sample = Sample(**{k: v for k, v in obj.items() if k in names})
            except (ValueError, TypeError) as exc:
                raise WhatifError(f"{path}:{lineno} is not a sample record ({exc}).") from None
            samples.setdefault((obj.get("dataset"), obj.get("model")), []).append(sample)
    runs = []
    shared = Counter((e["dataset"], e["model"]) for e in entries)
    for e in entries:
        # Runs of one model on one dataset (other protocols or arguments, merged reports) each
        # take their own n_items samples, in run order.
        key = (e["dataset"], e["model"])
        pool = samples.get(key, [])
        mine = pool[:e["n_items"]] if shared[key] > 1 else pool[:]
        del pool[:len(mine)]
        runs.append(RunResult(suite=e["suite"], dataset=e["dataset"], model=e["model"],
                              n_items=e["n_items"], metrics=e["metrics"],
                              spec=e.get("spec", {}), samples=mine))
    return runs
