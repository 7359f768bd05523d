"""When a set of items is flagged: the test behind every figure of the audit, and Holm's
correction over all of them.

Every figure the audit prints beside chance (the whole dataset, each slice, each probe and each
probe's slices) is one *test*: its entry holds ``n``, ``hits``, the accuracy, the chance and
``null`` (how many scored items or pairs have each chance value). Under the null hypothesis
(guessing, whatever was read) the hits follow a Poisson-binomial distribution with those
chances; ``p`` is the one-sided probability of at least ``hits``. The figures of one guesser are
one *family* (the text baselines' combination: the whole set and every slice, ``--by`` ones
included; each metadata probe: its whole scope and its slices); their ``p`` are adjusted
together by Holm's step-down method (``p_holm``), so that the more slices are looked at, the
more one must stand out.

A metadata probe's entry also holds its *control* (the same probe with the metadata moved to
other items: ``probes``): ``control`` (its accuracy), ``discordant`` (items right only in the
probe, only in the control) and ``p_control`` (a one-sided sign test over those); its ``p`` is
the larger of ``p_chance`` and ``p_control``: a probe must beat both.

An entry is **flagged** when ``n ≥ MIN_N``, the accuracy is more than ``MARGIN`` points above
chance (and above its control, for a probe) and ``p_holm < ALPHA`` (one-sided; the family-wise
counterpart of a 95 % interval's lower end above chance). Pooled over seeds (``seeds``), an
entry must also *replicate*: its accuracy lies above chance (and its control) in more than half
of the seeds that have it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from whatifbench.metrics.stats import holm, percent, wilson_ci

MIN_N = 60
"""A set needs this many scored items (pairs, for pair probes) to be flagged."""
MARGIN = 5.0
"""... accuracy more than this many points above chance ..."""
ALPHA = 0.025
"""... and Holm-adjusted one-sided p below this (a two-sided 5 % family-wise level)."""
EXACT_VALUES = 24
"""Up to this many distinct chance values the p-value is exact (a convolution of binomials);
beyond, a normal approximation with continuity correction."""


def null_counts(chances: Iterable[float]) -> dict[str, int]:
    """How many scored items have each chance value (keys: the value, 6 decimals)."""
    out: dict[str, int] = {}
    for c in chances:
        key = f"{float(c):.6f}"
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


def p_above(hits: int, null: dict[str, int]) -> float | None:
    """One-sided p of at least ``hits`` right when each scored item is right with its chance
    (``null``: chance value → count); ``None`` for nothing scored."""
    total = sum(null.values())
    if not total:
        return None
    if hits <= 0:
        return 1.0
    from scipy.stats import binom, norm

    values = [(float(c), k) for c, k in null.items() if k]
    if len(values) > EXACT_VALUES:
        mean = sum(c * k for c, k in values)
        var = sum(c * (1 - c) * k for c, k in values)
        if var <= 0:
            return 1.0 if hits <= mean else 0.0
        return float(norm.sf((hits - 0.5 - mean) / var ** 0.5))
    pmf = np.array([1.0])
    for c, k in values:
        pmf = np.convolve(pmf, binom.pmf(np.arange(k + 1), k, min(max(c, 0.0), 1.0)))
    return float(min(1.0, max(0.0, pmf[hits:].sum())))


def p_control(better: int, worse: int) -> float:
    """One-sided sign test: p of at least ``better`` items right only in the probe (and wrong
    only in its control) out of the ``better + worse`` where the two disagree (1 when they
    never disagree)."""
    total = better + worse
    if not total:
        return 1.0
    from scipy.stats import binom

    return float(binom.sf(better - 1, total, 0.5))


def _with_control(entry: dict[str, Any], control_hits: int, better: int,
                  worse: int) -> dict[str, Any]:
    """Add a control's figures to an entry; ``p`` becomes the larger of the p against chance
    and the p against the control (beating both is what is tested)."""
    n = int(entry["n"])
    against = p_control(better, worse)
    p_chance = entry["p"]
    both = None if p_chance is None else max(p_chance, against)
    return {**entry, "control": percent(control_hits, n) if n else None,
            "control_hits": control_hits, "discordant": [better, worse],
            "p_chance": p_chance, "p_control": against, "p": both}


def scored_entry(right: Sequence[bool] | np.ndarray, chances: Sequence[float],
                 control: Sequence[bool] | np.ndarray | None = None) -> dict[str, Any]:
    """``n``, ``hits``, ``accuracy``, ``chance``, ``interval``, ``p`` and ``null`` of a set of
    scored items (or pairs) and their chances (percent; ``None`` figures for an empty set);
    with the ``control``'s right/wrong per item, its accuracy and the sign test against it."""
    right = np.asarray(right, dtype=bool)
    n, hits = int(len(right)), int(right.sum())
    null = null_counts(chances)
    entry = {"n": n, "hits": hits, "accuracy": percent(hits, n) if n else None,
             "chance": round(100.0 * float(np.mean(chances)), 2) if n else None,
             "interval": list(wilson_ci(hits, n)) if n else None, "p": p_above(hits, null),
             "null": null}
    if control is None:
        return entry
    other = np.asarray(control, dtype=bool)
    return _with_control(entry, int(other.sum()), int((right & ~other).sum()),
                         int((~right & other).sum()))


