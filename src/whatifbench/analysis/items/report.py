"""``item_report``: every item's statistics and suspect flags, ranked (the object ``whatif items
--json`` writes), and the IRT fit of the runs when there are enough of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.analysis.items.flags import Evidence, flag_item
from whatifbench.analysis.items.irt import Fit, fit_2pl
from whatifbench.analysis.items.keys import answer_value, key_doubts, normalise
from whatifbench.analysis.items.precision import key_flag_note, strength
from whatifbench.analysis.items.responses import (
    Respondent,
    UnitMatrix,
    load_respondents,
    unit_matrix,
)
from whatifbench.analysis.items.stats import item_counts, point_biserial, run_accuracy
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.suite import suite_for

MIN_IRT = 20
"""Voting runs (models with their images, and people) needed to fit a 2PL."""
STRONG = 0.8
"""A model run whose share right is at least this is a strong run."""


@dataclass(frozen=True)
class IrtFit:
    """The 2PL fit of the scoring units, or why there is none."""

    fitted: bool
    """Whether it was fitted."""
    respondents: int
    """Voting runs available."""
    reason: str | None
    """Why it was not fitted."""
    params: dict[str, tuple[float, float]]
    """(a, d) per scoring unit."""
    matrix: UnitMatrix | None
    """The outcomes it was fitted on."""
    fit: Fit | None = None
    """The fit itself (the item bank is made from it)."""


def fit_units(dataset: Dataset, respondents: Sequence[Respondent]) -> IrtFit:
    """The 2PL of the dataset's scoring units, when ``MIN_IRT`` voting runs are given."""
    suite = suite_for(dataset.suite)
    matrix = unit_matrix(suite, dataset, respondents)
    n = len(matrix.respondents)
    if n < MIN_IRT:
        return IrtFit(False, n, (
            f"IRT needs at least {MIN_IRT} runs that answered the items (models with their "
            f"images, and people; not the majority or ablated runs); {n} "
            f"{'was' if n == 1 else 'were'} given, so "
            "difficulty and discrimination are the classical ones (share right, point-biserial)"
            ), {}, matrix)
    if not matrix.units:
        return IrtFit(False, n, "no run scored any unit", {}, matrix)
    fit = fit_2pl(matrix.right, matrix.observed)
    params = {u: (float(fit.a[k]), float(fit.d[k])) for k, u in enumerate(matrix.units)}
    return IrtFit(True, n, None, params, matrix, fit)


def computed_keys(dataset: Dataset) -> set[str]:
    """Items whose key their own program computed: items of a registered generator
    (``whatif generate``) that record the program (``provenance.program``), whose key is the
    answer it recorded (when it records one) and that no review changed
    (``provenance.review``). The key model doubts them only on evidence that would overturn a
    program."""
    from whatifbench.core.registry import listing

    generators = {e.name for e in listing("generator")}
    made = str(dataset.card.generator.get("name")) in generators
    return {item.id for item in dataset.items
            if (made or item.provenance.get("generator") in generators)
            and item.provenance.get("program") is not None and "review" not in item.provenance
            and ("answer" not in item.provenance
                 or normalise(str(item.provenance["answer"])) == normalise(item.target))}


def _blind_slices(dataset: Dataset, notes: list[str]) -> list[dict[str, Any]]:
    """The audit's slices of this dataset (``notes`` says when it has not been run)."""
    from whatifbench.analysis.audit.store import load_audit

    audit = load_audit(dataset.items_sha256)
    if audit is None:
        notes.append(f"No 'answerable blind' flags: {dataset.root} has not been audited; run "
                     f"'whatif audit {dataset.root}' and then 'whatif items' again.")
        return []
    return [s for s in audit.get("slices") or [] if isinstance(s, dict)]


def item_report(dataset: str | Path | Dataset, runs: Sequence[str | Path]) -> dict[str, Any]:
    """Per item statistics and flags of ``dataset`` from the run folders ``runs`` (see
    docs/item-quality.md), suspects first, most serious first."""
    ds = dataset if isinstance(dataset, Dataset) else load_dataset(dataset, check_images=False)
    notes: list[str] = []
    return analyse(ds, load_respondents(ds, runs, notes), notes)[0]


def analyse(ds: Dataset, respondents: Sequence[Respondent], notes: list[str]
            ) -> tuple[dict[str, Any], IrtFit]:
    """``item_report`` of runs already loaded (``notes``: what loading them said), and the
    2PL fit of the scoring units (the item bank is made from it)."""
    notes = list(notes)
    suite = suite_for(ds.suite)
    voters = [r for r in respondents if r.votes]
    accuracy = {r.label: run_accuracy(r) for r in respondents}
    strong = [r for r in respondents if r.kind == "model" and (accuracy[r.label] or 0) >= STRONG]
    items = list(ds.items)
    counts = item_counts(items, respondents)
    pbis = point_biserial(respondents, items)
    doubts = key_doubts(items, [{s.item_id: answer_value(s) for s in r.run.samples}
                                for r in voters],
                        suite.systematic_distractors(items), computed_keys(ds))
    guesses = suite.guesses(items)
    chance = (sum(1.0 / len(g) for g in guesses.values() if g) / len(guesses)
              if guesses else 1.0)
    kind = strength([a for r in voters if (a := accuracy[r.label]) is not None], chance)
    shown, key_note = key_flag_note(len(voters), kind)
    notes.append(key_note)
    irt = fit_units(ds, respondents)
    if irt.reason:
        notes.append(f"{irt.reason}.")
    blind = _blind_slices(ds, notes)
    strong_answers = [r.samples() for r in strong]
    rows = []
    for order, item in enumerate(items):
        unit = item.id if item.id in irt.params else item.unit
        evidence = Evidence(
            item=item, counts=counts[item.id], pbis=pbis[item.id], doubt=doubts.get(item.id),
            irt=irt.params.get(unit), irt_unit=unit if unit in irt.params else None,
            strong=[(r.label, answer_value(got[item.id]) if item.id in got else None)
                    for r, got in zip(strong, strong_answers, strict=True)],
            blind=blind, key_flags=shown)
        rows.append((order, flag_item(evidence)))
    rows.sort(key=lambda r: (not r[1]["suspect"], -r[1]["severity"],
                             -(r[1]["key_doubt"] or 0.0), r[0]))
    suspects = sum(r["suspect"] for _, r in rows)
    return {
        "dataset": {"name": ds.card.name, "suite": ds.suite, "path": str(ds.root),
                    "version": ds.card.version, "items_sha256": ds.items_sha256,
                    "items": len(items), "scoring_unit": suite.scoring_unit},
        "runs": [{"label": r.label, "kind": r.kind, "model": r.run.model, "folder": r.folder,
                  "items": r.run.n_items, "share_right": accuracy[r.label],
                  "strong": r in strong} for r in respondents],
        "irt": {"fitted": irt.fitted, "respondents": irt.respondents, "reason": irt.reason,
                "units": len(irt.params)},
        "notes": notes,
        "summary": {"items": len(items), "suspect": suspects,
                    "by_reason": _by_reason([r for _, r in rows])},
        "items": [r for _, r in rows],
    }, irt


def _by_reason(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    found: dict[str, int] = {}
    for row in rows:
        for code in row["codes"]:
            found[code] = found.get(code, 0) + 1
    return dict(sorted(found.items()))

