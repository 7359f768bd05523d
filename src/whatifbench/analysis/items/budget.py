"""``whatif run --budget N --bank FILE``: evaluate about N items chosen from an item bank and
estimate the full-suite score with an interval (``estimate``); the run's spec records the
estimate (``spec["estimate"]``) and every table and the explorer label the run as one
(``marks``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.analysis.items.bank import Bank, check_bank, load_bank
from whatifbench.analysis.items.estimate import METHODS, adaptive, estimate, stratified
from whatifbench.core.fsutil import sha256_file
from whatifbench.errors import WhatifError

if TYPE_CHECKING:
    from whatifbench.core.dataset import Dataset
    from whatifbench.core.protocol import Protocol
    from whatifbench.models.base import Backend
    from whatifbench.runner.evaluate import RunOptions
    from whatifbench.runner.results import RunResult
    from whatifbench.runner.store import RunStore


@dataclass(frozen=True)
class Budget:
    """How many items to ask, from which bank, chosen how."""

    items: int
    """At most this many items are evaluated (whole pairs)."""
    bank: str
    """The item bank file (``whatif items ... --bank FILE``)."""
    method: str = "adaptive"
    """One of ``estimate.METHODS``."""

    def __post_init__(self) -> None:
        if self.items < 1:
            raise WhatifError(f"--budget {self.items} must be a positive number of items.")
        if self.method not in METHODS:
            raise WhatifError(f"--budget-method {self.method!r} is not one of "
                              f"{', '.join(METHODS)}.")


def _check(options: RunOptions) -> None:
    if options.limit is not None or options.subset is not None:
        raise WhatifError("--budget chooses the items itself from the bank; leave out --limit "
                          "and --subset.")


def run_budget(dataset: Dataset, backend: Backend, protocol: Protocol, store: RunStore,
               options: RunOptions) -> RunResult:
    """Evaluate the items the budget picks (adaptively: in rounds, each round's answers
    choosing the next units) and return the last round's run with the estimate recorded."""
    from whatifbench.core.suite import suite_for
    from whatifbench.runner.evaluate import evaluate
    from whatifbench.runner.results import Execution

    budget = options.budget
    assert budget is not None
    _check(options)
    bank = load_bank(budget.bank)
    check_bank(bank, budget.bank, dataset.items_sha256, str(dataset.root))
    suite = suite_for(dataset.suite)
    units = bank.arrays()
    items_of = {u.deal: u.items for u in bank.units}
    plain = replace(options, budget=None)
    rounds: list[RunResult] = []

    def ask(chosen: Sequence[str]) -> dict[str, bool]:
        wanted = {i for deal in chosen for i in items_of[deal]}
        subset = tuple(i for i in dataset.items if i.id in wanted)
        result = evaluate(replace(dataset, items=subset), backend, protocol, store, plain)
        rounds.append(result)
        return suite.unit_outcomes(result.samples)

    if budget.method == "stratified":
        outcomes = ask(stratified(units, budget.items))
    else:
        _, outcomes = adaptive(units, budget.items, ask)
    found = estimate(units, outcomes, bank.calibration.widen.get(budget.method, 1.0))
    last = rounds[-1]
    computed = sum(r.execution.computed for r in rounds)
    execution = Execution(
        from_store=max(0, last.execution.from_store - (computed - last.execution.computed)),
        computed=computed, errors=last.execution.errors,
        seconds=round(sum(r.execution.seconds for r in rounds), 3),
        judge_from_store=last.execution.judge_from_store,
        judge_computed=sum(r.execution.judge_computed for r in rounds),
        judge_errors=last.execution.judge_errors)
    record = estimate_record(bank, budget, found.to_json(), last.n_items, len(dataset.items),
                             len(rounds))
    spec = {**last.spec, "selection": {**(last.spec.get("selection") or {}),
                                       "budget": budget.items},
            "estimate": record}
    return replace(last, spec=spec, metrics={**last.metrics, "estimate": record},
                   execution=execution)


def estimate_record(bank: Bank, budget: Budget, found: dict[str, Any], asked: int, total: int,
                    rounds: int) -> dict[str, Any]:
    """``spec["estimate"]``: what was estimated, from what, and the figures."""
    return {"kind": "estimate", "method": budget.method, "budget": budget.items,
            "items": asked, "dataset_items": total, "rounds": rounds,
            "bank": Path(budget.bank).name, "bank_sha256": sha256_file(Path(budget.bank)),
            "bank_respondents": bank.respondents, "scoring_unit": bank.scoring_unit,
            "metric": bank.metric, "widen": bank.calibration.widen.get(budget.method, 1.0),
            **found}

