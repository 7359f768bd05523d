"""Blind (text-only) accuracy per slice of cvqa-synthetic and cfmm-synthetic in both designs,
the scene reader's accuracy, and what the shortcut-free design costs in generation speed.

For each generator and design (``paper``, ``shortcut-free``) and each seed, in one run:
  1. generation through the public API (same seed, same workers): wall seconds, items/s, and
     the ratio shortcut-free / paper;
  2. the text-only probes of ``tests/blind_check.py`` (question, options and the partner
     question only; 5-fold cross-validation grouped by pair): ``ngram-lr`` (logistic
     regression on n-grams crossed with the options), ``option-gbm`` (gradient boosting on
     option features: rank, position, value, distances, numbers in the question, the partner's
     options), ``wording-majority`` (most often right option per masked wording);
  3. ``builtin:scene-reader`` accuracy on the first seed's suite (overall and per group).

One line per slice of at least ``--min-items`` items: each probe's accuracy, averaged over the
seeds. The audit's rule (n >= 60, above chance + 5 points, Wilson 95 % lower end above chance)
is applied to each seed's figures; with some 150 slice-probe tests per suite it flags a few by
chance on a suite without any leak (cross-validated accuracy on a 500-item slice varies by
about 3 points), so a slice is marked ``*`` when it is flagged for the same probe in at least
two seeds, and the per-seed counts are printed below the table.

    PYTHONPATH=src python bench/bench_shortcut_free.py [--per-template 500] [--per-category 1000]
        [--seeds 0,1,2] [--workers N] [--only cvqa|cfmm] [--designs paper,shortcut-free]
        [--no-reader] [--min-items 60] [--dir DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from blind_check import PROBES, SliceResult, audit, flagged  # noqa: E402

from whatifbench import api  # noqa: E402
from whatifbench.core.dataset import load_dataset  # noqa: E402
from whatifbench.runner.evaluate import RunOptions  # noqa: E402
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator  # noqa: E402
from whatifbench.suites.cvqa_synthetic.generate import (  # noqa: E402
    CvqaSyntheticGenerator,
    default_workers,
)

DESIGNS = ("paper", "shortcut-free")


def _generate(name: str, design: str, seed: int, out: Path, args: argparse.Namespace
              ) -> float:
    t0 = time.perf_counter()
    if name == "cvqa-synthetic":
        CvqaSyntheticGenerator.generate(out, per_template=args.per_template, seed=seed,
                                        workers=args.workers, design=design)
    else:
        CfmmSyntheticGenerator.generate(out, per_category=args.per_category, seed=seed,
                                        workers=args.workers, design=design)
    return time.perf_counter() - t0


def _reader(out: Path) -> tuple[float, dict[str, float]]:
    """Scene-reader accuracy (percent) overall and per group."""
    [run] = api.run_all([out], ["builtin:scene-reader"], options=RunOptions(progress=False))
    groups: dict[str, list[bool]] = defaultdict(list)
    for s in run.samples:
        groups[s.group or ""].append(bool(s.correct))
    hits = [h for g in groups.values() for h in g]
    return (100 * sum(hits) / len(hits),
            {g: 100 * sum(h) / len(h) for g, h in sorted(groups.items())})


def _table(runs: list[list[SliceResult]], min_items: int) -> tuple[str, list[str]]:
    """Per slice and probe the accuracy averaged over seeds (``*``: flagged in two seeds or
    more); and the lines of the slices above chance + 5 points on average."""
    cells: dict[tuple[str, str], list[SliceResult]] = defaultdict(list)
    for results in runs:
        for r in results:
            cells[r.slice, r.probe].append(r)
    lines = [f"{'slice':<44} {'n':>5} {'chance':>6} " + " ".join(f"{p:>17}" for p in PROBES)]
    above = []
    for name in dict.fromkeys(r.slice for r in runs[0]):
        first = cells[name, PROBES[0]][0]
        if first.n < min_items:
            continue
        row = f"{name:<44} {first.n:>5} {first.chance:>6.1f} "
        for probe in PROBES:
            found = cells[name, probe]
            mean = sum(r.accuracy for r in found) / len(found)
            marks = sum(r.flagged for r in found)
            row += f"{mean:>16.1f}{'*' if marks >= 2 else ' '}"
            if mean > first.chance + 5:
                above.append(f"{name} {probe} {mean:.1f}")
        lines.append(row)
    return "\n".join(lines), above


def _one(name: str, args: argparse.Namespace, tmp: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    for design in args.designs:
        runs, seconds, items_n = [], 0.0, 0
        for seed in args.seeds:
            out = tmp / f"{name}-{design}-{seed}"
            seconds += _generate(name, design, seed, out, args)
            items = load_dataset(out, check_images=False).items
            items_n += len(items)
            runs.append(audit(items))
            if seed == args.seeds[0] and args.reader:
                overall, groups = _reader(out)
                reader = (f"builtin:scene-reader (seed {seed}): {overall:.2f} % (" + ", ".join(
                    f"{g} {a:.1f}" for g, a in groups.items()) + ")")
            if seed != args.seeds[0]:
                shutil.rmtree(out)
        text, above = _table(runs, args.min_items)
        print(f"\n== {name} --design {design}: {items_n} items over seeds "
              f"{', '.join(map(str, args.seeds))} in {seconds:.1f} s "
              f"({items_n / seconds:.0f} items/s); mean blind accuracy per slice")
        print(text)
        per_seed = [len(flagged(res)) for res in runs]
        print(f"flagged slice-probe results per seed: {per_seed}; slices above chance + 5 "
              f"points on average: {len(above)}" + (f" ({'; '.join(above)})" if above else ""))
        if args.reader:
            print(reader)
        figures[design] = items_n / seconds
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=500)
    parser.add_argument("--per-category", type=int, default=1000)
    parser.add_argument("--seeds", default="0", type=lambda v: [int(x) for x in v.split(",")],
                        help="comma-separated seeds (default 0); figures are averaged")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--only", choices=("cvqa", "cfmm"))
    parser.add_argument("--designs", default=",".join(DESIGNS),
                        type=lambda s: tuple(d for d in s.split(",") if d))
    parser.add_argument("--no-reader", dest="reader", action="store_false",
                        help="skip the scene reader runs")
    parser.add_argument("--min-items", type=int, default=60,
                        help="print slices of at least this many items (default 60)")
    parser.add_argument("--dir", default=None, help="where the temporary folders go")
    args = parser.parse_args()
    names = [n for n in ("cvqa-synthetic", "cfmm-synthetic")
             if args.only is None or n.startswith(args.only)]
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; seeds "
          f"{args.seeds}, workers {args.workers}, cvqa {args.per_template} per template, cfmm "
          f"{args.per_category} per category")
    with tempfile.TemporaryDirectory(dir=args.dir, prefix=".bench-shortcut-") as tmp:
        os.environ["WHATIF_HOME"] = str(Path(tmp) / "home")  # the reader's run store
        for name in names:
            rates = _one(name, args, Path(tmp))
            if set(DESIGNS) <= set(rates):
                print(f"{name}: generation speed shortcut-free / paper = "
                      f"{rates['shortcut-free'] / rates['paper']:.2f} (items/s ratio)")


if __name__ == "__main__":
    main()
