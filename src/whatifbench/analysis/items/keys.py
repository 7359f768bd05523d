"""How likely each answer key is wrong, from everyone's answers weighed by how reliable each
respondent is (a one-coin Dawid–Skene model with a prior on the key).

Each item has a true answer T. The key equals T with probability 1 − ε; otherwise T is one of
the item's other m − 1 possible answers. A respondent gives T with probability ``acc`` (its
accuracy, per role: a model that ignores premises is reliable on originals only) and otherwise
one of the other answers at random. By EM: the posterior of T for every item, then each
respondent's accuracy against those posteriors (shrunk towards its overall accuracy), then ε
as the mean posterior of a wrong key, ten rounds. Accuracies are capped at ``CAP`` and floored
at chance, so a guesser carries no evidence and no single run decides alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from whatifbench.core.item import Item
from whatifbench.core.suite import Sample

CAP = 0.99
"""The highest accuracy a respondent is credited with."""
SHRINK = 10.0
"""Pseudo-answers pulling a per-role accuracy towards the respondent's overall one."""
EPSILON = (0.03, 0.005, 0.2)
"""Start, floor and ceiling of the share of wrong keys."""
ROUNDS = 10
"""EM rounds."""
KEY = "\0key"
"""The answer value of a reply the suite scored right."""
OTHER = "\0other"
"""All the answers nobody gave, together."""


@dataclass(frozen=True)
class KeyDoubt:
    """What the answers say about one item's key."""

    p_wrong: float
    """Posterior probability that the key is wrong."""
    likely: str | None
    """The most probable answer other than the key (``None``: nobody gave one)."""
    p_likely: float
    """Its posterior probability."""


def answer_value(sample: Sample) -> str | None:
    """The answer a sample gives, comparable across runs: ``KEY`` when scored right, the
    normalised prediction when wrong, ``None`` when there is none (unparsed, failed, unsure,
    free text)."""
    if sample.error is not None or sample.correct is None or sample.flag == "unsure":
        return None
    if sample.correct:
        return KEY
    if sample.prediction is None:
        return None
    return normalise(sample.prediction)


def normalise(value: str) -> str:
    """Answers written differently but meaning the same (``3``, ``3.0``; ``Yes``, ``yes``)."""
    text = value.strip().lower()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else str(number)


def options(item: Item, open_sizes: Mapping[str, int]) -> int:
    """How many answers the item has: its options, two for yes/no, else the number of
    different keys of its kind in the dataset (at least two)."""
    if item.choices:
        return len(item.choices)
    if item.kind == "yes-no":
        return 2
    return max(2, open_sizes.get(item.kind, 2))


def key_doubts(items: Sequence[Item], answers: Sequence[Mapping[str, str | None]]
               ) -> dict[str, KeyDoubt]:
    """The doubt about every item's key (free-text items left out) from ``answers``: per
    respondent, the answer value of each item it answered (``answer_value``)."""
    open_keys: dict[str, set[str]] = {}
    for item in items:
        if not item.choices and item.kind not in ("yes-no", "text"):
            open_keys.setdefault(item.kind, set()).add(normalise(item.target))
    sizes = {kind: len(keys) for kind, keys in open_keys.items()}
    votes: dict[str, list[tuple[int, str]]] = {}
    chosen = [i for i in items if i.kind != "text"]
    for item in chosen:
        votes[item.id] = [(r, v) for r, mine in enumerate(answers)
                          if (v := mine.get(item.id)) is not None]
    m = {i.id: max(options(i, sizes), 1 + len({v for _, v in votes[i.id] if v != KEY}))
         for i in chosen}
    stratum = {i.id: str(i.role) for i in chosen}
    n = len(answers)
    overall = [_start(answers, r) for r in range(n)]
    acc: dict[tuple[int, str], float] = {}
    eps = EPSILON[0]
    found: dict[str, KeyDoubt] = {}
    for _ in range(ROUNDS):
        hits: dict[tuple[int, str], float] = {}
        counts: dict[tuple[int, str], int] = {}
        totals = [0.0] * n
        seen = [0] * n
        doubt_sum = 0.0
        for item in chosen:
            given = votes[item.id]
            post = _posterior(given, m[item.id], eps,
                              partial(_accuracy, acc, overall, stratum[item.id]))
            p_key = post.get(KEY, 0.0)
            others = [(p, v) for v, p in post.items() if v not in (KEY, OTHER)]
            best = max(others, default=(0.0, None), key=lambda pv: (pv[0], str(pv[1])))
            found[item.id] = KeyDoubt(1.0 - p_key, best[1], best[0])
            doubt_sum += 1.0 - p_key
            for r, v in given:
                share = post.get(v, 0.0)
                key = (r, stratum[item.id])
                hits[key] = hits.get(key, 0.0) + share
                counts[key] = counts.get(key, 0) + 1
                totals[r] += share
                seen[r] += 1
        overall = [(totals[r] + 1.0) / (seen[r] + 2.0) for r in range(n)]
        acc = {k: (hits[k] + SHRINK * overall[k[0]]) / (counts[k] + SHRINK) for k in counts}
        eps = min(max(doubt_sum / max(len(chosen), 1), EPSILON[1]), EPSILON[2])
    return found


def _accuracy(acc: Mapping[tuple[int, str], float], overall: Sequence[float], stratum: str,
              r: int) -> float:
    """Respondent ``r``'s accuracy in ``stratum`` (its overall one where it has none)."""
    return acc.get((r, stratum), overall[r])


def _start(answers: Sequence[Mapping[str, str | None]], r: int) -> float:
    given = [v for v in answers[r].values() if v is not None]
    return (sum(v == KEY for v in given) + 1.0) / (len(given) + 2.0)


def _posterior(given: Sequence[tuple[int, str]], m: int, eps: float,
               accuracy: Callable[[int], float]) -> dict[str, float]:
    """P(T = value) for the key, each answer given, and (``OTHER``) all answers nobody gave
    together. A value's log-likelihood is every vote's log-probability of missing it, plus,
    for the votes that give it, the difference between hitting and missing."""
    missed = 0.0
    gain: dict[str, float] = {KEY: 0.0}
    for r, v in given:
        a = min(max(accuracy(r), 1.0 / m), CAP)
        hit, miss = math.log(a), math.log((1.0 - a) / (m - 1))
        missed += miss
        gain[v] = gain.get(v, 0.0) + hit - miss
    other = math.log(eps / (m - 1))
    logs = {v: (math.log(1.0 - eps) if v == KEY else other) + missed + g
            for v, g in gain.items()}
    unvoted = m - len(gain)
    if unvoted > 0:
        logs[OTHER] = other + math.log(unvoted) + missed
    top = max(logs.values())
    weights = {v: math.exp(x - top) for v, x in logs.items()}
    total = sum(weights.values())
    return {v: w / total for v, w in weights.items()}
