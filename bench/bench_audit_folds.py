"""How far blind figures sit from chance when folds are dealt by group alone (the audit before
version 5) and by group and answer (``analysis.audit.baselines.answer_folds``).

Generates shortcut-free suites (C-VQA-Synthetic and CFMM-Synthetic, a few seeds), audits each
both ways in the same run, and prints per way the mean signed and mean absolute distance from
chance (points) of the blind accuracy, of its slices and of the metadata probes. On balanced
suites no figure should lean below chance: a lean hides a leak of the same size.

    PYTHONPATH=src python bench/bench_audit_folds.py [--seeds 41,42] [--per-template 100]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from whatifbench.analysis.audit import baselines, learners
from whatifbench.analysis.audit.audit import audit_dataset
from whatifbench.analysis.audit.baselines import FOLDS, assign_folds
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator


def _groups_only(keys: Sequence[str], groups: Sequence[str], answers: Any,
                 folds: int = FOLDS) -> np.ndarray:
    return assign_folds(keys, groups, folds)


@contextmanager
def by_group_alone() -> Iterator[None]:
    """The audit as before version 5: strata are the groups only."""
    with mock.patch.object(baselines, "answer_folds", _groups_only), \
            mock.patch.object(learners, "answer_folds", _groups_only):
        yield


def distances(paths: Sequence[Path]) -> dict[str, list[float]]:
    """Signed distances from chance (points) of every blind figure of the audits of ``paths``."""
    out: dict[str, list[float]] = {"blind": [], "slices": [], "probes": []}
    for path in paths:
        r = audit_dataset(path, refresh=True)
        out["blind"].append(r["blind"]["accuracy"] - r["blind"]["chance"])
        out["slices"] += [s["blind"] - s["chance"] for s in r["slices"]
                          if s.get("blind") is not None and s.get("chance") is not None]
        out["probes"] += [p["accuracy"] - p["chance"] for p in r["probes"]
                          if p.get("accuracy") is not None and p.get("chance") is not None]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="41,42")
    parser.add_argument("--per-template", type=int, default=100)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for seed in seeds:
            for name, gen, size in (("cvqa", CvqaSyntheticGenerator, "per_template"),
                                    ("cfmm", CfmmSyntheticGenerator, "per_category")):
                out = Path(tmp) / f"{name}-{seed}"
                gen.generate(out, seed=seed, **{size: args.per_template})
                paths.append(out)
        with by_group_alone():
            before = distances(paths)
        after = distances(paths)
    print(f"{len(paths)} suites (seeds {args.seeds}, {args.per_template} per template/category)")
    print(f"{'figures':8} {'n':>4}  {'by group: signed':>16} {'abs':>5}   "
          f"{'by group and answer: signed':>27} {'abs':>5}")
    for key in before:
        b, a = before[key], after[key]
        print(f"{key:8} {len(a):4}  {statistics.mean(b):16.2f} "
              f"{statistics.mean(map(abs, b)):5.2f}   {statistics.mean(a):27.2f} "
              f"{statistics.mean(map(abs, a)):5.2f}")


if __name__ == "__main__":
    main()
