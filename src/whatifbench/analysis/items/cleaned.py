"""Scores on a cleaned version of a dataset beside the original: each run's samples scored again
against the reviewed keys (items left out of the cleaned version dropped), with the suite's own
metrics — no model is asked again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from whatifbench.analysis.items.responses import load_respondents
from whatifbench.core.dataset import Dataset
from whatifbench.core.suite import suite_for
from whatifbench.core.table import Cell, Table, signed
from whatifbench.errors import WhatifError
from whatifbench.review.keys import NOTE
from whatifbench.runner.results import RunResult


def check_cleaned(original: Dataset, cleaned: Dataset) -> str | None:
    """Refuse a ``cleaned`` dataset that is not a reviewed version of ``original``; a note when
    it does not record which dataset it was reviewed from (a dataset kind's own sheet, whose
    generator is ``review:NAME``: items are then matched by id)."""
    note = cleaned.card.extra.get(NOTE)
    if isinstance(note, dict) and note.get("from_items_sha256"):
        if note["from_items_sha256"] != original.items_sha256:
            raise WhatifError(
                f"{cleaned.root} was reviewed from another dataset (items sha256 "
                f"{str(note['from_items_sha256'])[:12]}…) than {original.root} "
                f"({original.items_sha256[:12]}…); pass the dataset it was reviewed from.")
        return None
    reviewer = str((cleaned.card.generator or {}).get("name") or "")
    if cleaned.suite != original.suite or not reviewer.startswith("review:"):
        raise WhatifError(f"{cleaned.root} ({cleaned.card.name}, suite {cleaned.suite}) is not a "
                          f"reviewed version of {original.root} ({original.card.name}, suite "
                          f"{original.suite}); pass the dataset 'whatif review import' wrote.")
    return (f"{cleaned.root} does not record which dataset it was reviewed from; its items are "
            "matched to the runs' by id.")


def rescore(run: RunResult, cleaned: Dataset) -> RunResult:
    """``run`` scored against ``cleaned``'s keys, without the items it left out."""
    suite = suite_for(cleaned.suite)
    items = {i.id: i for i in cleaned.items}
    samples = []
    for s in run.samples:
        item = items.get(s.item_id)
        if item is None:
            continue
        if item.target != s.target and s.correct is not None:
            s = replace(s, target=item.target, correct=suite.is_correct(item, s.prediction))
        samples.append(s)
    asked = [items[s.item_id] for s in samples]
    return replace(run, samples=samples, n_items=len(samples),
                   metrics=suite.metrics(samples, asked) if samples else {})


def cleaned_table(original: Dataset, cleaned: Dataset, folders: Sequence[str | Path]) -> Table:
    """Each model run's headline on the original and on the cleaned version."""
    note = check_cleaned(original, cleaned)
    suite = suite_for(original.suite)
    rows = []
    for r in load_respondents(original, folders, []):
        if r.kind == "majority":
            continue
        before = suite.headline(r.run.metrics)
        after = suite.headline(rescore(r.run, cleaned).metrics)
        delta = (None if before.value is None or after.value is None
                 else after.value - before.value)
        rows.append((r.label, Cell(before.value, ci=before.ci), Cell(after.value, ci=after.ci),
                     "–" if delta is None else signed(delta, 1)))
    reviewed = cleaned.card.extra.get(NOTE)
    notes = [(f"{suite.headline_name}: on {original.card.name} {original.card.version} as "
              f"released, and on the cleaned version {cleaned.card.version} ({cleaned.root}): "
              "the same replies scored again against the reviewed keys, the items left out "
              "dropped; no model was asked again.")]
    if isinstance(reviewed, dict) and reviewed.get("note"):
        notes.append(str(reviewed["note"]))
    if note:
        notes.append(note)
    return Table(f"Original vs cleaned: {original.card.name}",
                 ("model", "original", "cleaned", "Δ (points)"), tuple(rows),
                 notes=tuple(notes))
