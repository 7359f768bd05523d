"""Reading a run spec's estimate (``whatif run --budget``): what the row labels
(``report.labels``) and the ranking (``report.overview``) need, with nothing imported."""

from __future__ import annotations

from typing import Any


def estimate_of(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The estimate a run spec records (``None``: the run evaluated its items as they are)."""
    found = spec.get("estimate")
    return found if isinstance(found, dict) and found.get("kind") == "estimate" else None


def estimate_label(spec: dict[str, Any]) -> str | None:
    """``estimate: 100 of 600 items`` for a budgeted run, else ``None``."""
    found = estimate_of(spec)
    if found is None:
        return None
    return f"estimate: {found.get('items')} of {found.get('dataset_items')} items"


def estimated_headline(spec: dict[str, Any]) -> tuple[float, tuple[float, float]] | None:
    """A budgeted run's estimated full score and its interval (percent), else ``None``."""
    found = estimate_of(spec)
    if found is None or not isinstance(found.get("value"), (int, float)):
        return None
    interval = found.get("interval")
    if not (isinstance(interval, list) and len(interval) == 2
            and all(isinstance(v, (int, float)) for v in interval)):
        return None
    return float(found["value"]), (float(interval[0]), float(interval[1]))
