"""Which items an annotator gets, in which order.

Items are dealt in whole units (an original and its counterfactual, MuCR's four questions of a
pair, or a single item), a block of units at a time, so that an annotator who stops early
leaves complete pairs. Inside a block the items go in rounds: first one item of every unit, then
the second of every unit, in the same unit order, so the two questions of a pair are as many
items apart as the block has units (never back to back when the block has two or more). Which
item of a unit comes first alternates from unit to unit and from annotator to annotator (the
counterbalancing). With ``--per-item K`` a block takes the units that fewest annotators hold,
none held by K already.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from whatifbench.core.item import ROLES, Item
from whatifbench.human.records import Settings
from whatifbench.runner.requests import select_items

BLOCK = 6
"""Units per block (a C-VQA block is 12 items; the two questions of a pair are 6 apart)."""


@dataclass(frozen=True)
class Pool:
    """The units items are dealt in, in the store's seeded order."""

    units: tuple[tuple[str, ...], ...]
    """Item ids of each unit (in role order: original/basic first)."""
    unit_of: dict[str, int]
    """Each pooled item's unit."""

    @property
    def n_items(self) -> int:
        """Items in the pool."""
        return len(self.unit_of)


def _order(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def make_pool(items: Sequence[Item], settings: Settings) -> Pool:
    """The pool of a dataset under ``settings`` (``--limit`` picks whole pairs as ``whatif run``
    does; units are ordered by a seeded hash of their key)."""
    chosen = select_items(items, settings.limit, None, settings.seed)
    members: dict[str, list[Item]] = {}
    for item in chosen:
        members.setdefault(item.unit, []).append(item)
    rank = {r: k for k, r in enumerate(ROLES)}
    keys = sorted(members, key=lambda k: _order(settings.seed, k))
    units = tuple(tuple(i.id for i in sorted(members[k], key=lambda i: rank.get(i.role or "", 99)))
                  for k in keys)
    return Pool(units, {item_id: u for u, ids in enumerate(units) for item_id in ids})


def next_block(pool: Pool, own: set[int], claims: Counter[int], settings: Settings,
               dealt: int, number: int) -> list[str]:
    """The item ids of the next block for an annotator who holds the units ``own`` (``dealt``
    of them) and is the ``number``-th annotator of the store; ``claims`` counts the annotators
    holding each unit. Empty when nothing is left for this annotator."""
    k = settings.per_item
    free = [u for u in range(len(pool.units)) if u not in own and (k is None or claims[u] < k)]
    if k is not None:
        free.sort(key=lambda u: (claims[u], u))
    block = free[:BLOCK + 1] if len(free) == BLOCK + 1 else free[:BLOCK]  # no lone last pair
    rotated = []
    for j, u in enumerate(block):
        ids = pool.units[u]
        shift = (dealt + j + number) % len(ids)
        rotated.append(ids[shift:] + ids[:shift])
    random.Random(f"{settings.seed}:{number}:{dealt}").shuffle(rotated)
    longest = max((len(r) for r in rotated), default=0)
    return [r[n] for n in range(longest) for r in rotated if n < len(r)]
