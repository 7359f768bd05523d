"""Speed of the validity audit (``whatif audit``) on a default C-VQA-Synthetic generation.

Generates the default suite (500 images per template: 6,000 items, 3,000 pairs; not timed) or
takes ``--dataset DIR``, then measures in one run:
  1. baseline: loading and validating the dataset's items (``load_dataset``, no images), what
     every command that reads the dataset pays;
  2. the audit itself, not cached: features, five blind baselines over 5 outer and 10 inner
     folds, slices, pair rules and the six metadata probes with their controls
     (``audit_items``); of which
  3. the metadata probes alone (``metadata_probes``).
Prints wall and CPU seconds, the ratio audit / baseline, and the audit's blind accuracy.
Target: ≤ 60 s for 6,000 items on 2 cores (the audit runs in one process).

    PYTHONPATH=src python bench/bench_audit.py [--dataset DIR] [--per-template 500] [--repeat N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from whatifbench.analysis.audit.audit import audit_items, audited
from whatifbench.analysis.audit.probe_results import metadata_probes
from whatifbench.core.dataset import load_dataset
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator

TARGET_SECONDS = 60.0


def timed(fn, *args):  # type: ignore[no-untyped-def]
    """``(fn(*args), wall seconds, CPU seconds of this process)``."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, help="audit this dataset instead")
    parser.add_argument("--per-template", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dataset
        if folder is None:
            folder = Path(tmp) / "cvqa"
            CvqaSyntheticGenerator.generate(folder, per_template=args.per_template, seed=0)
        for run in range(args.repeat):
            ds, load, load_cpu = timed(load_dataset, folder, False)
            result, audit, audit_cpu = timed(audit_items, ds.items)
            blind = result["blind"]
            print(f"run {run + 1}: {len(ds.items)} items ({ds.card.name})")
            print(f"  baseline load_dataset (items only)  {load:7.2f} s wall  {load_cpu:7.2f} s "
                  "CPU")
            print(f"  audit (not cached)                  {audit:7.2f} s wall  {audit_cpu:7.2f} s "
                  f"CPU  = {audit / load:.0f}x the baseline")
            chosen = [item for item in ds.items if audited(item)]
            _, probes, probes_cpu = timed(metadata_probes, chosen)
            print(f"  of which the metadata probes          {probes:7.2f} s wall  {probes_cpu:7.2f}"
                  " s CPU")
            print(f"  blind accuracy {blind['accuracy']} % {blind['interval']} vs chance "
                  f"{blind['chance']} % (n={blind['n']})")
            verdict = "within" if audit <= TARGET_SECONDS else "ABOVE"
            print(f"  {verdict} the target of {TARGET_SECONDS:.0f} s for 6,000 items on 2 cores")


if __name__ == "__main__":
    main()
