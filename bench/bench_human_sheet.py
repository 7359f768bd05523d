"""``whatif human import`` of large crowd sheets: wall time and peak memory (issue 32, item 6).

Generates, in a temporary folder, a C-VQA-Synthetic suite of 600 items (50 images per
template) and these sheets (CSV: ``item_id, annotator, answer, seconds, comment``):

- ``100x10``: 100 workers answering 10 random items each;
- ``1000x10``: 1,000 workers x 10 answers (about 450 KB);
- ``wide``: the 1,000 x 10 answers with a ``comment`` column of ``--comment-kb`` kB in every
  row (default 20: a 200 MB sheet whose bulk is a column the import ignores);
- ``unknown``: 100 workers x 10 answers, then ``--unknown`` rows naming items that are not in
  the dataset (default 1,000,000; the issue's 6.3 million took the old code to 2.0 GB),
  imported with ``--skip-invalid``.

Each case runs ``python -m whatifbench human import DATASET SHEET --out RUN`` as a fresh process
with a fresh ``$WHATIF_HOME`` (an empty run store), and reports its wall time and peak resident
memory (``wait4``'s ``ru_maxrss``). With ``--compare REV`` every case also runs on the code of git
revision ``REV`` (``git archive REV src``, put first on ``PYTHONPATH``), in the same run, on the
same files; a case that passes ``--limit`` seconds is stopped and reported as such (with the
peak it had reached).

Run: ``PYTHONPATH=src python bench/bench_human_sheet.py [--compare HEAD] [--limit 600]``.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def make_dataset(root: Path) -> tuple[Path, list[str]]:
    """The 600-item suite and its item ids."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "WHATIF_HOME": str(root / "gen-home")}
    out = root / "ds"
    subprocess.run([sys.executable, "-m", "whatifbench", "generate", "cvqa-synthetic",
                    "--per-template", "50", "--out", str(out)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    sys.path.insert(0, str(SRC))
    from whatifbench.core.dataset import load_dataset

    return out, [i.id for i in load_dataset(out).items]


def write_sheet(path: Path, ids: list[str], workers: int, per_worker: int = 10,
                comment_bytes: int = 0, unknown: int = 0) -> Path:
    """A seeded sheet (see the module docstring)."""
    rng = random.Random(0)
    comment = "x" * comment_bytes
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("item_id,annotator,answer,seconds,comment\n")
        for w in range(workers):
            for item in rng.sample(ids, per_worker):
                out.write(f"{item},w{w:04d},{'ABCD'[rng.randrange(4)]},"
                          f"{rng.uniform(2, 40):.1f},{comment}\n")
        row = "gone-{k},w0000,A,3.0,\n"
        block = 10_000
        for start in range(0, unknown, block):
            out.write("".join(row.format(k=k) for k in range(start, min(unknown, start + block))))
    return path


def measure(src: Path, dataset: Path, sheet: Path, out: Path, home: Path, limit: float,
            extra: list[str]) -> tuple[float, float, int]:
    """(seconds, peak MB, exit status: -9 when stopped at ``limit``) of one import."""
    env = {**os.environ, "PYTHONPATH": str(src), "WHATIF_HOME": str(home)}
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "whatifbench", "human", "import",
                                str(dataset), str(sheet), "--out", str(out), *extra],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = start + limit
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            seconds = time.perf_counter() - start
            return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)
        if time.perf_counter() > deadline:
            process.kill()
            _, _, usage = os.wait4(process.pid, 0)
            return time.perf_counter() - start, usage.ru_maxrss / 1024, -9
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", metavar="REV", help="also run the code of this revision")
    parser.add_argument("--limit", type=float, default=600.0,
                        help="stop a case after this many seconds (default 600)")
    parser.add_argument("--comment-kb", type=int, default=20)
    parser.add_argument("--unknown", type=int, default=1_000_000)
    parser.add_argument("--cases", default="100x10,1000x10,wide,unknown")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-human-sheet-") as tmp:
        root = Path(tmp)
        codes = {"new": SRC}
        if opts.compare:
            old = root / "old"
            old.mkdir()
            archive = subprocess.run(["git", "archive", opts.compare, "src"], check=True,
                                     capture_output=True, cwd=SRC.parent).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            codes = {opts.compare: old / "src", "new": SRC}
        dataset, ids = make_dataset(root)
        sheets = {
            "100x10": (lambda p: write_sheet(p, ids, 100), []),
            "1000x10": (lambda p: write_sheet(p, ids, 1000), []),
            "wide": (lambda p: write_sheet(p, ids, 1000, comment_bytes=opts.comment_kb * 1024),
                     []),
            "unknown": (lambda p: write_sheet(p, ids, 100, unknown=opts.unknown),
                        ["--skip-invalid"]),
        }
        print(f"machine: {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}; "
              f"dataset: {len(ids)} items")
        print(f"{'case':<10} {'sheet':>10} {'code':>8} {'seconds':>9} {'peak MB':>9} end")
        for name in opts.cases.split(","):
            make, extra = sheets[name]
            sheet = make(root / f"{name}.csv")
            size = sheet.stat().st_size / 1e6
            for label, src in codes.items():
                run = root / f"run-{name}-{label}"
                seconds, peak, status = measure(src, dataset, sheet, run,
                                                root / f"home-{name}-{label}", opts.limit, extra)
                said = "stopped (still running)" if status == -9 else f"exit {status}"
                print(f"{name:<10} {size:>8.2f}MB {label:>8} {seconds:9.1f} {peak:9.0f} "
                      f"{said}", flush=True)
            sheet.unlink()


if __name__ == "__main__":
    main()
