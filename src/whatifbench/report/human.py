"""Human rows in reports: people's runs (``whatif human``) come after the models in every table,
and three tables of their own follow the suite's: the human baseline (each annotator and the
majority on the suite's headline metric, unsure answers, seconds per item), agreement between
annotators (Krippendorff's alpha overall and per slice), and the best model against the humans
on the items both answered, with Newcombe's paired interval."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from whatifbench.core.suite import suite_for
from whatifbench.core.table import Cell, Table, signed
from whatifbench.metrics.paired import compare
from whatifbench.report.comparisons import fmt_p
from whatifbench.report.labels import is_human, labeller, model_name
from whatifbench.report.overview import headline
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
    majority = next((r for r in people if _majority(r)), None)
    group = (majority.metrics.get("human", {}) if majority is not None else
             next((r.metrics["human"]["group"] for r in people
                   if "group" in r.metrics.get("human", {})), None))
    if group and "alpha" in group:
        tables.append(agreement_table(group, people[0].dataset, majority is not None))
    models = [r for r in runs if not is_human(r)]
    versus = versus_table(models, [majority] if majority is not None else people, runs)
    if versus is not None:
        tables.append(versus)
    return tables


def _seconds(run: RunResult) -> str:
    median = (run.metrics.get("human", {}).get("seconds") or {}).get("median")
    return "–" if median is None else f"{median:.1f}"


def _left_out(h: dict[str, Any]) -> str:
    """The majority row's note: items without a majority answer."""
    return (f"{h.get('ties', 0)} ties, {h.get('too_few_answers', 0)} with fewer than "
            "3 answers: left out")


def baseline_table(people: Sequence[RunResult]) -> Table:
    """Each annotator and, with three or more, the majority: answers, headline metric, unsure,
    seconds per item."""
    name = headline(people[0])[2]
    majority = any(_majority(r) for r in people)
    group = next((h.get("alpha") or (h.get("group") or {}).get("alpha") for r in people
                  if (h := r.metrics.get("human", {})).get("alpha")
                  or (h.get("group") or {}).get("alpha")), None) or {}
    alpha = next((a["alpha"] for a in group.values() if a.get("alpha") is not None), None)
    rows = []
    for run in people:
        value, ci, _ = headline(run)
        h = run.metrics.get("human", {})
        # the group's alpha on the majority row, or on every person's when there is none
        shown = alpha if (not majority or "unsure" not in h) else None
        rows.append((model_name(run), str(run.n_items), Cell(value, ci=ci),
                     str(h.get("unsure", "–")) if "unsure" in h else _left_out(h),
                     _seconds(run), "–" if shown is None else f"{shown:.3f}"))
    first = ("One row per annotator, then the majority answer of each item that three or more "
             "people answered (ties and items with fewer answers are left out of that row, "
             "never counted as wrong); scored by the suite's own parser and metrics."
             if majority else
             "One row per annotator, scored by the suite's own parser and metrics; with fewer "
             "than three people answering an item there is no majority to show (with two, any "
             "disagreement would be a tie), so each person is shown with their agreement.")
    return Table(f"Human baseline: {people[0].dataset}",
                 ("annotator", "answers", name, "unsure (majority: left out)", "median s/item",
                  "alpha"), tuple(rows),
                 notes=(first,
                        ("alpha: Krippendorff's alpha over the annotators (nominal; interval for "
                         "number answers); unsure answers count as missing.")))


def _alpha_cells(found: dict[str, Any]) -> tuple[str, ...]:
    out = []
    for level in ("nominal", "interval"):
        a = found.get(level)
        out += (["–", "–"] if a is None else
                [str(a["items"]), "–" if a["alpha"] is None else f"{a['alpha']:.3f}"])
    return tuple(out)


