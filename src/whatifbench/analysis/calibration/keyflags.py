"""The key model's flags on simulated populations (``populations``): false flags per dataset
with no wrong key, and recall and precision with planted wrong keys."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from whatifbench.analysis.calibration import populations
from whatifbench.analysis.items.flags import KEY_DOUBT
from whatifbench.analysis.items.keys import KEY, key_doubts, normalise


@dataclass(frozen=True)
class FlagFigures:
    """The flags of one population and number of runs, summed over seeds."""

    kind: str
    """The population."""
    runs: int
    """Runs per dataset."""
    datasets: int
    """Datasets (seeds) of each kind: clean and planted."""
    items: int
    """Items per dataset."""
    false_clean: tuple[int, ...]
    """Flags per clean dataset (every one false)."""
    planted: int
    """Wrong keys planted in all planted datasets together."""
    found: int
    """Of those, flagged."""
    false_planted: int
    """Flags of right keys in the planted datasets."""
    accuracy: float
    """Mean share of items the runs answered right (against the keys as written)."""

    @property
    def recall(self) -> float | None:
        """Share of planted keys flagged."""
        return self.found / self.planted if self.planted else None

    @property
    def precision(self) -> float | None:
        """Share of flags (planted datasets) that are wrong keys; ``None`` without flags."""
        flags = self.found + self.false_planted
        return self.found / flags if flags else None


def flagged(ds: populations.SimDataset, kind: str, runs: int, seed: int
            ) -> tuple[set[str], float]:
    """The items whose key the model flags, from ``runs`` runs of population ``kind``, and
    the runs' mean accuracy."""
    keys = {i.id: i.target for i in ds.items}
    answers = [{k: (KEY if v == keys[k] else normalise(v)) for k, v in mine.items()}
               for mine in populations.answers(ds, kind, runs, seed)]
    doubts = key_doubts(ds.items, answers, populations.sources(ds))
    right = sum(v == KEY for mine in answers for v in mine.values())
    return ({k for k, d in doubts.items() if d.p_wrong >= KEY_DOUBT},
            right / sum(len(mine) for mine in answers))


def measure(kind: str, runs: int, seeds: Sequence[int], pairs: int = 300,
            planted: int = 30) -> FlagFigures:
    """Flags of ``kind`` with ``runs`` runs on a clean and a planted dataset per seed."""
    clean: list[int] = []
    found = false = total = 0
    accuracy: list[float] = []
    for seed in seeds:
        ds = populations.dataset(pairs, 0, seed)
        got, right = flagged(ds, kind, runs, 1000 + seed)
        clean.append(len(got))
        accuracy.append(right)
        ds = populations.dataset(pairs, planted, seed)
        got, _ = flagged(ds, kind, runs, 2000 + seed)
        found += len(got & ds.planted)
        false += len(got - ds.planted)
        total += len(ds.planted)
    return FlagFigures(kind, runs, len(seeds), 2 * pairs, tuple(clean), total, found, false,
                       sum(accuracy) / len(accuracy))
