"""IRT recovery and budgeted estimates on simulated models: the figures of docs/item-quality.md.

A known 2PL bank (``--items`` units; discrimination log-normal(0, 0.5), difficulty normal(0, 1))
answers ``--models`` simulated models (standard normal abilities); the first ``--calibrate``
fit the bank exactly as ``whatif items --bank`` fits it (``analysis.items.bank.fit_bank``:
the 2PL by EM, then the five-fold calibration of the interval); the other models are held
out: each is estimated from ``--budget`` of its own answers, picked by stratified anchors and
adaptively, and compared with its full score (its mean over every unit).

Prints: the correlation of the recovered discrimination, difficulty and intercept with the
truth; per method the mean absolute error (points), the largest error, the interval's mean
width and its coverage of the full score; and the times.

    PYTHONPATH=src python bench/bench_irt.py [--items 1000] [--models 400] [--calibrate 300]
                                             [--budget 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from whatifbench.analysis.items.bank import fit_bank
from whatifbench.analysis.items.estimate import adaptive, estimate, stratified
from whatifbench.analysis.items.irt import prob


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--models", type=int, default=400)
    parser.add_argument("--calibrate", type=int, default=300)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    a = rng.lognormal(0.0, 0.5, args.items)
    b = rng.normal(0.0, 1.0, args.items)
    d = -a * b
    theta = rng.normal(0.0, 1.0, args.models)
    answers = (rng.random((args.models, args.items)) < prob(a, d, theta).T).astype(int)
    ids = [f"u{k:05d}" for k in range(args.items)]
    units = [(uid, f"item:{uid}", (uid,)) for uid in ids]
    fitting = answers[:args.calibrate]
    start = time.perf_counter()
    bank = fit_bank(fitting, np.ones_like(fitting, dtype=bool), units,
                    {"name": "simulated", "items_sha256": "-"}, "items", "accuracy",
                    calibration_budget=args.budget)
    fitted = time.perf_counter() - start
    arrays = bank.arrays()
    est_b = -arrays.d / arrays.a
    print(f"bank: {args.items} units, {args.calibrate} calibration models, "
          f"{args.models - args.calibrate} held out; fit + calibration {fitted:.1f} s "
          f"(EM cycles {bank.fit['iterations']}, converged {bank.fit['converged']})")
    print(f"recovery: corr(a) = {np.corrcoef(arrays.a, a)[0, 1]:.3f}, "
          f"corr(b) = {np.corrcoef(est_b, b)[0, 1]:.3f}, "
          f"corr(d) = {np.corrcoef(arrays.d, d)[0, 1]:.3f}")
    print(f"calibration: widen {bank.calibration.widen} over "
          f"{bank.calibration.respondents} held-out respondents at budget "
          f"{bank.calibration.budget}")
    for method in ("stratified", "adaptive"):
        errors, widths, covered = [], [], 0
        start = time.perf_counter()
        for r in range(args.calibrate, args.models):
            mine = {uid: bool(answers[r, k]) for k, uid in enumerate(ids)}

            def ask(chosen: list[str], mine: dict[str, bool] = mine) -> dict[str, bool]:
                return {u[len("item:"):]: mine[u[len("item:"):]] for u in chosen}

            if method == "stratified":
                outcomes = ask(stratified(arrays, args.budget))
            else:
                _, outcomes = adaptive(arrays, args.budget, ask)
            found = estimate(arrays, outcomes, bank.calibration.widen[method])
            full = 100.0 * answers[r].mean()
            errors.append(abs(found.value - full))
            widths.append(found.high - found.low)
            covered += found.low <= full <= found.high
        held = args.models - args.calibrate
        took = (time.perf_counter() - start) / held
        print(f"{method:>10}: budget {args.budget}: mean |error| {np.mean(errors):.2f} points, "
              f"max {np.max(errors):.2f}, mean interval width {np.mean(widths):.2f}, "
              f"coverage {covered / held:.1%} ({covered} of {held}); "
              f"{1000 * took:.0f} ms per model")


if __name__ == "__main__":
    main()
