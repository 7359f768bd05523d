"""Blind (text-only) accuracy per slice of cvqa-synthetic and cfmm-synthetic in both designs,
the scene reader's accuracy, and what the shortcut-free design costs in generation speed.

For each generator and design (``paper``, ``shortcut-free``), in one run:
  1. generation through the public API (same seed, same workers): wall seconds, items/s, and
     the ratio shortcut-free / paper;
  2. the text-only probes of ``tests/blind_check.py`` (question, options and the partner
     question only; 5-fold cross-validation grouped by pair): ``ngram-lr`` (logistic
     regression on n-grams crossed with the options), ``option-gbm`` (gradient boosting on
     option features: rank, position, value, distances, numbers in the question, the partner's
     options), ``wording-majority`` (most often right option per masked wording). One line per
     slice of at least ``--min-items`` items; ``*`` marks a slice the audit's rule flags
     (n >= 60, above chance + 5 points, Wilson 95 % lower end above chance);
  3. ``builtin:scene-reader`` accuracy on the suite (overall and per group).

    PYTHONPATH=src python bench/bench_shortcut_free.py [--per-template 500] [--per-category 1000]
        [--seed 0] [--workers N] [--only cvqa|cfmm] [--designs paper,shortcut-free]
        [--no-reader] [--min-items 60] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from blind_check import PROBES, SliceResult, audit, flagged, table  # noqa: E402

from whatifbench import api  # noqa: E402
from whatifbench.core.dataset import load_dataset  # noqa: E402
from whatifbench.runner.evaluate import RunOptions  # noqa: E402
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator  # noqa: E402
from whatifbench.suites.cvqa_synthetic.generate import (  # noqa: E402
    CvqaSyntheticGenerator,
    default_workers,
)

DESIGNS = ("paper", "shortcut-free")


def _generate(name: str, design: str, out: Path, args: argparse.Namespace) -> float:
    t0 = time.perf_counter()
    if name == "cvqa-synthetic":
        CvqaSyntheticGenerator.generate(out, per_template=args.per_template, seed=args.seed,
                                        workers=args.workers, design=design)
    else:
        CfmmSyntheticGenerator.generate(out, per_category=args.per_category, seed=args.seed,
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


def _worst(results: list[SliceResult], min_items: int) -> str:
    big = [r for r in results if r.n >= min_items]
    top = max(big, key=lambda r: r.accuracy - r.chance)
    return (f"worst slice {top.slice} ({top.probe}): {top.accuracy:.1f} % vs chance "
            f"{top.chance:.1f} % (n={top.n})")


def _one(name: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for design in args.designs:
        out = tmp / f"{name}-{design}"
        seconds = _generate(name, design, out, args)
        items = load_dataset(out, check_images=False).items
        t0 = time.perf_counter()
        results = audit(items)
        probe_s = time.perf_counter() - t0
        print(f"\n== {name} --design {design}: {len(items)} items in {seconds:.1f} s "
              f"({len(items) / seconds:.0f} items/s); probes {', '.join(PROBES)} "
              f"({probe_s:.0f} s)")
        print(table(results, args.min_items))
        marks = flagged(results)
        print(f"flagged slice results: {len(marks)}; {_worst(results, args.min_items)}")
        if args.reader:
            overall, groups = _reader(out)
            print(f"builtin:scene-reader: {overall:.2f} % (" + ", ".join(
                f"{g} {a:.1f}" for g, a in groups.items()) + ")")
        figures[design] = seconds
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=500)
    parser.add_argument("--per-category", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
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
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; seed "
          f"{args.seed}, workers {args.workers}, cvqa {args.per_template} per template, cfmm "
          f"{args.per_category} per category")
    with tempfile.TemporaryDirectory(dir=args.dir, prefix=".bench-shortcut-") as tmp:
        os.environ["WHATIF_HOME"] = str(Path(tmp) / "home")  # the reader's run store
        for name in names:
            seconds = _one(name, args, Path(tmp))
            if set(DESIGNS) <= set(seconds):
                print(f"{name}: generation time shortcut-free / paper = "
                      f"{seconds['shortcut-free'] / seconds['paper']:.2f}")


if __name__ == "__main__":
    main()
