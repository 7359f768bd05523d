"""The measured precision of the key flags for the runs at hand: ``key_precision.json`` holds what
``bench/bench_calibration.py --write-key-precision`` measured on simulated populations
(independent runs, a shared popular distractor, believe-your-eyes runs, weak runs;
docs/statistics.md) per number of runs and strength of the runs (``weak``: right on few more
questions than guessing would be; ``usual`` otherwise). A report whose runs are fewer than were
measured, or whose count and strength gave a precision below ``MIN_PRECISION``, shows no key
flags and says why."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MIN_PRECISION = 0.8
"""Key flags are shown only where their measured precision reaches this."""
WEAK = 0.25
"""Runs whose mean accuracy above chance, as a share of what is above chance, is below this
are weak (about 44 % right on four-option questions)."""
_FILE = Path(__file__).with_name("key_precision.json")


@dataclass(frozen=True)
class Measured:
    """The key flags' figures at one number of runs and strength (the worst population's)."""

    runs: int
    """Runs simulated."""
    strength: str
    """``weak`` or ``usual``."""
    precision: float | None
    """Lowest precision over the populations of that strength (share of flags that are wrong
    keys); ``None``: no flag was raised."""
    recall: float
    """Recall of planted wrong keys (independent runs for ``usual``, weak runs for ``weak``)."""


@functools.cache
def table() -> tuple[Measured, ...]:
    """Every measured run count and strength, runs in increasing order."""
    data = json.loads(_FILE.read_text(encoding="utf-8"))
    return tuple(sorted((Measured(int(r["runs"]), str(r["strength"]),
                                  None if r["precision"] is None else float(r["precision"]),
                                  float(r["recall"])) for r in data["by_runs"]),
                        key=lambda m: (m.strength, m.runs)))


def strength(accuracies: Sequence[float], chance: float) -> str:
    """``weak`` when the runs' mean accuracy is barely above ``chance`` (both shares)."""
    if not accuracies or chance >= 1.0:
        return "usual"
    above = (sum(accuracies) / len(accuracies) - chance) / (1.0 - chance)
    return "weak" if above < WEAK else "usual"


def for_runs(runs: int, kind: str = "usual") -> Measured | None:
    """The figures of the largest measured run count not above ``runs`` for runs of strength
    ``kind`` (``None`` below the smallest)."""
    found = [m for m in table() if m.strength == kind and m.runs <= runs]
    return found[-1] if found else None


def key_flag_note(runs: int, kind: str = "usual") -> tuple[bool, str]:
    """Whether key flags are shown for ``runs`` voting runs of strength ``kind``, and the
    sentence that says so."""
    m = for_runs(runs, kind)
    first = min(t.runs for t in table())
    weak = "weak (right on few more questions than guessing) " if kind == "weak" else ""
    if m is None:
        return False, (f"No 'key' flags: {runs} runs answered the items, and key flags were "
                       f"measured from {first} runs up (docs/statistics.md); the key doubts "
                       "are listed, but add runs before acting on them.")
    if m.precision is None or m.precision < MIN_PRECISION:
        found = "raised no flag" if m.precision is None else f"had a precision of {m.precision:.2f}"
        return False, (f"No 'key' flags: with {runs} {weak}runs they {found} on simulated "
                       f"populations like these (docs/statistics.md), below {MIN_PRECISION}; "
                       "the key doubts are listed, but add stronger runs before acting on "
                       "them.")
    return True, (f"'key' flags are a triage list: on simulated populations of {m.runs} {weak}"
                  f"runs or more at least {m.precision:.0%} of them were wrong keys, and they "
                  f"found {m.recall:.0%} of the wrong keys (docs/statistics.md); mistakes many "
                  "runs share are not counted against a key.")
