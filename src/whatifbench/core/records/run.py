"""The run result record: one entry of ``results.json`` (suite, dataset, model, metrics, spec)
with its samples and execution counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from whatifbench.core.records.sample import Sample, backend_failed
from whatifbench.core.records.schema import SchemaError
from whatifbench.core.records.spec import RunSpec


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
    """The suite's metrics (checked against the suite's ``metrics_schema`` when read)."""
    spec: RunSpec
    """Everything needed to reproduce the run (suite, data hashes, backend, protocol,
    versions). A ``dict`` given here (earlier versions' API) is read into a ``RunSpec``."""
    samples: list[Sample] = field(default_factory=list, compare=False)
    """Per-item records."""
    execution: Execution = field(default_factory=Execution, compare=False)
    """Cache hits, computed responses, errors, time."""
    recorded_errors: int = field(default=0, compare=False)
    """``errors`` as read from ``results.json`` (used when the samples are not at hand)."""

    def __post_init__(self) -> None:
        if isinstance(self.spec, Mapping):
            try:
                spec = RunSpec.from_json(dict(self.spec))
            except SchemaError as exc:
                raise TypeError(f"RunResult's spec: {exc}") from None
            object.__setattr__(self, "spec", spec)

    @property
    def n_errors(self) -> int:
        """Items that ended in a backend error (the model's or the judge's call failed after
        all retries): scored wrong, shown in every table, retried by the next run."""
        if not self.samples:
            return self.recorded_errors
        memo = self.__dict__.get("_n_errors")  # tables ask many times; counted once per length
        if memo is None or memo[0] != len(self.samples):
            memo = (len(self.samples), sum(backend_failed(s) for s in self.samples))
            self.__dict__["_n_errors"] = memo  # a cache, not a field (the record stays frozen)
        return int(memo[1])

    @property
    def shown_name(self) -> str:
        """The name the run is shown under: ``--model NAME=SPEC``'s name, else the spec."""
        return self.spec.model_name or self.model

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` entry."""
        return {"suite": self.suite, "dataset": self.dataset, "model": self.model,
                "n_items": self.n_items, "errors": self.n_errors, "metrics": self.metrics,
                "spec": self.spec.to_json()}
