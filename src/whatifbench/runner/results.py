"""Run results: one entry of ``results.json`` plus its samples and execution counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from whatifbench.core.suite import Sample


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

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` entry."""
        return {"suite": self.suite, "dataset": self.dataset, "model": self.model,
                "n_items": self.n_items, "metrics": self.metrics, "spec": self.spec}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RunResult:
        """A run read back from a ``results.json`` entry (without its samples)."""
        return cls(str(obj["suite"]), str(obj["dataset"]), str(obj["model"]),
                   int(obj["n_items"]), dict(obj["metrics"]), dict(obj["spec"]))
