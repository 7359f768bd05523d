"""Program backends: how often the generated program failed, per kind and per role.

The C-VQA paper could not tell a program that crashed from a wrong answer; we can: every
sample of a program backend carries its trace, whose ``failure`` kind is ``compile`` (refused
or not valid), ``raise`` (an exception or a broken limit) or ``timeout``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.suite import Sample
from whatifbench.metrics.stats import percent

FAILURE_KINDS = ("compile", "raise", "timeout")


def failure_kind(sample: Sample) -> str | None:
    """The sample's program failure kind, or ``None`` (no program, or it returned a value)."""
    failure = (sample.trace or {}).get("failure")
    return failure.get("kind") if isinstance(failure, dict) else None


def _shares(samples: Sequence[Sample]) -> dict[str, Any]:
    kinds = [failure_kind(s) for s in samples]
    counts = {k: kinds.count(k) for k in FAILURE_KINDS}
    failed = sum(counts.values())
    out: dict[str, Any] = {"failed": percent(failed, len(samples))}
    out.update({k: percent(c, len(samples)) for k, c in counts.items()})
    out.update({"n_items": len(samples), "n_failed": failed})
    out.update({f"n_{k}": c for k, c in counts.items()})
    return out


def program_metrics(samples: Sequence[Sample]) -> dict[str, Any]:
    """Shares (percent) of items whose program failed, by kind, overall and per role; over the
    items that have a program (backend errors have none)."""
    traced = [s for s in samples if s.trace is not None]
    roles: list[str] = []
    for s in traced:
        if (s.role or "") not in roles:
            roles.append(s.role or "")
    return {**_shares(traced),
            "by_role": {r: _shares([s for s in traced if (s.role or "") == r]) for r in roles}}
