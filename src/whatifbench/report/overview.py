"""Overview figures of a group of runs over one dataset: the model ranking on the suite's
headline metric, the "believes its eyes" share, and visible counts of parse failures and errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.suite import Sample, suite_for
from whatifbench.report.labels import is_human
from whatifbench.runner.results import RunResult, backend_failed


def headline(run: RunResult) -> tuple[float | None, tuple[float, float] | None, str]:
    """The run's ranking value, its 95 % interval and the metric's name, as its suite defines
    its headline (``Suite.headline``)."""
    found = suite_for(run.suite).headline_score(run)  # a budgeted run: its estimated full score
    if found.is_estimate:
        return found.value, found.interval, f"{found.name}, estimated where marked"
    return found.value, found.interval, found.name


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


def believes_eyes(samples: Sequence[Sample], items: dict[str, dict[str, Any]],
                  roles: tuple[str, str] | None) -> dict[str, Any]:
    """Counterfactual errors that repeat the first question's answer (``roles``: the suite's
    ``pair_roles``), over the pairs where that is informative: ``{"k": repeated, "n": errors
    considered, "share": %}`` (``n`` is 0 when no pair is informative, e.g. two-option or
    yes/no items, or the suite is not paired)."""
    if roles is None:
        return {"k": 0, "n": 0, "share": None}
    first_role, cf_role = roles
    by_role: dict[str, dict[str, Sample]] = {first_role: {}, cf_role: {}}
    for s in samples:  # the last sample of each role in a pair counts
        if s.pair_id is not None and s.role in by_role:
            by_role[s.role][s.pair_id] = s
    n = k = 0
    for pair, cf in by_role[cf_role].items():
        if cf.correct is not False:
            continue
        first = by_role[first_role].get(pair)
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
