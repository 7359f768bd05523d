"""The item bank: 2PL parameters of a dataset's scoring units, fitted from stored runs, as a JSON
file that ``whatif run --budget N --bank FILE`` reads.

A bank names the dataset it was fitted on (its items' sha256) and is refused for any other. A
budgeted run uses it only to stratify the units (``estimate``): the estimate's interval comes
from the design, whatever the bank says, so a bank needs no calibration. Version 1 files (which
carried a calibration of the old model-based estimate) are read; their calibration is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np

from whatifbench.analysis.items.estimate import Units
from whatifbench.analysis.items.irt import A_PRIOR, D_PRIOR, Fit, fit_2pl
from whatifbench.core.readfile import NotRegularFile, read_text
from whatifbench.core.records.read import parse_file, parse_text
from whatifbench.core.records.schema import NON_EMPTY, Range, to_json
from whatifbench.errors import WhatifError

FORMAT = "whatifbench-item-bank"
"""The ``format`` field of a bank file."""
VERSION = 2
"""Bank file version (1 is read too)."""


@dataclass(frozen=True)
class BankUnit:
    """One scoring unit's parameters."""

    id: str
    """The scoring unit (``Suite.unit_outcomes`` key)."""
    deal: str
    """The dealing unit it is asked in (``Item.unit``: its pair, or the item)."""
    items: tuple[str, ...]
    """The items of that dealing unit (what a budgeted run evaluates)."""
    a: float
    """Discrimination."""
    d: float
    """Intercept (``P = σ(a·θ + d)``)."""
    share_right: float | None
    """Share of the fitting runs that got it right."""


@dataclass(frozen=True)
class Bank:
    """A dataset's item bank."""

    dataset: dict[str, Any]
    """``name``, ``suite``, ``version`` and ``items_sha256`` of the dataset fitted."""
    scoring_unit: str
    """What a unit is, in words (``Suite.scoring_unit``)."""
    metric: str
    """The metric the mean outcome of all units is (the suite's headline)."""
    units: tuple[BankUnit, ...]
    """Every scoring unit of the dataset."""
    respondents: int
    """Runs (models and people) the bank was fitted on."""
    fit: dict[str, Any] = field(default_factory=dict)
    """How it was fitted (model, priors, EM cycles, convergence)."""

    def arrays(self) -> Units:
        """The units as arrays for selection and estimation."""
        cost: dict[str, int] = {}
        for u in self.units:
            cost[u.deal] = len(u.items)
        return Units(tuple(u.id for u in self.units), np.array([u.a for u in self.units]),
                     np.array([u.d for u in self.units]), tuple(u.deal for u in self.units),
                     cost)

    def to_json(self) -> dict[str, Any]:
        """The bank file's object."""
        return {"format": FORMAT, "version": VERSION, "dataset": self.dataset,
                "scoring_unit": self.scoring_unit, "metric": self.metric,
                "respondents": self.respondents, "fit": self.fit,
                "units": [{"id": u.id, "deal": u.deal, "items": list(u.items),
                           "a": round(u.a, 5), "d": round(u.d, 5),
                           "share_right": u.share_right} for u in self.units]}


def fit_bank(y: np.ndarray, observed: np.ndarray, units: Sequence[tuple[str, str, tuple[str, ...]]],
             dataset: dict[str, Any], scoring_unit: str, metric: str,
             fit: Fit | None = None) -> Bank:
    """Fit the bank of a response matrix (respondents × scoring units; ``units``: each
    column's id, dealing unit and that unit's items), or make it of ``fit``, the matrix's
    own fit."""
    fit = fit if fit is not None else fit_2pl(y, observed)
    answered = observed.sum(axis=0)
    right = np.where(observed, y, 0).sum(axis=0)
    bank_units = tuple(
        BankUnit(uid, deal, tuple(items), float(fit.a[k]), float(fit.d[k]),
                 round(float(right[k] / answered[k]), 4) if answered[k] else None)
        for k, (uid, deal, items) in enumerate(units))
    return Bank(dataset, scoring_unit, metric, bank_units, int(y.shape[0]),
                {"model": "2PL", "method": "marginal maximum likelihood (EM), normal priors",
                 "priors": {"a": list(A_PRIOR), "d": list(D_PRIOR)},
                 "iterations": fit.iterations, "converged": fit.converged})


