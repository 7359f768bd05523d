"""A generator's design: ``paper`` (the release's distribution, kept byte for byte) or
``shortcut-free`` (the same task, drawn so that the question and options alone do not give the
answer away). Generators take ``design=...``, record it on the card
(``generator.params.design``) and offer ``--design``."""

from __future__ import annotations

import argparse

from whatifbench.errors import WhatifError

PAPER = "paper"
SHORTCUT_FREE = "shortcut-free"
DESIGNS = (PAPER, SHORTCUT_FREE)
"""The designs a generator can follow."""


def check_design(design: str) -> str:
    """``design`` when it is one of ``DESIGNS``; otherwise a ``WhatifError`` naming them."""
    if design not in DESIGNS:
        raise WhatifError(f"Unknown design {design!r}; use --design {' or '.join(DESIGNS)}.")
    return design


def add_design_argument(parser: argparse.ArgumentParser, default: str, doc: str) -> None:
    """``--design paper|shortcut-free`` with ``default``; ``doc`` says what shortcut-free
    changes for this generator."""
    parser.add_argument(
        "--design", choices=DESIGNS, default=default,
        help=f"paper: the release's distribution (its text-only shortcuts included); "
             f"shortcut-free: {doc} (default {default})")
