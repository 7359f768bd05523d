"""Blind (text-only) accuracy per slice of cvqa-synthetic and cfmm-synthetic in both designs,
by ``whatif audit`` and by independent probes, the scene reader's accuracy, and what the
shortcut-free design costs in generation speed.

For each generator and design (``paper``, ``shortcut-free``) and each seed, in one run:
  1. generation through the public API (same seed, same workers): wall and CPU seconds,
     items/s, and the ratio shortcut-free / paper;
  2. ``whatif audit`` (``analysis.audit``: five blind baselines combined by nested
     cross-validation): its blind accuracy per slice (template, category, group, role) and
     whether it flags the slice;
  3. the independent probes of ``bench/blind_probes.py`` (question, options and the partner
     question only; 5-fold cross-validation grouped by pair): ``ngram-lr`` (logistic
     regression on n-grams crossed with the options), ``option-gbm`` (gradient boosting on
     option features: rank, position, value, distances, numbers in the question, the partner's
     options), ``wording-majority`` (most often right option per masked wording), per slice
     (also crossed with role);
  4. ``builtin:scene-reader`` accuracy on the first seed's suite (overall and per group).

Figures are averaged over the seeds. The flag rule (n >= 60, above chance + 5 points, Wilson
95 % lower end above chance) is applied to each seed's figures: the audit's flags are counted
per seed; for the probes, whose three figures on some fifty slices give a few flags by chance
on a suite without any leak (cross-validated accuracy on a 500-item slice varies by about 3
points), a slice is marked ``*`` when the same probe flags it in at least two seeds.

    PYTHONPATH=src python bench/bench_shortcut_free.py [--per-template 500] [--per-category 1000]
        [--seeds 0,1,2] [--workers N] [--only cvqa|cfmm] [--designs paper,shortcut-free]
        [--no-reader] [--min-items 60] [--dir DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from blind_probes import PROBES, SliceResult, audit, flagged
from pngbaseline import cpu_seconds

from whatifbench import api
from whatifbench.analysis.audit.audit import audit_items
from whatifbench.core.dataset import load_dataset
from whatifbench.core.design import DESIGNS
from whatifbench.runner.evaluate import RunOptions
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator, default_workers


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
                above.append(f"{name} {probe} {mean - first.chance:.1f}")
        lines.append(row)
    return "\n".join(lines), above


def _audit_table(results: list[dict[str, Any]]) -> str:
    """The audit's blind accuracy per slice, averaged over seeds, with its flags per seed."""
    lines = [f"{'audit slice':<44} {'n':>5} {'chance':>6} {'blind':>6}  flagged in seeds"]
    rows = [("all", r["blind"]["n"], r["blind"]["chance"], r["blind"]["accuracy"],
             r["blind"]["flagged"]) for r in results]
    cells: dict[str, list[tuple[str, int, float, float, bool]]] = {"all": rows}
    for r in results:
        for s in r["slices"]:
            name = f"{s['key']}={s['value']}"
            cells.setdefault(name, []).append((name, s["n"], s["chance"], s["blind"],
                                               s["flagged"]))
    for name, found in cells.items():
        n, chance = found[0][1], found[0][2]
        mean = sum(f[3] for f in found) / len(found)
        lines.append(f"{name:<44} {n:>5} {chance:>6.1f} {mean:>6.1f}  "
                     f"{sum(f[4] for f in found)} of {len(found)}")
    return "\n".join(lines)


def _one(name: str, args: argparse.Namespace, tmp: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    for design in args.designs:
        runs, audits, seconds, cpu, items_n = [], [], 0.0, 0.0, 0
        for seed in args.seeds:
            out = tmp / f"{name}-{design}-{seed}"
            cpu0 = cpu_seconds()
            seconds += _generate(name, design, seed, out, args)
            cpu += cpu_seconds() - cpu0
            items = load_dataset(out, check_images=False).items
            items_n += len(items)
            audits.append(audit_items(items))
            runs.append(audit(items))
            if seed == args.seeds[0] and args.reader:
                overall, groups = _reader(out)
                reader = (f"builtin:scene-reader (seed {seed}): {overall:.2f} % (" + ", ".join(
                    f"{g} {a:.1f}" for g, a in groups.items()) + ")")
            if seed != args.seeds[0]:
                shutil.rmtree(out)
        print(f"\n== {name} --design {design}: {items_n} items over seeds "
              f"{', '.join(map(str, args.seeds))}; generation {seconds:.1f} s wall, "
              f"{cpu:.1f} s CPU ({items_n / seconds:.0f} items/s, {items_n / cpu:.0f} per CPU s)")
        print(_audit_table(audits))
        text, above = _table(runs, args.min_items)
        print("\nindependent probes, mean blind accuracy per slice:")
        print(text)
        per_seed = [len(flagged(res)) for res in runs]
        print(f"probe flags per seed: {per_seed}; slice-probe figures above chance + 5 points "
              f"on average: {len(above)}" + (f" (worst: {max(above, key=_points)})"
                                              if above else ""))
        if args.reader:
            print(reader)
        figures[design] = items_n / cpu
    return figures


def _points(line: str) -> float:
    return float(line.rsplit(" ", 1)[1])


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
                      f"{rates['shortcut-free'] / rates['paper']:.2f} (items per CPU second)")


if __name__ == "__main__":
    main()
