"""``whatif run --budget N --bank FILE``: evaluate about N items drawn by design with the item bank
as an assistant, and estimate the full-suite score with an interval that holds whatever the
model (``estimate``); the run's spec records the estimate (``spec.estimate``) and every table
and the explorer label the run as one (``marks``). A budget that buys every item is a full run,
not an estimate."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.analysis.items.bank import Bank, check_bank, load_bank
from whatifbench.analysis.items.estimate import Estimate, design, estimate
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.records.schema import parse
from whatifbench.core.records.spec import EstimateRef, Selection
from whatifbench.errors import WhatifError
from whatifbench.runner.budget import Budget

if TYPE_CHECKING:
    from whatifbench.core.dataset import Dataset
    from whatifbench.core.protocol import Protocol
    from whatifbench.models.base import Backend
    from whatifbench.runner.evaluate import RunOptions
    from whatifbench.runner.results import RunResult
    from whatifbench.runner.store import RunStore

def _check(options: RunOptions) -> None:
    if options.limit is not None or options.subset is not None:
        raise WhatifError("--budget chooses the items itself from the bank; leave out --limit "
                          "and --subset.")


def prepare(dataset: Dataset, budget: Budget) -> Bank:
    """The bank of a budgeted run, checked against ``dataset`` before any model call: fitted
    on this dataset, and describing exactly its units."""
    bank = load_bank(budget.bank)
    check_bank(bank, budget.bank, dataset.items_sha256, str(dataset.root))
    items_of: dict[str, list[str]] = {}
    for item in dataset.items:
        if any(i.kind != "text" for i in dataset.items if i.unit == item.unit):
            items_of.setdefault(item.unit, []).append(item.id)
    described = {u.deal: sorted(u.items) for u in bank.units}
    if described != {deal: sorted(ids) for deal, ids in items_of.items()}:
        raise WhatifError(
            f"The item bank {budget.bank} carries the items hash of {dataset.root} but its "
            f"units ({len(described)} dealing units) are not that dataset's ({len(items_of)}): "
            "edited or trimmed? Fit it again with 'whatif items "
            f"{dataset.root} RUN... --bank FILE'.")
    return bank


def full_run(dataset: Dataset, budget: Budget) -> bool:
    """The budget buys every item: the run is a plain full run."""
    return budget.items >= len(dataset.items)


def run_budget(dataset: Dataset, backend: Backend, protocol: Protocol, store: RunStore,
               options: RunOptions) -> RunResult:
    """Evaluate the items the design draws and return the run with the estimate recorded
    (every item when the budget buys them all: then nothing is estimated)."""
    from whatifbench.core.suite import suite_for
    from whatifbench.runner.evaluate import evaluate

    budget = options.budget
    assert budget is not None
    _check(options)
    plain = replace(options, budget=None)
    if full_run(dataset, budget):
        return evaluate(dataset, backend, protocol, store, plain)
    bank = prepare(dataset, budget)
    suite = suite_for(dataset.suite)
    units = bank.arrays()
    items_of = {u.deal: u.items for u in bank.units}
    plan = design(units, budget.items, budget.method, seed=options.seed)
    wanted = {i for s in plan for deal in s.asked for i in items_of[deal]}
    subset = tuple(i for i in dataset.items if i.id in wanted)
    result = evaluate(replace(dataset, items=subset), backend, protocol, store, plain)
    found = estimate(units, plan, suite.unit_outcomes(result.samples), budget.method)
    record = estimate_record(bank, budget, found, result.n_items, len(dataset.items),
                             options.seed)
    spec = replace(result.spec,
                   selection=replace(result.spec.selection or Selection(), budget=budget.items),
                   estimate=parse(EstimateRef, record))
    return replace(result, spec=spec, metrics={**result.metrics, "estimate": record})


def estimate_record(bank: Bank, budget: Budget, found: Estimate, asked: int, total: int,
                    seed: int) -> dict[str, Any]:
    """``spec.estimate``: what was estimated, from what, how, and the figures."""
    return {"kind": "estimate", "method": budget.method, "budget": budget.items,
            "items": asked, "dataset_items": total, "seed": seed,
            "bank": Path(budget.bank).name, "bank_sha256": sha256_file(Path(budget.bank)),
            "bank_respondents": bank.respondents, "scoring_unit": bank.scoring_unit,
            "metric": bank.metric, "interval_method": "design-based (stratified t)",
            **found.to_json()}
