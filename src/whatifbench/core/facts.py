"""What a suite declares about itself, as data (``SuiteFacts``): the shared layers read these
facts instead of asking code, and the defaults of the suite contract follow from them: the
headline (what models are ranked by), the scoring unit (what model-vs-people and item
comparisons count), the pair roles, the metrics other tools report, the groups reported apart,
the rule of systematic distractors, the metrics' schema and the meta keys only whatif needs.

A suite gives them as ``facts = SuiteFacts(...)`` (or, as before, as class attributes:
``headline_metric``, ``headline_name``, ``scoring_unit``, ``pair_roles``, ``private_meta``,
``metrics_schema``; ``core.contract`` keeps both in step)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from whatifbench.core.records.metrics import Metrics

ACCURACY = "accuracy"
"""The metric every suite reports over all its scored items."""
PAIRED_METRICS = ("original_accuracy", "counterfactual_accuracy", "drop", "pair_accuracy")
"""What paired suites report (``metrics.paired.paired_metrics``), before accuracy."""
FIRST_ROLE = "first-role"
"""``distractors``: the second role's question is drawn to the first's answer (what a model
that believes its eyes, or ignores the premise, says)."""


@dataclass(frozen=True)
class SuiteFacts:
    """A benchmark's facts."""

    headline: str = ACCURACY
    """The key of ``metrics`` models are ranked by (a percentage)."""
    headline_name: str = "accuracy (%)"
    """How the headline metric is named in tables."""
    unit: str = "questions"
    """What one scoring unit is, in words (model-vs-humans tables, item banks)."""
    pair_roles: tuple[str, str] | None = None
    """The roles of a paired suite's two questions, first the one asked about the picture as it
    is (``original`` or ``basic``), then ``counterfactual``; ``None`` for unpaired suites."""
    scored_by: str = "item"
    """What a scoring unit is made of: ``item`` (each scored item) or ``pair`` (a pair is right
    when both its questions are)."""
    scored_roles: tuple[str, ...] | None = None
    """Only items of these roles are scoring units (``None``: every role)."""
    scored_groups: tuple[str, ...] | None = None
    """Only items of these groups are scoring units (``None``: every group)."""
    reported_metrics: tuple[str, ...] | None = None
    """The ``metrics`` keys other tools' tasks report (inspect_ai, lmms-eval); ``None``: the
    paired metrics for a paired suite, then accuracy and the unparsed share."""
    reported_groups: tuple[str, ...] = ()
    """Groups whose accuracy other tools' tasks report apart (those present in the items)."""
    distractors: str | None = FIRST_ROLE
    """The rule of systematic distractors (``FIRST_ROLE``: a paired suite's second question
    is drawn to the first's answer; ``None``: none)."""
    metrics_schema: Any = Metrics
    """What ``Suite.metrics`` returns, as a ``TypedDict`` (``core.records.metrics``): run
    folders are checked against it when read."""
    private_meta: tuple[str, ...] = ()
    """Keys of the items' ``meta`` that only whatifbench needs (answer-bearing or internal):
    exports leave them out unless asked, the inspect task never shows them, the audit does not
    read them as shown."""

    def default_reported(self, roles: Sequence[str | None]) -> tuple[str, ...]:
        """``reported_metrics``, or its default for items of ``roles``."""
        if self.reported_metrics is not None:
            return self.reported_metrics
        paired = self.pair_roles is not None and {*self.pair_roles} <= set(roles)
        return (*(PAIRED_METRICS if paired else ()), ACCURACY, "unparsed")


CLASS_FACTS = {"headline_metric": "headline", "headline_name": "headline_name",
               "scoring_unit": "unit", "pair_roles": "pair_roles",
               "private_meta": "private_meta", "metrics_schema": "metrics_schema"}
"""Class attributes of earlier versions' suites and the fact each one is."""
