"""A generator's design: ``paper`` (the release's distribution, kept byte for byte) or
``shortcut-free`` (the same task, drawn so that the question and options alone do not give the
answer away). Generators take ``design=...``, record it on the card
(``generator.params.design``) and offer ``--design``."""

from __future__ import annotations

from whatifbench.errors import WhatifError

PAPER = "paper"
SHORTCUT_FREE = "shortcut-free"
DESIGNS = (PAPER, SHORTCUT_FREE)
"""The designs a generator can follow."""
DEFAULT_DESIGN = SHORTCUT_FREE
"""Every generator's default: a dataset made without naming a design measures models, not the
release's shortcuts (the ``paper`` design is kept to compare with the release)."""


def check_design(design: str) -> str:
    """``design`` when it is one of ``DESIGNS``; otherwise a ``WhatifError`` naming them."""
    if design not in DESIGNS:
        raise WhatifError(f"Unknown design {design!r}; use --design {' or '.join(DESIGNS)}.")
    return design
