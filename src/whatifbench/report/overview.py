"""Overview figures of a group of runs over one dataset: the model ranking on the suite's
headline metric, the "believes its eyes" share, and visible counts of parse failures and errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.suite import Sample
from whatifbench.report.labels import is_human
from whatifbench.runner.results import RunResult, backend_failed

HEADLINE = {"cvqa-synthetic": ("counterfactual_accuracy", "counterfactual accuracy (%)"),
            "cvqa-real": ("counterfactual_accuracy", "counterfactual accuracy (%)"),
            "cfmm": ("acc_plus", "acc+ (both questions of a pair right, %)"),
            "cello": ("accuracy", "accuracy (%)")}
"""Per suite: the metric models are ranked by, and how it is named."""
MUCR_MEAN = ("c2e", "e2c", "cue")
FIRST_ROLES = ("original", "basic")


def headline(run: RunResult) -> tuple[float | None, tuple[float, float] | None, str]:
    """The run's ranking value, its 95 % interval and the metric's name."""
    m = run.metrics
    if run.suite in HEADLINE:
        key, name = HEADLINE[run.suite]
        ci = m.get("ci95", {}).get(key)
        return m.get(key), (tuple(ci) if ci else None), name
    if run.suite == "mucr":
        values = [m[k] for k in MUCR_MEAN if m.get(k) is not None]
        mean = round(sum(values) / len(values), 2) if values else None
        return mean, None, "mean of C2E, E2C and Cue accuracy (%)"
    return m.get("accuracy"), None, "accuracy (%)"


def ranking(runs: Sequence[RunResult], labels: Sequence[str]) -> dict[str, Any]:
    """Runs best first on the headline metric (``None`` values last); people's runs (``whatif
    human``, marked ``human``) after the models, ranked among themselves."""
    rows: list[dict[str, Any]] = []
    name = ""
    for run, label in zip(runs, labels, strict=True):
        value, ci, name = headline(run)
        row = {"label": label, "value": value, "ci": list(ci) if ci else None}
        if is_human(run):
            row["human"] = True
        rows.append(row)
    rows.sort(key=lambda r: (bool(r.get("human")), r["value"] is None, -(r["value"] or 0.0)))
    return {"metric": name, "rows": rows}


def informative(first: dict[str, Any], cf: dict[str, Any]) -> bool:
    """Whether a wrong counterfactual answer could be the original answer without being
    forced to (free-form answers, or more than two options that include it)."""
    if first.get("target") == cf.get("target"):
        return False
    if cf.get("kind") == "choice":
        choices = cf.get("choices") or []
        return len(choices) > 2 and first.get("target") in choices
    return cf.get("kind") in ("number", "text")


def believes_eyes(samples: Sequence[Sample], items: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Counterfactual errors that repeat the original (CFMM: basic) question's answer, over the
    pairs where that is informative: ``{"k": repeated, "n": errors considered, "share": %}``
    (``n`` is 0 when no pair is informative, e.g. two-option or yes/no items)."""
    by_role: dict[str, dict[str, Sample]] = {r: {} for r in (*FIRST_ROLES, "counterfactual")}
    for s in samples:  # the last sample of each role in a pair counts
        if s.pair_id is not None and s.role in by_role:
            by_role[s.role][s.pair_id] = s
    firsts = [by_role[r] for r in FIRST_ROLES]
    n = k = 0
    for pair, cf in by_role["counterfactual"].items():
        if cf.correct is not False:
            continue
        first = next((f[pair] for f in firsts if pair in f), None)
        if first is None:
            continue
        a = items.get(first.item_id) or {"target": first.target, "kind": None}
        b = items.get(cf.item_id) or {"target": cf.target, "kind": None}
        if not informative(a, b):
            continue
        n += 1
        k += cf.prediction is not None and cf.prediction == first.target
    return {"k": k, "n": n, "share": round(100.0 * k / n, 2) if n else None}


def counts(samples: Sequence[Sample]) -> dict[str, int]:
    """Items, wrong answers, free-text answers no judge scored (neither right nor wrong), parse
    failures, backend errors and flagged replies."""
    wrong = not_judged = unparsed = errors = flagged = 0
    for s in samples:
        wrong += s.correct is False
        not_judged += s.correct is None and "not_judged" in s.judgement
        unparsed += s.unparsed
        errors += backend_failed(s)
        flagged += s.flag is not None and s.error is None
    return {"items": len(samples), "wrong": wrong, "not_judged": not_judged,
            "unparsed": unparsed, "errors": errors, "flagged": flagged}
