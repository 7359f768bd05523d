"""Opaque names: file names and ids that say nothing about answers, pairs or groups.

A harness, an agent or an API backend that shows a model the paths of its images or the ids of
its items shows whatever those names encode. ``1-cause.png`` among the candidates
``3-effect.png, 1-effect.png …`` of item ``1-c2e`` gives the answer away; consecutive ids
``5 … 8`` give away a group of four whose options can be decoded jointly. The ``shortcut-free``
designs therefore name every image, item and pair by a keyed hash of what it is (generator,
seed, index, role), computed before and independently of any answer, and keep the telling
name (the old-style name, index, group, part) in the item's ``provenance`` only.

The names are deterministic (the same seed gives the same names) and 16 hex digits long: two
names of one dataset coincide with probability about n² / 2⁶⁵ (10⁻⁹ for 100,000 names);
``Unique`` refuses a repeat anyway.
"""

from __future__ import annotations

import hashlib

DIGITS = 16
"""Hex digits of a name (64 bits)."""


def opaque(*key: object) -> str:
    """The first ``DIGITS`` hex digits of the sha256 of the key's parts joined by ``:``
    (``opaque("mucr-synthetic", 0, "image", 5, "cause")``)."""
    text = ":".join(map(str, key))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGITS]


def opaque_file(*key: object, suffix: str = ".png") -> str:
    """An opaque file name: ``opaque(*key)`` plus ``suffix``."""
    return opaque(*key) + suffix


class Unique:
    """Names handed out once each: ``check(name)`` raises when a name comes back for another
    key (a hash collision, never expected; the caller's data would otherwise be overwritten)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.seen: dict[str, object] = {}

    def check(self, name: str, key: object) -> str:
        """``name`` (given for ``key``), after checking that no other key had it."""
        known = self.seen.setdefault(name, key)
        if known != key:
            raise RuntimeError(f"two {self.what} would both be named {name!r} ({known!r} and "
                               f"{key!r}); generate with another seed")
        return name
