"""Opaque names: file names and ids that say nothing about answers, pairs or groups.

A harness, an agent or an API backend that shows a model the paths of its images or the ids of
its items shows whatever those names encode. ``1-cause.png`` among the candidates
``3-effect.png, 1-effect.png …`` of item ``1-c2e`` gives the answer away; consecutive ids
``5 … 8`` give away a group of four whose options can be decoded jointly; and a hash of public
facts (generator, seed, record number) is decoded by hashing every record number. The
``shortcut-free`` designs therefore name every image, item and pair by an HMAC of what it is
(generator, seed, index, role) under the naming secret (``core.namekey``), computed before and
independently of any answer, and keep the telling name in the dataset's private file
(``core.private``) only.

The names are deterministic for one secret and 16 hex digits long: two names of one dataset
coincide with probability about n² / 2⁶⁵ (10⁻⁹ for 100,000 names); ``Unique`` refuses a repeat
anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whatifbench.core.design import PAPER
from whatifbench.core.namekey import NameKey, name_key


@dataclass(frozen=True)
class Namer:
    """The opaque names of one dataset: ``key`` over ``scope`` (generator, seed) and the parts
    that say what a thing is."""

    key: NameKey = field(repr=False)
    """The naming secret."""
    scope: tuple[object, ...] = ()
    """What every name of the dataset starts with (generator name, seed)."""

    def name(self, *parts: object) -> str:
        """The opaque name of the thing ``parts`` describe
        (``namer.name("image", 5, "cause")``)."""
        return self.key.name(*self.scope, *parts)

    def file(self, *parts: object, suffix: str = ".png") -> str:
        """An opaque file name: ``name(*parts)`` plus ``suffix``."""
        return self.name(*parts) + suffix


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


class Telling:
    """The telling names behind a dataset's opaque ones, gathered for its private file
    (``core.private``): per section (``images``, ``items``, ``pairs`` ...), opaque → telling."""

    def __init__(self, key: NameKey) -> None:
        self.key = key
        self.sections: dict[str, dict[str, object]] = {}

    def add(self, section: str, opaque: str, telling: object) -> None:
        """Remember that ``opaque`` (of ``section``) is ``telling``."""
        self.sections.setdefault(section, {})[opaque] = telling

    def private(self) -> dict[str, Any]:
        """The private file's sections: the secret's fingerprint, then the names."""
        return {"secret": {"fingerprint": self.key.fingerprint(), "origin": self.key.origin},
                **{k: dict(sorted(v.items())) for k, v in self.sections.items()}}


def opaque_naming(design: str, secret_file: str | Path | None, *scope: object
                  ) -> tuple[Namer | None, Telling | None]:
    """The opaque names of a dataset of ``design`` and where their telling names go: both
    ``None`` for the ``paper`` design (the release's names, no secret needed)."""
    if design == PAPER:
        return None, None
    key = name_key(secret_file)
    return Namer(key, scope), Telling(key)
