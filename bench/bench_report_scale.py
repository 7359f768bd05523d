"""``whatif report`` at C-VQA-Real size, and on a hostile 500 MB results.json, against earlier
versions in the same run (issue 32, items 7 and 11).

Builds, in a temporary folder, a release-sized C-VQA-Real dataset (3,144 pairs = 6,288 items over
3,026 small JPEGs) and three runs of the built-in models (random, constant, ignore-premise) in one
run folder, then times ``whatif report RUN --out NEW`` in fresh processes, alternating the
versions given with ``--rev`` (each checked out with ``git worktree`` into the temporary folder
and run from its ``src/``) with this checkout, and prints per version the median wall time and
peak memory (``ru_maxrss`` of the child) and their ratios to the first ``--rev``.

With ``--hostile-mb N`` (default 500; 0 leaves it out) it also writes a copy of the run folder
whose results.json carries an unknown spec field of N MB, and prints what ``report`` does with
it in each version: exit code, wall time, peak memory and the size of report.html.

Run: ``PYTHONPATH=src:bench python bench/bench_report_scale.py --rev aa3900f --rev f35a7de``
(the figures are noisy on a shared machine: compare the ratios of one run).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_cvqa_real_import as release

ROOT = Path(__file__).resolve().parents[1]


def build(root: Path) -> Path:
    """The dataset and a run folder of three built-in models; returns the run folder."""
    from whatifbench import api
    from whatifbench.runner.evaluate import RunOptions
    from whatifbench.runner.store import RunStore
    from whatifbench.suites.cvqa.real.importer import import_release

    release.SIZE = (64, 48)  # the report reads no pixels but thumbnails: small files suffice
    table, images = release.make_release(root)
    import_release(table, images, root / "dataset")
    store = RunStore(root / "store.sqlite")
    runs = api.run_all([root / "dataset"], ["builtin:random", "builtin:constant",
                                            "builtin:ignore-premise"], store=store,
                       options=RunOptions(progress=False))
    store.close()
    api.write_outputs(root / "run", runs)
    return root / "run"


def hostile(run: Path, out: Path, megabytes: int) -> Path:
    """A copy of ``run`` whose results.json carries an unknown spec field of ``megabytes``."""
    shutil.copytree(run, out)
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    data["runs"][0]["spec"]["notes_from_elsewhere"] = "x" * (megabytes << 20)
    data.pop("runs_sha256", None)  # as a file of another tool or an older version would be
    (out / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return out


def checkout(rev: str, where: Path) -> Path:
    """``src/`` of ``rev`` (a git worktree under ``where``); ``.`` is this checkout."""
    if rev == ".":
        return ROOT / "src"
    target = where / f"rev-{rev}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(target),
                    rev], check=True, capture_output=True)
    return target / "src"


def report(src: Path, run: Path, out: Path, home: Path) -> tuple[int, float, float]:
    """(exit code, wall seconds, peak MB) of ``whatif report run --out out`` from ``src``."""
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(src), "WHATIF_HOME": str(home)}
    code = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "r = subprocess.run([sys.executable, '-m', 'whatifbench', 'report', sys.argv[1], "
            "'--out', sys.argv[2]], capture_output=True)\n"
            "print(r.returncode, time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n")
    done = subprocess.run([sys.executable, "-c", code, str(run), str(out)], env=env,
                          capture_output=True, text=True, check=True)
    rc, wall, peak = done.stdout.split()
    return int(rc), float(wall), float(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", action="append", default=[],
                        help="earlier version to compare (repeatable; '.' is this checkout)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--hostile-mb", type=int, default=500)
    args = parser.parse_args()
    revs = [*args.rev, "."]
    with tempfile.TemporaryDirectory(prefix="whatif-bench-report-") as tmp:
        root = Path(tmp)
        os.environ["WHATIF_HOME"] = str(root / "home")
        start = time.perf_counter()
        run = build(root)
        print(f"built 3 runs x 6,288 items in {time.perf_counter() - start:.1f} s")
        srcs = {rev: checkout(rev, root) for rev in revs}
        figures: dict[str, list[tuple[float, float]]] = {rev: [] for rev in revs}
        for _ in range(args.repeats):
            for rev in revs:  # alternated, so a drifting machine hits every version alike
                rc, wall, peak = report(srcs[rev], run, root / "out", root / "home")
                if rc != 0:
                    raise SystemExit(f"report failed at {rev} (exit {rc})")
                figures[rev].append((wall, peak))
        base = revs[0]
        print(f"\nwhatif report, 3 runs x 6,288 items, median of {args.repeats} "
              f"(ratios to {base}):")
        med = {r: (statistics.median(w for w, _ in f), max(p for _, p in f))
               for r, f in figures.items()}
        for rev in revs:
            wall, peak = med[rev]
            print(f"  {rev:>10}: {wall:6.2f} s ({wall / med[base][0]:.2f}x), peak "
                  f"{peak:6.0f} MB ({peak / med[base][1]:.2f}x); walls "
                  f"{', '.join(f'{w:.2f}' for w, _ in figures[rev])}")
        if args.hostile_mb:
            bad = hostile(run, root / "hostile", args.hostile_mb)
            print(f"\nresults.json with an unknown {args.hostile_mb} MB spec field:")
            for rev in revs:
                rc, wall, peak = report(srcs[rev], bad, root / "out", root / "home")
                page = root / "out" / "report.html"
                size = page.stat().st_size / 2**20 if page.is_file() else 0.0
                print(f"  {rev:>10}: exit {rc}, {wall:6.2f} s, peak {peak:6.0f} MB, "
                      f"report.html {size:.1f} MB")
        for rev in revs:
            if rev != ".":
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(root / f"rev-{rev}")], check=False, capture_output=True)
    print(f"\nload average: {os.getloadavg()}; {resource.getrusage(resource.RUSAGE_SELF)}")


if __name__ == "__main__":
    main()
