"""Decoding opaque names with public facts: the attack that broke earlier opaque names.

A name that is a hash of what it stands for (``sha256("mucr-synthetic:21:image:5:cause")``) is
decoded by hashing every guess built from public facts: the generator's name and the seed
(``card.json``, the Hugging Face card), the words a harness shows (groups, roles, categories),
the kind words of the code (``image``, ``item``, ``pair``, ``cause`` …) and every record number
up to ``numbers``. ``decode`` tries the shapes such names take, plain sha256 and HMAC keyed by
each public fact, and returns what it found: the audit's name probes then read the decoded
words (``metadata.meta_view``), and tests check that names keyed by the naming secret
(``core.namekey``) decode to nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

HEX = re.compile(r"[0-9a-f]{8,64}")
"""What a hashed name looks like (hex digits)."""
OPAQUE = re.compile(r"[0-9a-f]{12,64}")
"""What an opaque name of whatifbench looks like (the audit decodes when most names do)."""
KIND_WORDS = ("image", "item", "pair", "intervened", "candidate", "picture", "question",
              "record", "order")
"""The kind words a naming scheme puts after the generator and seed."""
PART_WORDS = ("cause", "effect", "original", "counterfactual", "basic", "b", "c", "c2e", "e2c",
              "cue", "exp")
"""Words that name a part, role or metric."""
BUDGET = 4_000_000
"""Most guesses hashed per key (about four seconds)."""


@dataclass(frozen=True)
class Facts:
    """What the attacker knows (every public fact of a dataset)."""

    prefixes: tuple[str, ...]
    """Generator, importer and dataset names."""
    seeds: tuple[str, ...]
    """Seeds (and other small numbers the card prints)."""
    words: tuple[str, ...]
    """Words a harness shows (groups, roles, categories, labels) and the code's part words."""
    numbers: int
    """Record numbers tried: 0 … ``numbers``."""
    small: int = 1000
    """Numbers tried in the longest shapes (an index within a category): 0 … ``small``."""
    tokens: tuple[str, ...] = ()
    """Other names of the dataset (ids a name may be keyed by: a pair id inside an item id)."""
    keys: tuple[str, ...] = ()
    """HMAC keys tried besides plain sha256 (public facts misused as secrets)."""


def facts_of(card: Mapping[str, Any] | None, words: Iterable[str], numbers: int,
             tokens: Iterable[str] = (), hmac_keys: bool = False, small: int = 1000) -> Facts:
    """The facts of a dataset: its card (``card.json`` as a dict: name, suite, generator, seed,
    parameters; the generator's own name first) and the ``words`` and ``tokens`` its items
    show; ``hmac_keys``: also HMAC keyed by each prefix and seed."""
    card = dict(card or {})
    generator = card.get("generator") or {}
    params = generator.get("params") or {} if isinstance(generator, dict) else {}
    named = [str(generator.get("name", "")) if isinstance(generator, dict) else "",
             str(card.get("name", "")), str(card.get("suite", ""))]
    named += [p.split(":")[-1] for p in named]
    named += [f"{p}-{s}" for p in list(named) for s in ("import", "review", "build")]
    seeds = {str(card.get("seed"))} | {str(v) for k, v in params.items()
                                       if "seed" in k and isinstance(v, int)}
    seeds.discard("None")
    public = sorted({w for w in {*words, *PART_WORDS} if w and len(w) <= 40})
    prefixes = tuple(dict.fromkeys(p for p in named if p and not p.startswith("-")))
    found = Facts(prefixes, tuple(sorted(seeds)) or ("0",), tuple(public), numbers,
                  min(numbers, small), tuple(sorted(set(tokens))))
    if hmac_keys:
        found = Facts(found.prefixes, found.seeds, found.words, found.numbers, found.small,
                      found.tokens, tuple(dict.fromkeys((*found.prefixes, *found.seeds))))
    return found


def _guesses(facts: Facts) -> Iterator[str]:
    """Every guess, the likely shapes first: per head (prefix, seed, kind word; the card's own
    generator and seed first) a number, a number and a word either way round, a word, a number
    and a part (numbers up to the dataset's size), a token and a word; then prefix, seed,
    token and part (a review's pictures, keyed by a pair's id)."""
    numbers = [str(n) for n in range(facts.numbers + 1)]
    small = numbers[:facts.small + 1]
    heads = [f"{p}:{s}:{k}" for p in facts.prefixes for s in facts.seeds for k in KIND_WORDS]
    for head in heads:
        for n in numbers:
            yield f"{head}:{n}"
        for n in numbers:
            for w in facts.words:
                yield f"{head}:{n}:{w}"
                yield f"{head}:{w}:{n}"
        for w in facts.words:
            for n in small:
                for part in PART_WORDS:
                    yield f"{head}:{w}:{n}:{part}"
        for t in facts.tokens:
            for w in facts.words:
                yield f"{head}:{t}:{w}"
    for p in facts.prefixes:
        for s in facts.seeds:
            for t in facts.tokens:
                for part in PART_WORDS:
                    yield f"{p}:{s}:{t}:{part}"


def decode(names: Iterable[str], facts: Facts, budget: int = BUDGET) -> dict[str, str]:
    """The names (hex, any length from 8 to 64 digits) whose preimage is among the guesses:
    name → the guess that hashes to it."""
    wanted: dict[int, set[str]] = {}
    for name in names:
        if HEX.fullmatch(name):
            wanted.setdefault(len(name), set()).add(name)
    if not wanted:
        return {}
    found: dict[str, str] = {}
    total = sum(len(v) for v in wanted.values())
    lengths = sorted(wanted)
    for key in [None, *facts.keys]:
        sha = hashlib.sha256
        secret = None if key is None else key.encode("utf-8")
        for count, guess in enumerate(_guesses(facts)):
            if count >= budget or len(found) == total:
                break
            data = guess.encode("utf-8")
            digest = (sha(data) if secret is None else hmac.new(secret, data, sha)).hexdigest()
            for length in lengths:
                head = digest[:length]
                if head in wanted[length] and head not in found:
                    found[head] = guess
    return found