def agreement_table(h: dict[str, Any], dataset: str, majority: bool) -> Table:
    """Krippendorff's alpha overall and per slice (group, role), with items counted."""
    rows = [("all items", *_alpha_cells(h.get("alpha") or {}))]
    for field, values in (h.get("by_slice") or {}).items():
        rows += [(f"{field}: {value}", *_alpha_cells(found)) for value, found in values.items()]
    agree = h.get("item_agreement") or {}
    mean = agree.get("mean")
    where = ("in samples.jsonl (meta.human of the majority row)" if majority else
             "in results.json (metrics.human.group of the first annotator's run)")
    notes = ((f"{len(h.get('annotators', []))} annotators. Items = items with two or more "
              "readable answers."),
             ("Agreement per item (the share of an item's answers that give its most frequent "
             f"answer): mean {'–' if mean is None else f'{100 * mean:.1f}%'} over "
             f"{agree.get('items', 0)} items, {agree.get('unanimous', 0)} unanimous; {where}."))
    return Table(f"Agreement between annotators: {dataset}",
                 ("slice", "items (nominal)", "alpha nominal", "items (interval)",
                  "alpha interval"), tuple(rows), notes=notes)


def outcomes(run: RunResult) -> dict[str, bool]:
    """Per scoring unit of the run's suite (``Suite.unit_outcomes``), right or wrong."""
    return suite_for(run.suite).unit_outcomes(run.samples)


def versus_table(models: Sequence[RunResult], people: Sequence[RunResult],
                 every: Sequence[RunResult]) -> Table | None:
    """The best model (by the headline metric; an estimate's by its estimated full score)
    against the people (the majority, or each annotator when there is none) on the units both
    answered: accuracies, the difference model − humans with Newcombe's 95 % paired interval
    and the exact McNemar p-value (``metrics.paired.compare``). No test is made over units an
    old adaptive budget chose by their answers (a comparison on them would be biased)."""
    scored = [(value, r) for r in models if r.samples
              and (value := headline(r)[0]) is not None]
    if not scored:
        return None
    best = max(scored, key=lambda x: x[0])[1]
    label = labeller(every)
    unit = suite_for(best.suite).scoring_unit
    notes = [(f"Best model by {headline(best)[2]}; compared on the {unit} both answered. The "
              "interval is Newcombe's 95% paired interval (metrics.intervals).")]
    found = best.spec.estimate
    if found is not None and found.method == "adaptive":
        notes.append(f"{label(best)} asked items chosen by its own answers (an adaptive "
                     "budget of an earlier version): no paired test is made on them; compare "
                     "its estimated full score and interval with the people's score instead.")
        return Table(f"Best model vs humans: {best.dataset}", ("comparison",), (),
                     notes=tuple(notes))
    if found is not None:
        notes.append(f"{label(best)} is an estimate: the comparison is over the {unit} its "
                     "budget drew (at random within strata), not the whole suite.")
    mine = outcomes(best)
    rows = []
    for humans in people:
        theirs = outcomes(humans)
        shared = [k for k in mine if k in theirs]
        if not shared:
            continue
        c = compare([mine[k] for k in shared], [theirs[k] for k in shared], shared)
        lo, hi = (float(x) for x in c["ci95"])
        rows.append((f"{label(best)} vs {model_name(humans)}", str(len(shared)),
                     Cell(c["accuracy_a"]), Cell(c["accuracy_b"]),
                     Cell(c["difference"], ci=(lo, hi)), f"{signed(lo)} to {signed(hi)}",
                     fmt_p(c["mcnemar_p"])))
    if not rows:
        return None
    if len(people) > 1:
        notes.append("No majority of three or more people: the model is compared with each "
                     "annotator.")
    return Table(f"Best model vs humans: {best.dataset}",
                 ("comparison", unit, "model %", "humans %", "model − humans", "95% interval",
                  "McNemar p"), tuple(rows), notes=tuple(notes))


def _majority(run: RunResult) -> bool:
    """The run is people's majority answer."""
    return run.spec.human is not None and run.spec.human.majority
