"""The runs given to ``whatif items``, checked against the dataset and sorted by what they are:
model runs, image-ablated model runs, people (one run per annotator) and the people's majority.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from whatifbench.core.dataset import Dataset
from whatifbench.core.suite import Sample, Suite
from whatifbench.errors import WhatifError
from whatifbench.report.labels import is_human, model_name, run_labels
from whatifbench.runner.results import RunResult

KINDS = ("model", "ablated", "human", "majority")
"""What a respondent is."""


@dataclass(frozen=True)
class Respondent:
    """One run given, as ``whatif items`` counts it."""

    label: str
    """The run's row label in reports (``report.labels.run_labels``)."""
    name: str
    """The model's display name, or the annotator's."""
    kind: str
    """One of ``KINDS``."""
    run: RunResult
    """The run."""
    folder: str
    """The run folder it was read from."""

    @property
    def votes(self) -> bool:
        """Its answers count as evidence about keys and difficulty (models with their images,
        and each person; not the majority, which repeats the people, nor ablated runs)."""
        return self.kind in ("model", "human")

    def samples(self) -> dict[str, Sample]:
        """Its samples by item id (the last one of an item counts)."""
        return {s.item_id: s for s in self.run.samples}


def _kind(run: RunResult) -> str:
    if is_human(run):
        return "majority" if run.spec.human is not None and run.spec.human.majority \
            else "human"
    return "ablated" if run.spec.image_ablation is not None else "model"


def load_respondents(dataset: Dataset, folders: Sequence[str | Path],
                     notes: list[str]) -> list[Respondent]:
    """Every run of ``folders`` (a folder may hold several runs; a run given twice counts once,
    and ``notes`` says so), refusing with a sentence runs of another dataset."""
    from whatifbench.report.sources import load_sources

    if not folders:
        raise WhatifError("'whatif items' needs at least one run folder after the dataset "
                          "(written by 'whatif run --out' or 'whatif human import/export').")
    for folder in folders:
        if (Path(folder) / "card.json").is_file():
            raise WhatifError(f"{folder} is a dataset folder, not a run folder; name the dataset "
                              "once, first, and then run folders (whatif items DATASET RUN...).")
    sources = load_sources(folders, notes)
    for src in sources:
        recorded = src.run.spec.items_sha256
        if recorded != dataset.items_sha256:
            shown = f"items sha256 {str(recorded)[:12]}…" if recorded else "no items hash"
            path = src.run.spec.dataset_path or src.run.dataset
            raise WhatifError(
                f"The run of {src.run.model} in {src.folder} was made on another dataset "
                f"({src.run.dataset} at {path}, {shown}) than {dataset.root} (items sha256 "
                f"{dataset.items_sha256[:12]}…); its answers would be compared with the wrong "
                "keys. Pass only runs of this dataset, or the dataset those runs were made on.")
    runs = [s.run for s in sources]
    labels = run_labels(runs)
    return [Respondent(label, model_name(src.run), _kind(src.run), src.run, src.folder or "")
            for src, label in zip(sources, labels, strict=True)]


@dataclass(frozen=True)
class UnitMatrix:
    """Right/wrong of the voting respondents on the suite's scoring units."""

    units: tuple[str, ...]
    """Scoring unit ids (``Suite.unit_outcomes`` keys), in dataset order."""
    respondents: tuple[Respondent, ...]
    """The rows."""
    right: np.ndarray
    """1 where the row got the unit right."""
    observed: np.ndarray
    """True where the row has an outcome for the unit."""


def unit_matrix(suite: Suite, dataset: Dataset, respondents: Sequence[Respondent]
                ) -> UnitMatrix:
    """The scoring-unit outcomes of every voting respondent (rows) in dataset order."""
    voters = [r for r in respondents if r.votes]
    outcomes = [suite.unit_outcomes(r.run.samples) for r in voters]
    order = {u: k for k, u in enumerate(unit_order(dataset))}
    found = sorted({u for o in outcomes for u in o}, key=lambda u: (order.get(u, len(order)), u))
    column = {u: k for k, u in enumerate(found)}
    right = np.zeros((len(voters), len(found)), dtype=int)
    observed = np.zeros((len(voters), len(found)), dtype=bool)
    for row, got in enumerate(outcomes):
        for unit, ok in got.items():
            right[row, column[unit]] = int(ok)
            observed[row, column[unit]] = True
    return UnitMatrix(tuple(found), tuple(voters), right, observed)


def unit_order(dataset: Dataset) -> list[str]:
    """Item ids and dealing-unit ids in dataset order (scoring units are one or the other)."""
    seen: dict[str, None] = {}
    for item in dataset.items:
        seen.setdefault(item.id)
        seen.setdefault(item.unit)
        if item.pair_id is not None:
            seen.setdefault(item.pair_id)
    return list(seen)


class Deals:
    """Where each scoring unit is asked: a scoring unit is an item (asked with its pair) or a
    pair (or group) id; built once per dataset."""

    def __init__(self, dataset: Dataset) -> None:
        self.root = dataset.root
        self.deal_of = {i.id: i.unit for i in dataset.items}
        self.members: dict[str, list[str]] = {}
        for item in dataset.items:
            self.members.setdefault(item.unit, []).append(item.id)
            if item.pair_id is not None and item.pair_id != item.unit:
                self.members.setdefault(item.pair_id, []).append(item.id)

    def of(self, unit: str) -> tuple[str, tuple[str, ...]]:
        """The dealing unit of a scoring unit and that dealing unit's items."""
        deal = self.deal_of.get(unit, unit)
        members = self.members.get(deal)
        if not members:
            raise WhatifError(f"A run scored a unit {json.dumps(unit)} that is neither an item "
                              f"nor a pair of {self.root}.")
        return deal, tuple(members)
