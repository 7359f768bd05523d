"""Letters within a pair: whether the right option's position (its letter) of one member tells
the other's, and what that gives a model that always answers the same letter.

- ``letter relation`` (probe, scored on the later members of pairs): a model that has answered
  the pair's first member (original, basic, C2E …) guesses the other's letter from it: per type
  and first letter, the position most often right in the other folds. Chance: 1/K; control:
  the first letters moved between pairs of the same types. Independent dealing leaves it at
  chance whatever the answers' values do (the pair rules look at values);
- ``constant letter`` (probe, scored per pair): a model that answers every member of a pair
  with one letter, the letter most often right for whole pairs of the group in the other folds.
  Chance: the product of 1/K over the members; control: members recombined across pairs of
  the same types (what unbalanced answer positions alone give);
- ``same_letter`` (reported): per group, the share of original/counterfactual (basic/
  counterfactual) pairs whose two answers sit at the same position, beside 1/K.

Yes/no members are left out of all three: they have no letters to deal (the answer is yes or
no), and how the answers of a pair relate is what the pair rules report (``equal``,
``negation``). Lettered options written in the same order in both members count: there the
letter relation is the value relation, and a model that answered one member answers the other by
letter (an independent dealing of each member's order removes it).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from whatifbench.analysis.audit.baselines import SEED
from whatifbench.analysis.audit.learners import JITTER, key_guesses, probe_folds
from whatifbench.analysis.audit.metadata import MetaView
from whatifbench.analysis.audit.pairs import FIRST_ROLES
from whatifbench.analysis.audit.probes import ProbeOutcome
from whatifbench.analysis.audit.text import normal
from whatifbench.core.item import ROLES
from whatifbench.metrics.stats import percent


def pair_members(view: MetaView) -> list[list[int]]:
    """Per pair id the indexes of its closed members, in file order (pairs of two or more)."""
    pairs: dict[str, list[int]] = {}
    for i, item in enumerate(view.items):
        if item.pair_id is not None:
            pairs.setdefault(item.pair_id, []).append(i)
    return [m for m in pairs.values() if len(m) > 1]


def _lettered(view: MetaView, i: int) -> bool:
    """Item ``i`` offers lettered options (not yes/no)."""
    return {normal(c) for c in view.choices[i]} != {"yes", "no"}


def _first(view: MetaView, members: list[int]) -> int | None:
    """The member whose role comes first (``ROLES`` order), when the roles are distinct."""
    roles = [view.items[i].role or "" for i in members]
    if len(set(roles)) != len(roles):
        return None
    return min(members, key=lambda i: ROLES.index(r) if (r := view.items[i].role) in ROLES
               else len(ROLES))


def _relation_keys(view: MetaView, letters: dict[int, int]) -> list[str | None]:
    """Per later member of a pair its key: type, first role and the first member's letter
    (``letters``: per first member the letter to use)."""
    keys: list[str | None] = [None] * view.n
    for members in pair_members(view):
        first = _first(view, members)
        if first is None or first not in letters:
            continue
        for i in members:
            if i != first and len(view.choices[i]) == len(view.choices[first]) \
                    and _lettered(view, i) and _lettered(view, first):
                keys[i] = f"{view.types[i]}|after {view.items[first].role}|letter {letters[first]}"
    return keys


def letter_relation(view: MetaView) -> ProbeOutcome:
    """The ``letter relation`` probe and its control."""
    firsts = [f for m in pair_members(view) if (f := _first(view, m)) is not None
              and view.target[f] >= 0]
    letters = {f: int(view.target[f]) for f in firsts}
    keys = _relation_keys(view, letters)
    rng = np.random.default_rng(SEED + 11)
    kinds: dict[str, list[int]] = {}
    for f in firsts:
        kinds.setdefault(view.types[f], []).append(f)
    moved = dict(letters)
    for members in kinds.values():
        for f, g in zip(members, [members[k] for k in rng.permutation(len(members))],
                        strict=True):
            moved[f] = letters[g]
    folds = probe_folds(view)
    right = key_guesses(view, keys, folds, by_text=False)
    control = key_guesses(view, _relation_keys(view, moved), folds, by_text=False)
    scored = [i for i, k in enumerate(keys) if k is not None and view.target[i] >= 0]
    return ProbeOutcome(
        name="letter relation", reads="the first member's right letter (as a model that answered "
        "it knows) vs the other members' letters", unit="item", scored=tuple(scored),
        right=right[scored], control=control[scored],
        chance=np.array([1.0 / len(view.choices[i]) for i in scored]))


def _constant_hits(strata: list[str], widths: list[int], same: list[int],
                   unit_fold: np.ndarray) -> np.ndarray:
    """Out of fold, per unit: the letter most often right for whole units of its stratum in the
    other folds is right for every member."""
    jitter = np.random.default_rng(SEED).random(max(widths, default=1)) * JITTER
    right = np.zeros(len(strata), dtype=bool)
    for k in sorted(set(unit_fold.tolist())):
        wins: dict[str, Counter[int]] = {}
        for u, stratum in enumerate(strata):
            if unit_fold[u] != k and same[u] >= 0:
                wins.setdefault(stratum, Counter())[same[u]] += 1
        for u in np.flatnonzero(unit_fold == k).tolist():
            counts = wins.get(strata[u], Counter())
            letter = int(np.argmax([counts[j] + jitter[j] for j in range(widths[u])]))
            right[u] = same[u] == letter
    return right


def constant_letter(view: MetaView) -> ProbeOutcome:
    """The ``constant letter`` probe (scored per pair; ``scored`` holds each pair's first
    member in the file) and its control."""
    units = [m for m in pair_members(view)
             if all(view.target[i] >= 0 and _lettered(view, i) for i in m)]
    folds = probe_folds(view)
    unit_fold = np.array([folds[m[0]] for m in units], dtype=np.int64)
    strata = [view.items[m[0]].group or "" for m in units]
    widths = [min(len(view.choices[i]) for i in m) for m in units]
    targets = [[int(view.target[i]) for i in m] for m in units]
    shapes: dict[tuple[str, ...], list[int]] = {}
    for u, m in enumerate(units):
        shapes.setdefault(tuple(view.types[i] for i in m), []).append(u)
    rng = np.random.default_rng(SEED + 12)
    mixed = [list(t) for t in targets]
    for members in shapes.values():
        for position in range(1, len(targets[members[0]])):
            donors = [members[k] for k in rng.permutation(len(members))]
            for u, d in zip(members, donors, strict=True):
                mixed[u][position] = targets[d][position]

    def same(rows: list[list[int]]) -> list[int]:
        return [t[0] if len(set(t)) == 1 else -1 for t in rows]

    chance = np.array([float(np.prod([1.0 / len(view.choices[i]) for i in m])) for m in units])
    return ProbeOutcome(
        name="constant letter", reads="one letter for every member of a pair (the letter most "
        "often right for whole pairs of the group)", unit="pair",
        scored=tuple(m[0] for m in units),
        right=_constant_hits(strata, widths, same(targets), unit_fold),
        control=_constant_hits(strata, widths, same(mixed), unit_fold), chance=chance)


def same_letter(view: MetaView) -> dict[str, Any]:
    """Per group (and overall) the share of original/counterfactual pairs answered at the same
    position, beside the share independent dealing gives (mean 1/K)."""
    rows: dict[str, list[tuple[bool, float]]] = {}
    for members in pair_members(view):
        roles = {view.items[i].role: i for i in members}
        first = next((roles[r] for r in FIRST_ROLES if r in roles), None)
        second = roles.get("counterfactual")
        if first is None or second is None or view.target[first] < 0 or view.target[second] < 0 \
                or len(view.choices[first]) != len(view.choices[second]) \
                or not (_lettered(view, first) and _lettered(view, second)):
            continue
        group = view.items[second].group or view.items[first].group or ""
        rows.setdefault(group, []).append((bool(view.target[first] == view.target[second]),
                                           1.0 / len(view.choices[second])))

    def share(values: list[tuple[bool, float]]) -> dict[str, Any]:
        same = sum(1 for s, _ in values if s)
        return {"pairs": len(values), "same": same,
                "percent": percent(same, len(values)) if values else None,
                "expected": round(100.0 * float(np.mean([e for _, e in values])), 2)
                if values else None}

    every = [v for values in rows.values() for v in values]
    return {**share(every),
            "by_group": [{"group": g, **share(rows[g])} for g in sorted(rows)]}
