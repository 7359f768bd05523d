"""Text-only (blind) figures per slice of mucr-synthetic and CELLO, in both designs.

For each generator and design (``paper``, ``shortcut-free``) the bench builds a suite and runs the
three blind classifiers of ``tests/blind_check_mucr_cello.py`` (logistic regression on n-grams
of question and options, gradient boosting on option features, majority per masked wording;
5-fold cross-validation grouped by pair), printing per slice: n, chance, each classifier's
blind accuracy and whether the audit's rule flags it (n ≥ 60, more than 5 points above chance,
the 95 % interval above chance), and ``whatif audit``'s verdict (its own baselines). Also:

- mucr-synthetic: ``builtin:scene-reader`` accuracy (C2E, E2C, Cue; multi-image layout) on both
  designs, and the generation time of shortcut-free against paper (same run);
- position schemes under grouped 5-fold cross-validation (simulated slices of answer letters):
  how often the audit's rule flags a slice when each letter is right exactly n/4 times (as both
  designs draw them) and when letters are drawn independently, for a learner of position priors
  (the letter most often right in training) and a learner of answer counts (the least often);
- CELLO, built from the Visual Genome-like test world (``tests/cello_world.py``: names with
  the priors of photographs) or, with ``--graphs random``, from the random scene graphs of
  ``bench_cello_pipeline.py`` (random names and relations): questions per task, the build time
  of shortcut-free against paper, the share of distractors that are in the picture, and the
  "presence guess" (pick one of the options pictured in the image).

    PYTHONPATH=src python bench/bench_blind_mucr_cello.py [--groups 25] [--scenes 1500]
        [--graphs vg-like|random] [--per-task 100] [--seed 0] [--only mucr|cello]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_cello_pipeline import synthetic  # noqa: E402
from blind_check_mucr_cello import CLASSIFIERS, SliceResult, blind_check  # noqa: E402
from cello_world import world, write_scenes  # noqa: E402

from whatifbench import api  # noqa: E402
from whatifbench.analysis.audit.audit import audit_dataset, flagged_slices  # noqa: E402
from whatifbench.core.dataset import load_dataset  # noqa: E402
from whatifbench.core.item import Item  # noqa: E402
from whatifbench.runner.evaluate import RunOptions  # noqa: E402
from whatifbench.runner.store import RunStore  # noqa: E402
from whatifbench.suites.cello.build import build_cello  # noqa: E402
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator  # noqa: E402

DESIGNS = ("paper", "shortcut-free")


def audit(path: Path, by: tuple[str, ...]) -> None:
    """Print ``whatif audit``'s verdict on the dataset (its own baselines and slices)."""
    result = audit_dataset(path, by=by, refresh=True)
    blind = result["blind"]
    worst = max(result["slices"], key=lambda s: s["blind"] - s["chance"])
    flags = [f"{s['key']}={s['value']} {s['blind']:.1f} %" for s in flagged_slices(result)]
    print(f"whatif audit: blind {blind['accuracy']:.1f} % vs chance {blind['chance']:.1f} % "
          f"(n={blind['n']}); largest excess {worst['key']}={worst['value']} "
          f"{worst['blind']:.1f} % vs {worst['chance']:.1f} % (n={worst['n']}); flagged: "
          + (", ".join(flags) or "none"))


def table(title: str, items: list[Item]) -> None:
    """Print the blind figures of every slice."""
    results = blind_check(items)
    by: dict[str, dict[str, SliceResult]] = defaultdict(dict)
    for r in results:
        by[r.slice][r.classifier] = r
    names = list(CLASSIFIERS)
    print(f"\n{title}")
    print(f"{'slice':<40} {'n':>5} {'chance':>7} " + " ".join(f"{n:>16}" for n in names)
          + "  flagged")
    for name in sorted(by, key=lambda s: (s != "all", s)):
        row = by[name]
        first = row[names[0]]
        marks = [c for c in names if row[c].flagged]
        print(f"{name:<40} {first.n:>5} {first.chance:6.1f}% "
              + " ".join(f"{row[c].accuracy:15.1f}%" for c in names)
              + ("  " + ", ".join(marks) if marks else ""))


