"""Human rows in reports: people's runs (``whatif human``) come after the models in every table,
and three tables of their own follow the suite's: the human baseline (each annotator and the
majority on the suite's headline metric, unsure answers, seconds per item), agreement between
annotators (Krippendorff's alpha overall and per slice), and the best model against the humans
on the items both answered, with a paired bootstrap interval."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from whatifbench.core.suite import suite_for
from whatifbench.metrics.paired import compare
from whatifbench.metrics.stats import mcnemar_exact
from whatifbench.report.comparisons import fmt_p
from whatifbench.report.labels import is_human, model_name
from whatifbench.report.overview import headline
from whatifbench.report.table import Cell, Table, signed
from whatifbench.runner.results import RunResult

NOTE = "Rows named human: … are people's answers (whatif human), shown after the models."

def humans_last(runs: Sequence[RunResult]) -> list[RunResult]:
    """The model runs, then the human runs, each in their order."""
    return [r for r in runs if not is_human(r)] + [r for r in runs if is_human(r)]


def note_humans(table: Table, runs: Sequence[RunResult]) -> Table:
    """``table`` with a note saying which rows are people, when any are."""
    if not any(is_human(r) for r in runs) or NOTE in table.notes:
        return table
    return dataclasses.replace(table, notes=(*table.notes, NOTE))


def human_tables(runs: Sequence[RunResult]) -> list[Table]:
    """The human tables of one dataset's runs (none without human runs)."""
    people = [r for r in runs if is_human(r)]
    if not people:
        return []
    tables = [baseline_table(people)]
    majority = next((r for r in people if "alpha" in r.metrics.get("human", {})), None)
    if majority is not None:
        tables.append(agreement_table(majority))
    models = [r for r in runs if not is_human(r)]
    versus = versus_table(models, majority or people[0])
    if versus is not None:
        tables.append(versus)
    return tables


def _seconds(run: RunResult) -> str:
    median = (run.metrics.get("human", {}).get("seconds") or {}).get("median")
    return "–" if median is None else f"{median:.1f}"


def baseline_table(people: Sequence[RunResult]) -> Table:
    """Each annotator and the majority: answers, headline metric, unsure, seconds per item."""
    name = headline(people[0])[2]
    rows = []
    for run in people:
        value, ci, _ = headline(run)
        h = run.metrics.get("human", {})
        alpha = (h.get("alpha") or {})
        shown = next((a["alpha"] for a in alpha.values() if a.get("alpha") is not None), None)
        rows.append((model_name(run), str(run.n_items), Cell(value, ci=ci),
                     str(h.get("unsure", "–")) if "unsure" in h else f"{h.get('ties', 0)} ties",
                     _seconds(run), "–" if shown is None else f"{shown:.3f}"))
    return Table(f"Human baseline: {people[0].dataset}",
                 ("annotator", "answers", name, "unsure (majority: ties)", "median s/item",
                  "alpha"), tuple(rows),
                 notes=(("One row per annotator, then the majority answer of each item (a tie "
                         "counts as no answer); scored by the suite's own parser and metrics."),
                        ("alpha: Krippendorff's alpha over the annotators (nominal; interval for "
                         "number answers); unsure answers count as missing.")))


def _alpha_cells(found: dict[str, Any]) -> tuple[str, ...]:
    out = []
    for level in ("nominal", "interval"):
        a = found.get(level)
        out += (["–", "–"] if a is None else
                [str(a["items"]), "–" if a["alpha"] is None else f"{a['alpha']:.3f}"])
    return tuple(out)


def agreement_table(majority: RunResult) -> Table:
    """Krippendorff's alpha overall and per slice (group, role), with items counted."""
    h = majority.metrics["human"]
    rows = [("all items", *_alpha_cells(h.get("alpha") or {}))]
    for field, values in (h.get("by_slice") or {}).items():
        rows += [(f"{field}: {value}", *_alpha_cells(found)) for value, found in values.items()]
    agree = h.get("item_agreement") or {}
    mean = agree.get("mean")
    notes = ((f"{len(h.get('annotators', []))} annotators. Items = items with two or more "
              "readable answers."),
             ("Agreement per item (the share of an item's answers that give its most frequent "
             f"answer): mean {'–' if mean is None else f'{100 * mean:.1f}%'} over "
             f"{agree.get('items', 0)} items, {agree.get('unanimous', 0)} unanimous; per item "
             "in samples.jsonl (meta.human of the majority row)."))
    return Table(f"Agreement between annotators: {majority.dataset}",
                 ("slice", "items (nominal)", "alpha nominal", "items (interval)",
                  "alpha interval"), tuple(rows), notes=notes)


def outcomes(run: RunResult) -> dict[str, bool]:
    """Per scoring unit of the run's suite (``Suite.unit_outcomes``), right or wrong."""
    return suite_for(run.suite).unit_outcomes(run.samples)


def versus_table(models: Sequence[RunResult], humans: RunResult) -> Table | None:
    """The best model (by the headline metric) against ``humans`` on the units both answered:
    accuracies, the difference model − humans with its 95 % paired bootstrap interval (units
    resampled together) and the exact McNemar p-value."""
    scored = [(value, r) for r in models if r.samples
              and (value := headline(r)[0]) is not None]
    if not scored:
        return None
    best = max(scored, key=lambda x: x[0])[1]
    mine, theirs = outcomes(best), outcomes(humans)
    shared = [k for k in mine if k in theirs]
    if not shared:
        return None
    c = compare([mine[k] for k in shared], [theirs[k] for k in shared], shared)
    p = mcnemar_exact(c["a_only"], c["b_only"])
    unit = suite_for(best.suite).scoring_unit
    lo, hi = (float(x) for x in c["ci95"])
    row = (f"{model_name(best)} vs {model_name(humans)}", str(len(shared)),
           Cell(c["accuracy_a"]), Cell(c["accuracy_b"]),
           Cell(c["difference"], ci=(lo, hi)), f"{signed(lo)} to {signed(hi)}", fmt_p(p))
    return Table(f"Best model vs humans: {best.dataset}",
                 ("comparison", unit, "model %", "humans %", "model − humans", "95% interval",
                  "McNemar p"),
                 (row,),
                 notes=((f"Best model by {headline(best)[2]}; compared on the {unit} both "
                         "answered. The interval is a 95% paired bootstrap (units resampled "
                         "together, metrics.stats.bootstrap_ci)."),))
