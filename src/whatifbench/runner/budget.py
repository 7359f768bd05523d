"""``whatif run --budget N --bank FILE``: the run option (how many items, from which bank, drawn
how); ``analysis.items.budget`` draws the items and estimates the full-suite score."""

from __future__ import annotations

from dataclasses import dataclass

from whatifbench.errors import WhatifError

METHODS = ("stratified", "random")
"""How ``--budget`` draws items (``analysis.items.estimate``)."""
OLD_METHODS = {"adaptive": ("it chose items by the bank's information and estimated the score "
                            "from the bank's model, which was biased for models unlike the "
                            "bank's")}
"""Methods of earlier versions, refused with why."""


@dataclass(frozen=True)
class Budget:
    """How many items to ask, from which bank, drawn how."""

    items: int
    """At most this many items are evaluated (whole pairs)."""
    bank: str
    """The item bank file (``whatif items ... --bank FILE``)."""
    method: str = "stratified"
    """One of ``METHODS``."""

    def __post_init__(self) -> None:
        if self.items < 1:
            raise WhatifError(f"--budget {self.items} must be a positive number of items.")
        if self.method in OLD_METHODS:
            raise WhatifError(
                f"--budget-method {self.method} is gone: {OLD_METHODS[self.method]}. Use "
                f"stratified (the default: units drawn at random within strata of the bank's "
                f"difficulty, an interval that holds for any model) or random.")
        if self.method not in METHODS:
            raise WhatifError(f"--budget-method {self.method!r} is not one of "
                              f"{', '.join(METHODS)}.")
