"""IRT recovery on simulated models: how well ``whatif items --bank`` recovers the 2PL parameters
from the runs a user has (the figures of docs/item-quality.md).

A known 2PL bank (``--items`` units; discrimination log-normal(0, 0.5), difficulty normal(0, 1))
answers simulated models with standard normal abilities; for each number of runs in
``--runs`` a bank is fitted exactly as ``whatif items --bank`` fits it
(``analysis.items.bank.fit_bank``). With ``--uneven``, abilities and guessing differ by
template (six templates, a template's ability shifted by N(0, 0.7) per model, a 4-option guess
on a third of the units), as real models' do.

Prints the correlation of the recovered discrimination, difficulty and intercept with the truth
and the time of each fit. Budget estimates are measured by bench/bench_calibration.py.

    PYTHONPATH=src python bench/bench_irt.py [--items 1000] [--runs 50,100,300] [--uneven]
                                             [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from whatifbench.analysis.items.bank import fit_bank
from whatifbench.analysis.items.irt import prob


def answers(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, runs: int,
            uneven: bool) -> np.ndarray:
    """Each simulated run's right (1) or wrong (0) on every unit."""
    theta = rng.normal(0.0, 1.0, runs)
    if not uneven:
        return (rng.random((runs, len(a))) < prob(a, -a * b, theta).T).astype(int)
    template = np.arange(len(a)) % 6
    shift = rng.normal(0.0, 0.7, (runs, 6))
    ability = theta[:, None] + shift[:, template]
    p = 1.0 / (1.0 + np.exp(-a[None, :] * (ability - b[None, :])))
    guess = (np.arange(len(a)) % 3 == 0)[None, :] * 0.25
    return (rng.random(p.shape) < guess + (1 - guess) * p).astype(int)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--runs", default="50,100,300")
    parser.add_argument("--uneven", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    a = rng.lognormal(0.0, 0.5, args.items)
    b = rng.normal(0.0, 1.0, args.items)
    units = [(f"u{k}", f"u{k}", (f"u{k}",)) for k in range(args.items)]
    print(f"{'runs':>5s} {'r(a)':>6s} {'r(b)':>6s} {'r(d)':>6s} {'fit s':>6s}")
    for runs in (int(r) for r in args.runs.split(",")):
        y = answers(rng, a, b, runs, args.uneven)
        start = time.perf_counter()
        bank = fit_bank(y, np.ones_like(y, dtype=bool), units, {"items_sha256": "sim"},
                        "questions", "accuracy")
        seconds = time.perf_counter() - start
        fa = np.array([u.a for u in bank.units])
        fd = np.array([u.d for u in bank.units])
        fb = np.where(np.abs(fa) >= 0.05, -fd / np.where(np.abs(fa) >= 0.05, fa, 1.0), np.nan)
        ok = np.isfinite(fb)
        print(f"{runs:5d} {np.corrcoef(fa, a)[0, 1]:6.3f} "
              f"{np.corrcoef(fb[ok], b[ok])[0, 1]:6.3f} {np.corrcoef(fd, -a * b)[0, 1]:6.3f} "
              f"{seconds:6.1f}")


if __name__ == "__main__":
    main()
