"""What the image ablations do to the scene reader, and what reference rows and paired
comparisons cost a report.

Generates (in a temporary folder) C-VQA-Synthetic suites of both designs (N images per
template, default 500: 3,000 pairs each), runs ``builtin:scene-reader`` with its images, blanked
and shuffled, and prints its accuracy on all counterfactual questions: of the ``shortcut-free``
suite (a text-only model is at chance there), of the ``paper`` suite, and of the paper suite's
counterfactuals whose options leave the release's distractor rule nothing to go by
(``suites.cvqa_synthetic.options.window_ambiguous``: a text-only model is near chance there).
Then times, in the same run, the tables of the paper suite's three runs plus ``builtin:random`` and
``builtin:constant``: the suite's tables alone and with the reference rows and the paired
comparisons (what every report now builds; ``bench/bench_report.py`` times whole reports).

Run: ``PYTHONPATH=src python bench/bench_validity.py [N]``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from whatifbench import api
from whatifbench.report import comparisons, reference
from whatifbench.report.render import tables_for
from whatifbench.runner.evaluate import RunOptions, get_suite
from whatifbench.runner.store import RunStore
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.options import window_ambiguous


def accuracy(samples: list, keep: set[str] | None = None) -> tuple[float, int]:
    chosen = [s for s in samples if s.role == "counterfactual"
              and (keep is None or s.item_id in keep)]
    return 100 * sum(s.correct for s in chosen) / len(chosen), len(chosen)


def main() -> None:
    per_template = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = RunStore(root / "store.sqlite")
        suites = {}
        for design in ("shortcut-free", "paper"):
            start = time.perf_counter()
            CvqaSyntheticGenerator.generate(root / design, per_template=per_template, seed=0,
                                            design=design)
            suites[design] = api.load_dataset(root / design)
            print(f"(generated {6 * per_template} {design} pairs in "
                  f"{time.perf_counter() - start:.1f}s)")
        data = suites["paper"]
        ambiguous = {i.id for i in data.items if i.role == "counterfactual"
                     and window_ambiguous([int(c) for c in i.choices])}
        print(f"{'scene-reader':<12}{'shortcut-free, all cf':>23}{'paper, all cf':>22}"
              f"{'paper, window-ambiguous cf':>30}")
        runs = []
        for ablation in (None, "blank", "shuffled"):
            start = time.perf_counter()
            options = RunOptions(progress=False, image_ablation=ablation)
            (free,) = api.run_all([suites["shortcut-free"]], ["builtin:scene-reader"],
                                  store=store, options=options)
            (run,) = api.run_all([data], ["builtin:scene-reader"], store=store, options=options)
            runs.append(run)
            cells = [accuracy(free.samples), accuracy(run.samples),
                     accuracy(run.samples, ambiguous)]
            print(f"{ablation or 'full':<12}"
                  + "".join(f"{a:>{w - 9}.1f} (n={n:<4})"
                            for (a, n), w in zip(cells, (23, 22, 30), strict=True))
                  + f"   {time.perf_counter() - start:.1f}s")
        runs += api.run_all([data], ["builtin:random", "builtin:constant"], store=store,
                            options=RunOptions(progress=False))
        store.close()
        suite = get_suite(data.suite)
        start = time.perf_counter()
        suite.tables(runs)
        base = time.perf_counter() - start
        reference._CACHE.clear()
        comparisons._MEMO.clear()
        start = time.perf_counter()
        tables_for(runs)
        full = time.perf_counter() - start
        start = time.perf_counter()
        tables_for(runs)
        again = time.perf_counter() - start
        print(f"tables of {len(runs)} runs × {len(data.items)} items: the suite's alone "
              f"{base:.3f}s; with the reference rows and paired comparisons {full:.2f}s "
              f"(asked again in the same report: {again:.2f}s). bench/bench_report.py times "
              "the whole report against writing results.json + samples.jsonl.")


if __name__ == "__main__":
    main()