def mucr(root: Path, groups: int, seed: int) -> None:
    times = {}
    MucrSyntheticGenerator.generate(root / "warm-up", groups=1, seed=seed)
    for design in DESIGNS:
        t0 = time.perf_counter()
        MucrSyntheticGenerator.generate(root / design, groups=groups, seed=seed, design=design,
                                        overwrite=True)
        times[design] = time.perf_counter() - t0
        table(f"mucr-synthetic, {design} ({groups} groups, seed {seed})",
              list(load_dataset(root / design).items))
        audit(root / design, ("style",))
    print(f"\ngeneration: paper {times['paper']:.2f} s, shortcut-free "
          f"{times['shortcut-free']:.2f} s (ratio {times['shortcut-free'] / times['paper']:.2f})")
    for design in DESIGNS:
        store = RunStore(root / f"store-{design}.sqlite")
        try:
            [run] = api.run_all([root / design], ["builtin:scene-reader"], store=store,
                                options=RunOptions(progress=False))
        finally:
            store.close()
        m = run.metrics
        print(f"scene-reader on {design}: C2E {m['c2e']:.1f} %, E2C {m['e2c']:.1f} %, "
              f"Cue {m['cue']:.1f} % over {m['n_pairs']} pairs")


def position_schemes(trials: int = 2000, seed: int = 0) -> None:
    """Flag rates of exact and independent answer positions under both learners."""
    import numpy as np

    from whatifbench.metrics.stats import wilson_ci

    rng = np.random.default_rng(seed)
    print("\nanswer positions under grouped 5-fold CV (A-D; flagged share of simulated slices)")
    for n in (60, 100, 200):
        for scheme in ("exact", "independent"):
            flags = {"priors": 0, "counts": 0}
            for _ in range(trials):
                y = (rng.permutation(np.arange(n) % 4) if scheme == "exact"
                     else rng.integers(0, 4, n))
                folds = rng.permutation(np.arange(n) % 5)
                for name in flags:
                    hits = 0
                    for f in range(5):
                        counts = np.bincount(y[folds != f], minlength=4)
                        guess = counts.argmax() if name == "priors" else counts.argmin()
                        hits += int((y[folds == f] == guess).sum())
                    flags[name] += hits / n > 0.30 and wilson_ci(hits, n)[0] > 25.0
            print(f"  n={n:<4} {scheme:<12} priors {100 * flags['priors'] / trials:5.1f} %   "
                  f"counts {100 * flags['counts'] / trials:5.1f} %")


def presence(items: list[Item]) -> tuple[float, float]:
    """(share of distractors pictured in the image, accuracy of picking uniformly among the
    pictured options) over the multiple-choice items."""
    kinds = [i.meta["option_kinds"] for i in items if i.meta.get("option_kinds")]
    distractors = [k for ks in kinds for k in ks if k != "correct"]
    shown = sum(k in ("graph", "image") for k in distractors) / max(1, len(distractors))
    guess = sum(1 / sum(k != "text" for k in ks) for ks in kinds) / max(1, len(kinds))
    return 100 * shown, 100 * guess


def cello(root: Path, scenes: int, graphs: str, per_task: int, seed: int) -> None:
    made = world(scenes, seed) if graphs == "vg-like" else synthetic(scenes, seed)
    sg, data, images = write_scenes(root / "world", made)
    times = {}
    for design in DESIGNS:
        t0 = time.perf_counter()
        card = build_cello(sg, images, root / design, image_data=data, per_task=per_task,
                           seed=seed, design=design, overwrite=True)
        times[design] = time.perf_counter() - t0
        items = list(load_dataset(root / design).items)
        table(f"CELLO, {design} ({scenes} {graphs} scene graphs, --per-task {per_task}, "
              f"seed {seed})", items)
        audit(root / design, ("rung", "format", "graph_type"))
        shown, guess = presence(items)
        sizes = Counter(len(i.choices) for i in items if i.meta["format"] != "binary")
        print(f"questions per task: {card.counts['by_task']}")
        print(f"multiple choice by number of options: {dict(sorted(sizes.items()))}; "
              f"distractors in the picture: {shown:.1f} %; presence guess: {guess:.1f} %")
    print(f"\nbuild: paper {times['paper']:.2f} s, shortcut-free {times['shortcut-free']:.2f} s "
          f"(ratio {times['shortcut-free'] / times['paper']:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=25, help="mucr-synthetic groups")
    parser.add_argument("--scenes", type=int, default=1500, help="CELLO scene graphs")
    parser.add_argument("--graphs", choices=("vg-like", "random"), default="vg-like")
    parser.add_argument("--per-task", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("mucr", "cello"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.only != "cello":
            mucr(Path(tmp) / "mucr", args.groups, args.seed)
            position_schemes()
        if args.only != "mucr":
            cello(Path(tmp) / "cello", args.scenes, args.graphs, args.per_task, args.seed)


if __name__ == "__main__":
    main()
