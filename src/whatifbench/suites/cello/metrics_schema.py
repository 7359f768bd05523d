"""What CELLO's metrics hold (``results.json`` → ``runs[i].metrics``): accuracy overall and per
rung, task type, graph type and format; the distractors wrong answers chose; contrast sets."""

from __future__ import annotations

from typing import TypedDict

from whatifbench.core.records.metrics import GroupAccuracy, Interval, Metrics
from whatifbench.core.records.spec import Count, Percent


class DistractorKind(TypedDict, total=False):
    """Wrong answers that chose one kind of distractor."""

    count: Count
    share_of_errors: Percent | None
    rate: Percent | None


class DistractorErrors(TypedDict, total=False):
    """The kinds of option wrong multiple-choice answers picked."""

    n_items: Count
    n_errors: Count
    by_kind: dict[str, DistractorKind]


class ContrastBlock(TypedDict, total=False):
    """Contrast sets answered all right."""

    sets: Count
    all_right: Percent | None
    ci95: Interval | None
    ci95_method: str


class ContrastSets(ContrastBlock, total=False):
    """Contrast sets overall and per task type."""

    by_task_type: dict[str, ContrastBlock]


class CelloMetrics(Metrics, total=False):
    """CELLO's metrics."""

    by_rung: dict[str, GroupAccuracy]
    by_task_type: dict[str, GroupAccuracy]
    by_graph_type: dict[str, GroupAccuracy]
    by_format: dict[str, GroupAccuracy]
    distractor_errors: DistractorErrors
    contrast_sets: ContrastSets
    parser_agreement: Percent | None
