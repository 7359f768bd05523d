"""The types of a run's metrics (``results.json`` → ``runs[i].metrics``).

Metrics are the suite's own data, kept as the JSON object ``Suite.metrics`` returns; what each
key holds is declared by the suite as a ``TypedDict`` (``SuiteFacts.metrics_schema``) built from
these parts, so a file whose metrics hold a value of the wrong type or out of range is refused
when it is read, naming the field, instead of failing in a table. Keys a schema does not name
are read as any JSON value (a plugin's own, a later version's)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from whatifbench.core.records.schema import ORDERED, Range
from whatifbench.core.records.spec import Count, Percent

Points = Annotated[float, Range(-100, 100)]
"""A difference of two percentages, in points."""
Probability = Annotated[float, Range(0, 1)]
"""A p-value or a share in [0, 1]."""
Correlation = Annotated[float, Range(-1, 1)]
"""A correlation (phi)."""
Interval = Annotated[tuple[float, float], ORDERED]
"""A 95 % interval ``[low, high]`` (kept as the array it was read as)."""
NonNegative = Annotated[float, Range(0, None)]
"""A number ≥ 0 (a sum of percentages, a mean on a scale from 0)."""


class Seconds(TypedDict, total=False):
    """Time per item of a human annotator."""

    median: NonNegative | None
    mean: NonNegative | None
    total: NonNegative | None
    n: Count


class HumanMetrics(TypedDict, total=False):
    """``metrics.human`` of a human run (``whatif human``): answers, unsure ones, time, and the
    group's agreement."""

    annotator: str
    annotators: list[str]
    answers: Count
    unsure: Count
    ties: Count
    too_few_answers: Count
    seconds: Seconds
    alpha: dict[str, Any]
    by_slice: dict[str, Any]
    item_agreement: dict[str, Any]
    group: dict[str, Any]


ProgramShares = TypedDict("ProgramShares", {
    "failed": Percent | None, "compile": Percent | None, "raise": Percent | None,
    "timeout": Percent | None, "n_items": Count, "n_failed": Count, "n_compile": Count,
    "n_raise": Count, "n_timeout": Count}, total=False)
"""Shares of items whose generated program failed, by kind (``raise`` is a keyword: the
functional form)."""


class ProgramMetrics(ProgramShares, total=False):
    """``metrics.program`` of a program backend's run."""

    by_role: dict[str, ProgramShares]


class EstimateMetric(TypedDict, total=False):
    """``metrics.estimate`` of a budgeted run (the spec's estimate, repeated)."""

    kind: str
    value: Percent | None
    interval: Interval | None
    items: Count
    dataset_items: Count
    method: str
    metric: str
    scoring_unit: str
    bank: str
    interval_method: str


class Metrics(TypedDict, total=False):
    """What every suite's metrics may hold, with the same meaning in all of them: the share
    right, the unparsed share, counts, each interval and its method, and the parts whatif
    adds (programs, estimates, people)."""

    accuracy: Percent | None
    unparsed: Percent | None
    n_items: Count
    n_unparsed: Count
    n_errors: Count
    ci95: dict[str, Interval | None]
    ci95_method: dict[str, str]
    program: ProgramMetrics
    estimate: EstimateMetric
    human: HumanMetrics


class GroupAccuracy(TypedDict, total=False):
    """A group's accuracy and size (CELLO's ``by_rung`` …, the default figure's groups)."""

    accuracy: Percent | None
    n: Count


class PairedMetrics(TypedDict, total=False):
    """``metrics.paired.paired_metrics``: a paired suite's accuracies per role, the drop, the
    pair accuracy (the role names are the suite's: see its own schema)."""

    drop: Points | None
    pair_accuracy: Percent | None
    unparsed: Percent | None
    n_pairs: Count
    n_items: Count
    n_by_role: dict[str, Count]
    n_unparsed: Count
    n_errors: Count
    ci95: dict[str, Interval | None]
    ci95_method: dict[str, str]
    drop_mcnemar_p: Probability | None
