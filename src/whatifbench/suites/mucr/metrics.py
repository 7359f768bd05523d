"""MuCR metrics: C2E, E2C and Cue accuracy (%), Exp score (0–10), overall and by category and
style (MuCR Table 1 and Fig. 9), with 95 % intervals over items (Wilson for the accuracies, the
bounded-mean Wilson for Exp: ``metrics.intervals``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from whatifbench.core.suite import Sample
from whatifbench.metrics import intervals
from whatifbench.metrics.stats import percent
from whatifbench.suites.mucr.explanations import PARTS
from whatifbench.suites.mucr.prompts import CHOICE_METRICS, METRICS
from whatifbench.suites.mucr.records import CATEGORIES, STYLES


def _mean(values: Sequence[float]) -> float | None:
    return round(float(np.mean(values)), 2) if values else None


def core_metrics(samples: Sequence[Sample], with_ci: bool = True) -> dict[str, Any]:
    """The four metrics of a set of samples (``None`` for a metric with no items), counts and,
    with ``with_ci``, 95 % intervals (``ci95``, their methods in ``ci95_method``)."""
    by_metric = {m: [s for s in samples if s.group == m] for m in METRICS}
    out: dict[str, Any] = {}
    ci: dict[str, tuple[float, float] | None] = {}
    methods: dict[str, str] = {}
    for m in CHOICE_METRICS:
        hits = sum(bool(s.correct) for s in by_metric[m])
        out[m] = percent(hits, len(by_metric[m]))
        if with_ci and by_metric[m]:
            ci[m], methods[m] = intervals.share(hits, len(by_metric[m])), intervals.WILSON
    judged = [s for s in by_metric["exp"] if "not_judged" not in s.judgement]
    exp = np.array([s.score or 0.0 for s in judged], dtype=float)
    out["exp"] = _mean(list(exp))
    if with_ci and len(exp):
        ci["exp"], methods["exp"] = intervals.bounded_mean(exp, 0.0, 10.0), intervals.WILSON_MEAN
    out["exp_parts"] = {
        part: _mean([float(s.judgement.get("parts", {}).get(part, {}).get("score", 0.0))
                     for s in judged])
        for part in PARTS
    }
    skipped = [s for s in by_metric["exp"] if "not_judged" in s.judgement]
    out["exp_judged"] = not skipped
    if skipped:
        out["exp_not_judged"] = str(skipped[0].judgement["not_judged"])
    choice = [s for m in CHOICE_METRICS for s in by_metric[m]]
    out["n"] = {m: len(by_metric[m]) for m in METRICS}
    out["n_pairs"] = len({s.pair_id for s in samples})
    out["unparsed"] = percent(sum(s.unparsed for s in choice), len(choice))
    out["n_unparsed"] = sum(s.unparsed for s in samples)
    out["n_errors"] = sum(s.error is not None for s in samples)
    out["n_judge_failures"] = sum(int(s.judgement.get("judge_failures", 0))
                                  for s in by_metric["exp"])
    if with_ci:
        out["ci95"] = ci
        out["ci95_method"] = methods
    return out


def slices(values: Sequence[Any], known: Sequence[str]) -> list[str]:
    """The values present, the release's own (``known``) first in their order, then any other
    (e.g. mucr-synthetic's kinds of causality and drawing styles) sorted."""
    present = {str(v) for v in values if v is not None}
    return [v for v in known if v in present] + sorted(present - set(known))


def mucr_metrics(samples: Sequence[Sample]) -> dict[str, Any]:
    """Overall metrics plus ``by_category`` and ``by_style`` (slices present in the run)."""
    out = core_metrics(samples)
    for key, field, known in (("by_category", "category", CATEGORIES),
                              ("by_style", "style", STYLES)):
        out[key] = {
            v: core_metrics([s for s in samples if s.meta.get(field) == v])
            for v in slices([s.meta.get(field) for s in samples], known)
        }
    return out
