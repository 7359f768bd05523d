"""Krippendorff's alpha over annotators: nominal (categories) and interval (numbers).

Computed from the coincidence matrix in closed form (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability"): only units with two or more values count; a missing value
(an unsure or unparseable answer, an item the annotator did not get) is left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence

LEVELS = ("nominal", "interval")


def alpha(units: Iterable[Sequence[Hashable | None]], level: str = "nominal") -> float | None:
    """Alpha of ``units`` (each the values the annotators gave one item, ``None`` = missing);
    ``None`` when undefined (fewer than two pairable values, or no variation at all).
    ``interval`` values must be numbers."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    observed = 0.0
    totals: Counter[Hashable] = Counter()
    for unit in units:
        counts = Counter(v for v in unit if v is not None)
        m = sum(counts.values())
        if m < 2:
            continue
        totals.update(counts)
        observed += _spread(counts, level) / (m - 1)
    n = sum(totals.values())
    if n < 2:
        return None
    expected = _spread(totals, level) / (n - 1)
    if expected <= 1e-12:
        return None
    return 1.0 - observed / expected


def _spread(counts: Counter[Hashable], level: str) -> float:
    """Sum of the distances over all ordered pairs of the values counted: ``m² − Σ n_c²``
    (nominal) or ``2 (m Σ n_c c² − (Σ n_c c)²)`` (interval)."""
    m = sum(counts.values())
    if level == "nominal":
        return float(m * m - sum(c * c for c in counts.values()))
    values = [(float(v), c) for v, c in counts.items()]  # type: ignore[arg-type]
    s1 = sum(c * v for v, c in values)
    s2 = sum(c * v * v for v, c in values)
    return 2 * (m * s2 - s1 * s1)
