"""The calibration bench: how every number we print behaves on data like real models'.

Prints, for docs/statistics.md:

- intervals: the coverage of the 95 % intervals of a share (Wilson) and of a paired difference
  (Newcombe) at n = 5, 10, 30, 100, 1000 (mean over true values spread across 0–100 %, the
  lowest over 5–95 %, intervals of zero width);
- paired tests: for items that come in pairs, the size at 5 % of the exact McNemar test over
  items (what we printed) and of the sign-flip test over pairs (what we print), and the
  coverage of the clustered interval;
- key flags: per population (independent, shared distractor, believe-your-eyes, weak) and
  number of runs (5, 8, 16, 40), false flags on 600 items with no wrong key, and recall and
  precision with 30 planted wrong keys;
- budget estimates: per kind of target model (like the bank's, better than every bank model,
  at chance, a one-template specialist, believe-your-eyes on a quarter of the units) and budget
  (50, 100, 200 units), coverage and mean error of each method against a random sample's
  (simulated draws), and the exact ratio of the stratified design's root mean squared error to
  a random sample's (from each target's design variance: no simulation noise).

    PYTHONPATH=src python bench/bench_calibration.py [--quick] [--only intervals|tests|keys|
        budgets] [--write-key-precision]

``--write-key-precision`` writes the key flags' measured precision and recall per number of runs
to src/whatifbench/analysis/items/key_precision.json (what ``whatif items`` says beside its
flags). ``--quick`` runs fewer seeds and models (a few minutes).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from whatifbench.analysis.calibration import budgets, coverage, keyflags, populations
from whatifbench.analysis.items import precision

SIZES = (5, 10, 30, 100, 1000)
RUNS = (5, 8, 16, 40)
BUDGETS = (50, 100, 200)


def intervals_section() -> None:
    print("## Intervals: coverage of the 95 % intervals")
    print(f"{'interval':44s} {'n':>5s} {'mean':>7s} {'min 5-95':>9s} {'zero-width':>10s}  how")
    rows = []
    for n in SIZES:
        rows.append(coverage.shares(n))
    for n in SIZES:
        rows.append(coverage.paired(n, draws=1000))
    for n in (5, 10, 30):
        rows.append(coverage.paired(n, correlations=(0.5, 0.75)))
    for c in rows:
        print(f"{c.what:44s} {c.n:5d} {c.mean:7.4f} {c.minimum:9.4f} {c.zero_width:10d}  "
              f"{'exact' if c.exact else 'simulated'}")
    print(f"6 of 6 right: {coverage.intervals.share(6, 6)}; 0 of 10: "
          f"{coverage.intervals.share(0, 10)}; 24 pairs, 12 discordant one way: "
          f"{coverage.intervals.paired_difference(0, 0, 12, 12)}")


def tests_section(quick: bool) -> None:
    print("\n## Paired tests over items that come in pairs (two equally good models)")
    print(f"{'pairs':>5s} {'within':>6s} {'McNemar over items':>19s} {'sign-flip over pairs':>21s}"
          f" {'interval coverage':>18s}")
    for pairs in (12, 50, 300):
        for within in (0.0, 0.5, 0.9):
            t = coverage.paired_test(pairs, within, sims=500 if quick else 2000)
            print(f"{pairs:5d} {within:6.1f} {t.mcnemar_items:19.3f} {t.sign_flip:21.3f} "
                  f"{t.coverage:18.3f}")


def keys_section(quick: bool, write: bool) -> None:
    print("\n## Key flags (600 items: 300 original/counterfactual pairs of 4-option questions)")
    seeds = range(2 if quick else 5)
    print(f"{'population':18s} {'runs':>4s} {'strength':>8s} {'false flags (clean) max/mean':>29s}"
          f" {'recall':>7s} {'precision':>9s}")
    by_runs: dict[int, list[keyflags.FlagFigures]] = {}
    for kind in populations.KINDS:
        for runs in RUNS:
            f = keyflags.measure(kind, runs, seeds)
            by_runs.setdefault(runs, []).append(f)
            mean = sum(f.false_clean) / len(f.false_clean)
            shown = "–" if f.precision is None else f"{f.precision:.2f}"
            kind_of = precision.strength([f.accuracy], 0.25)
            print(f"{kind:18s} {runs:4d} {kind_of:>8s} {max(f.false_clean):>20d} / {mean:5.1f} "
                  f"{f.recall or 0.0:7.2f} {shown:>9s}")
    if write:
        rows = []
        for runs, found in sorted(by_runs.items()):
            for kind_of, recall_of in (("usual", "independent"), ("weak", "weak")):
                shown = [f.precision for f in found if f.precision is not None
                         and (f.kind == "weak") == (kind_of == "weak")]
                recall = next(f for f in found if f.kind == recall_of).recall or 0.0
                rows.append({"runs": runs, "strength": kind_of,
                             "precision": round(min(shown), 3) if shown else None,
                             "recall": round(recall, 3)})
        data = {"measured_by": "bench/bench_calibration.py --write-key-precision",
                "populations": list(populations.KINDS), "items": 600, "planted": 30,
                "seeds": len(seeds), "by_runs": rows}
        path = Path(precision.__file__).with_name("key_precision.json")
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")


def budgets_section(quick: bool) -> None:
    print("\n## Budget estimates (600 units; bank fitted on 50 runs)")
    models = 60 if quick else 300
    for spread, guess in ((1.5, 0.0), (1.0, 0.0), (1.5, 0.25)):
        world = budgets.world(600, 50, 0, spread, guess)
        print(f"\n### unit difficulty N(0, {spread}), guessing {guess}: {models} targets per "
              "kind")
        print(f"{'kind':18s} {'N':>4s} {'method':11s} {'error':>6s} {'vs random':>9s} "
              f"{'exact':>6s} {'coverage':>8s} {'width':>6s} {'misfit':>6s}")
        for n in BUDGETS:
            for kind in budgets.TARGETS:
                rows = budgets.measure(world, kind, n, models, seed=1)
                exact = budgets.exact_ratio(world, kind, n, 4 * models, seed=2)
                base = next(r for r in rows if r.method == "random").mean_error
                for r in rows:
                    ratio = exact if r.method == "stratified" else 1.0
                    print(f"{kind:18s} {n:4d} {r.method:11s} {r.mean_error:6.2f} "
                          f"{r.mean_error / base:9.2f} {ratio:6.3f} {r.coverage:8.3f} "
                          f"{r.mean_width:6.1f} {r.misfit:6.2f}")
        if quick:
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and models")
    parser.add_argument("--only", choices=("intervals", "tests", "keys", "budgets"))
    parser.add_argument("--write-key-precision", action="store_true",
                        help="write the key flags' measured precision for whatif items")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.only in (None, "intervals"):
        intervals_section()
    if args.only in (None, "tests"):
        tests_section(args.quick)
    if args.only in (None, "keys"):
        keys_section(args.quick, args.write_key_precision)
    if args.only in (None, "budgets"):
        budgets_section(args.quick)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