def pooled_entry(parts: Sequence[dict[str, Any]], value: str = "accuracy") -> dict[str, Any]:
    """One entry from the same entry of several seeds: hits, ``n`` and ``null`` (and a
    control's hits and disagreements) added, the tests recomputed, and ``seeds`` /
    ``seeds_above`` (how many seeds have it, and above chance and its control)."""
    n = sum(int(p["n"]) for p in parts)
    hits = sum(int(p["hits"]) for p in parts)
    null: dict[str, int] = {}
    for part in parts:
        for c, k in part["null"].items():
            null[c] = null.get(c, 0) + int(k)
    null = dict(sorted(null.items()))
    mean = sum(float(c) * k for c, k in null.items()) / n if n else None
    above = sum(1 for p in parts if p.get(value) is not None and p.get("chance") is not None
                and p[value] > max(p["chance"], p.get("control") or p["chance"]))
    entry = {"n": n, "hits": hits, value: percent(hits, n) if n else None,
             "chance": round(100.0 * mean, 2) if mean is not None else None,
             "interval": list(wilson_ci(hits, n)) if n else None,
             "p": p_above(hits, null), "null": null}
    if all("discordant" in p for p in parts):
        entry = _with_control(entry, sum(int(p["control_hits"]) for p in parts),
                              sum(int(p["discordant"][0]) for p in parts),
                              sum(int(p["discordant"][1]) for p in parts))
    return {**entry, "seeds": len(parts), "seeds_above": above}


def families(result: dict[str, Any]) -> list[list[tuple[dict[str, Any], str]]]:
    """The tests of an audit result by family, each test with the name of its accuracy field:
    the text baselines (the whole set ``blind`` and the slices), then each probe (its whole
    scope and its slices)."""
    text: list[tuple[dict[str, Any], str]] = []
    if isinstance(result.get("blind"), dict) and "p" in result["blind"]:
        text.append((result["blind"], "accuracy"))
    text += [(entry, "blind") for entry in result.get("slices") or [] if "p" in entry]
    out = [text]
    for probe in result.get("probes") or []:
        out.append([(probe, "accuracy")] * ("p" in probe)
                   + [(entry, "accuracy") for entry in probe.get("slices") or [] if "p" in entry])
    return out


def tests(result: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """Every test of an audit result (``families`` flattened)."""
    for family in families(result):
        yield from family


def apply_flags(result: dict[str, Any]) -> dict[str, Any]:
    """Set ``p_holm`` and ``flagged`` on every test of ``result`` (in place; returned): Holm
    within each family over the tests that have a p-value, then the flag rule of this
    module."""
    for family in families(result):
        scored = [(entry, field) for entry, field in family if entry.get("p") is not None]
        adjusted = holm([float(entry["p"]) for entry, _ in scored])
        for (entry, field), p in zip(scored, adjusted, strict=True):
            entry["p_holm"] = round(p, 8)
            entry["flagged"] = is_flagged(entry, field)
        for entry, _ in family:
            if entry.get("p") is None:
                entry["p_holm"] = None
                entry["flagged"] = False
    return result


def is_flagged(entry: dict[str, Any], field: str = "accuracy") -> bool:
    """The flag rule on an entry that has ``p_holm`` (and, pooled over seeds, replicates)."""
    value, chance, p = entry.get(field), entry.get("chance"), entry.get("p_holm")
    if value is None or chance is None or p is None:
        return False
    if entry.get("control") is not None:
        chance = max(chance, entry["control"])
    if "seeds" in entry and not 2 * int(entry.get("seeds_above", 0)) > int(entry["seeds"]):
        return False
    return int(entry["n"]) >= MIN_N and value > chance + MARGIN and p < ALPHA


def rule_text() -> str:
    """The flag rule in one sentence (for tables' notes)."""
    return (f"flagged: n ≥ {MIN_N}, more than {MARGIN:g} points above chance (and above the "
            f"control, for a probe), and the one-sided p of a test against chance (and the "
            f"control), Holm-adjusted over the guesser's figures (the whole set and its slices), "
            f"below {ALPHA:g}")
