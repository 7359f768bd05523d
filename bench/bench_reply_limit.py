"""What a server answering with huge bodies costs a run: peak memory, run folder size, failed items.

Starts fake OpenAI-compatible servers (tests/fake_openai_server.py) and runs ``whatif run`` as a
real process over a small photo dataset (``--pairs`` pairs, two items each), measuring the
process's peak resident memory (``ru_maxrss``), its wall time, the run folder's size and the
failed items:

1. baseline: a well-behaved server (measured in the same run);
2. one huge reply: the second request is answered with a ``--mb`` MB body
   (``Content-Length`` given; the issue's case), target: one failed item, peak memory under
   1.5 GB, run folder under 20 MB;
3. every reply huge, in chunked encoding (no length to refuse on: the body is read up to the
   limit, then the connection is dropped), target: every item failed, same bounds;
4. a fleet of two servers of which one answers every call with a huge chunked body.

``--uncapped`` adds setting 2 with ``-M max_reply_mb`` above the body size (the old behaviour:
the whole body read); it needs several GB of memory.

Run: PYTHONPATH=src python bench/bench_reply_limit.py [--mb 200] [--pairs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

MEASURED = (
    "import resource, sys\n"
    "from whatifbench.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)
"""``whatif`` in a process that reports its own peak memory (the servers are not counted)."""


def folder_bytes(folder: Path) -> int:
    """Total size of the files under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def whatif_run(dataset: Path, urls: list[str], out: Path, home: Path,
               extra: list[str]) -> dict[str, Any]:
    """One ``whatif run`` process: exit status, peak memory, time, folder size, failures."""
    argv = ["run", "--suite", str(dataset), "--model", "openai:fake-vlm", "--out", str(out),
            "--no-progress", *(a for url in urls for a in ("--base-url", url)),
            "-M", "max_retries=1", "-M", "backoff=0.05", *extra]
    env = {**os.environ, "WHATIF_HOME": str(home), "PYTHONPATH": str(ROOT / "src")}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", MEASURED, *argv], env=env,
                          capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - started
    peak = next((int(line.split()[1]) for line in proc.stderr.splitlines()
                 if line.startswith("PEAK_KB")), 0)
    samples = [json.loads(line) for line in
               (out / "samples.jsonl").read_text().splitlines()] if out.is_dir() else []
    errors = [s["error"] for s in samples if s.get("error")]
    return {"code": proc.returncode, "peak_mb": peak / 1024, "seconds": seconds,
            "folder_mb": folder_bytes(out) / 1e6 if out.is_dir() else 0.0,
            "items": len(samples), "failed": len(errors),
            "error": errors[0][:110] if errors else "",
            "stderr": proc.stderr[-400:] if proc.returncode not in (0, 3) else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="size of a huge reply in MB")
    parser.add_argument("--pairs", type=int, default=2, help="item pairs in the dataset")
    parser.add_argument("--uncapped", action="store_true",
                        help="also run without a cap (reads every huge body whole)")
    opts = parser.parse_args()

    from fake_openai_server import FakeOpenAIServer
    from photos import make_photo_dataset

    size = opts.mb * 1_000_000
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dataset = make_photo_dataset(root / "ds", n_pairs=opts.pairs)
        huge = {"huge_bytes": size}
        settings: dict[str, tuple[list[dict[str, Any]], list[str]]] = {
            "baseline (well-behaved server)": ([{}], []),
            f"one {opts.mb} MB reply (Content-Length)": ([{"schedule": {"2": "huge"}, **huge}],
                                                         []),
            f"every reply {opts.mb} MB (chunked)": (
                [{"cycle": ["huge"], "huge_chunked": True, **huge}], []),
            "fleet: 1 of 2 servers always huge": (
                [{"cycle": ["huge"], "huge_chunked": True, **huge}, {}], []),
        }
        if opts.uncapped:
            settings[f"one {opts.mb} MB reply, uncapped"] = (
                [{"schedule": {"2": "huge"}, **huge}], ["-M", f"max_reply_mb={2 * opts.mb}"])
        results = {}
        for k, (name, (configs, extra)) in enumerate(settings.items()):
            servers = [FakeOpenAIServer(root / f"server{k}-{j}", config)
                       for j, config in enumerate(configs)]  # fresh: request numbers from 1
            try:
                results[name] = whatif_run(dataset, [s.url for s in servers], root / f"out{k}",
                                           root / f"home{k}", extra)
            finally:
                for server in servers:
                    server.stop()
    base = results["baseline (well-behaved server)"]
    print(f"{2 * opts.pairs} items per run; peak memory of the whatif process (ru_maxrss)\n")
    print(f"{'setting':<38} {'exit':>4} {'failed':>6} {'peak MB':>8} {'x base':>6} "
          f"{'folder MB':>9} {'seconds':>7}")
    for name, r in results.items():
        print(f"{name:<38} {r['code']:>4} {r['failed']:>3}/{r['items']:<2} {r['peak_mb']:>8.0f} "
              f"{r['peak_mb'] / base['peak_mb']:>6.2f} {r['folder_mb']:>9.2f} "
              f"{r['seconds']:>7.1f}")
        if r["stderr"]:
            print(f"    stderr: {r['stderr']}")
    print("\nerrors recorded:")
    for name, r in results.items():
        if r["error"]:
            print(f"  {name}: {r['error']}")
    capped = [r for n, r in results.items() if "uncapped" not in n and n != next(iter(results))]
    ok = all(r["peak_mb"] < 1536 and r["folder_mb"] < 20 for r in capped)
    one = results[f"one {opts.mb} MB reply (Content-Length)"]
    print(f"\ntarget (peak < 1.5 GB, folder < 20 MB, one huge reply = one failed item): "
          f"{'met' if ok and one['failed'] == 1 else 'NOT met'}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