@dataclass(frozen=True)
class BankDataset:
    """The dataset a bank was fitted on."""

    items_sha256: str
    """Its items' sha256: the bank is refused for any other dataset."""
    name: str | None = None
    """Its name."""
    suite: str | None = None
    """Its suite."""
    version: str | None = None
    """Its card's version."""


@dataclass(frozen=True)
class UnitRecord:
    """A unit as the bank file holds it."""

    id: str
    """The scoring unit."""
    deal: str
    """Its dealing unit."""
    items: Annotated[tuple[str, ...], NON_EMPTY]
    """The dealing unit's items (at least one)."""
    a: float
    """Discrimination (finite)."""
    d: float
    """Intercept (finite)."""
    share_right: Annotated[float, Range(0, 1)] | None = None
    """Share of the fitting runs that got it right."""


@dataclass(frozen=True)
class BankFile:
    """A bank file (``FORMAT``, version 1 or 2), as read."""

    format: Literal["whatifbench-item-bank"]
    """``whatifbench-item-bank``."""
    version: Literal[1, 2]
    """The file's version (1 carried a calibration, now ignored)."""
    dataset: BankDataset
    """The dataset fitted."""
    scoring_unit: str
    """What a unit is, in words."""
    metric: str
    """The metric the units' mean outcome is."""
    respondents: Annotated[int, Range(1, None)]
    """Runs the bank was fitted on."""
    units: Annotated[list[UnitRecord], NON_EMPTY]
    """Every scoring unit (at least one)."""
    fit: dict[str, Any] = field(default_factory=dict)
    """How it was fitted."""


def load_bank(path: str | Path) -> Bank:
    """Read a bank file through its schema (``BankFile``), refusing with one sentence naming
    the file, line and field anything that is not one."""
    path = Path(path)
    fix = "Write one with 'whatif items DATASET RUN... --bank FILE'."
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise WhatifError(f"The item bank {path} does not exist. {fix}") from None
    except NotRegularFile as exc:
        raise WhatifError(f"The item bank {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WhatifError(f"The item bank {path} cannot be read ({exc}). {fix}") from None
    data = parse_text(text, path, fix=f"It is not a JSON file. {fix}")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise WhatifError(f"{path} is not a whatifbench item bank (no \"format\": \"{FORMAT}\"). "
                          f"{fix}")
    if data.get("version") not in (1, VERSION):
        raise WhatifError(f"The item bank {path} has version {data.get('version')!r}; this "
                          f"whatifbench reads versions 1 and {VERSION}. {fix}")
    found: BankFile = parse_file(BankFile, text, path, fix)
    units = tuple(BankUnit(u.id, u.deal, u.items, float(u.a), float(u.d), u.share_right)
                  for u in found.units)
    return Bank(to_json(found.dataset), found.scoring_unit, found.metric, units,
                found.respondents, found.fit)


def check_bank(bank: Bank, path: str | Path, items_sha256: str, where: str) -> None:
    """Refuse a bank fitted on another dataset than the one at ``where``."""
    fitted = str(bank.dataset.get("items_sha256"))
    if fitted != items_sha256:
        raise WhatifError(
            f"The item bank {path} was fitted on the dataset {bank.dataset.get('name')!r} "
            f"(items sha256 {fitted[:12]}…), but {where} has items sha256 {items_sha256[:12]}…: "
            "its parameters say nothing about these items. Use the bank of this dataset, or "
            f"fit one with 'whatif items {where} RUN... --bank FILE'.")
