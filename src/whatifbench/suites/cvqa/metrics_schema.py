"""What C-VQA's metrics hold (``results.json`` → ``runs[i].metrics``): paired accuracies per
role over all items and per question type, and, for C-VQA-Real, each parser's."""

from __future__ import annotations

from whatifbench.core.records.metrics import Metrics, PairedMetrics
from whatifbench.core.records.spec import Count, Percent


class CvqaPaired(PairedMetrics, total=False):
    """Accuracy on the original and the counterfactual questions, the drop, pair accuracy."""

    original_accuracy: Percent | None
    counterfactual_accuracy: Percent | None


class CvqaGrouped(CvqaPaired, total=False):
    """The paired metrics and the same per question type (template, C-VQA-Real's type)."""

    by_group: dict[str, CvqaPaired]


class CvqaSyntheticMetrics(Metrics, CvqaGrouped, total=False):
    """C-VQA-Synthetic's metrics."""


class CvqaRealMetrics(CvqaSyntheticMetrics, total=False):
    """C-VQA-Real's metrics: C-VQA-Synthetic's, and each parser's with their disagreement."""

    parsers: dict[str, CvqaGrouped]
    parser_disagreement: Percent | None
    n_parser_disagreements: Count
    parser_disagreement_by_group: dict[str, Percent | None]
