"""Run results: one entry of ``results.json`` plus its samples and execution counts."""

from __future__ import annotations

import json
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
    recorded_errors: int = field(default=0, compare=False)
    """``errors`` as read from ``results.json`` (used when the samples are not at hand)."""

    @property
    def n_errors(self) -> int:
        """Items that ended in a backend error (the model's or the judge's call failed after
        all retries): scored wrong, shown in every table, retried by the next run."""
        if self.samples:
            return sum(backend_failed(s) for s in self.samples)
        return self.recorded_errors

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` entry."""
        return {"suite": self.suite, "dataset": self.dataset, "model": self.model,
                "n_items": self.n_items, "errors": self.n_errors, "metrics": self.metrics,
                "spec": self.spec}


def backend_failed(sample: Sample) -> bool:
    """The item's model call failed, or a judge call grading it did (a judged suite marks those
    parts ``"failure": "judge-error"`` in ``judgement["parts"]``)."""
    if sample.error is not None:
        return True
    parts = sample.judgement.get("parts") if isinstance(sample.judgement, dict) else None
    return isinstance(parts, dict) and any(
        isinstance(p, dict) and p.get("failure") == "judge-error" for p in parts.values())


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
    return [
        RunResult(suite=e["suite"], dataset=e["dataset"], model=e["model"],
                  n_items=e["n_items"], metrics=e["metrics"], spec=e.get("spec", {}),
                  samples=samples.get((e["dataset"], e["model"]), []),
                  recorded_errors=int(e.get("errors") or 0))
        for e in entries
    ]
