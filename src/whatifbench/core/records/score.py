"""The score record: one number a report shows, with everything needed to read it honestly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from whatifbench.core.records.spec import EstimateRef


@dataclass(frozen=True)
class Score:
    """A value with its 95 % interval and the interval's method, what it is over, and whether it
    is an estimate (and of what). Over nothing, ``value`` is ``None`` (shown ``–``), never 0."""

    value: float | None
    """The value (percent for shares, points for differences, the scale's units for means);
    ``None`` when there is nothing to compute it over."""
    interval: tuple[float, float] | None = None
    """Its 95 % interval, when there is one."""
    method: str | None = None
    """How the interval was made (``metrics.intervals`` names: ``wilson``, ``newcombe-paired``
    …; an estimate's design), ``None`` without an interval or when the file did not say."""
    n: int | None = None
    """How many units it is over, when known."""
    unit: str = "questions"
    """What ``n`` counts (the suite's scoring unit: ``questions``, ``pairs`` …)."""
    name: str = "accuracy (%)"
    """How the metric is named in tables."""
    estimate: EstimateRef | None = None
    """Set when ``value`` is an estimate of the full-suite score from a budgeted run's items
    (``whatif run --budget``): of how many items, from which bank, how."""

    @property
    def ci(self) -> tuple[float, float] | None:
        """``interval`` (the name of earlier versions' ``Headline``)."""
        return self.interval

    @property
    def is_estimate(self) -> bool:
        """The value is an estimate, not a measurement over every item."""
        return self.estimate is not None

    @property
    def known(self) -> bool:
        """There is a value to show."""
        return self.value is not None
