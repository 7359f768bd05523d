"""Report building and page speed for 4 models x a 6,288-item C-VQA-Real-shaped suite.

Builds, in a temporary folder, a release-sized C-VQA-Real dataset (3,144 pairs over 3,026
distinct 640x480 JPEG files standing in for COCO val2014), evaluates four built-in models
(random, random with another seed, constant, ignore-premise) and measures in the same run:

- baseline: writing results.json + samples.jsonl alone;
- ``write_outputs`` (results, samples, execution, report.md, tables/, report.html): cold (empty
  figure and thumbnail caches), warm (median of five, alternated with the baseline), and with
  new figures (figure cache emptied, thumbnails cached: what a report after a new run costs);
- the size of report.html;
- in headless Chromium (/usr/bin/chromium, if installed): time from navigation to the first
  table rendered and the filters ready, and from choosing a filter to the new count;
- a fully cached default ``whatif run`` (subprocess) and the share its report takes.

Run: ``PYTHONPATH=src:bench python bench/bench_report.py`` (prints ``uptime`` too: the figures
are noisy on a shared machine).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_cvqa_real_import as release

from whatifbench.core.fsutil import write_text_atomic

CHROMIUM = Path("/usr/bin/chromium")


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def build_runs(root: Path):  # type: ignore[no-untyped-def]
    from whatifbench import api
    from whatifbench.runner.evaluate import RunOptions
    from whatifbench.runner.store import RunStore
    from whatifbench.suites.cvqa.real.importer import import_release

    release.SIZE = (640, 480)
    table, images = release.make_release(root)
    import_release(table, images, root / "dataset")
    store = RunStore(root / "store.sqlite")
    options = RunOptions(progress=False)
    runs = api.run_all([root / "dataset"], ["builtin:random", "builtin:constant",
                                            "builtin:ignore-premise"], store=store,
                       options=options)
    runs += api.run_all([root / "dataset"], ["random-seed1=builtin:random"], {"seed": 1},
                        store=store, options=options)
    store.close()
    return runs


def baseline(out: Path, runs) -> None:  # type: ignore[no-untyped-def]
    from whatifbench.report.render import results_json, samples_jsonl

    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "samples.jsonl", samples_jsonl(runs))
    write_text_atomic(out / "results.json", results_json(runs))


def browser_times(page_path: Path) -> tuple[float, float, float] | None:
    """(ms to ready by the page's clock, s wall from navigation, ms from filter to count)."""
    if not CHROMIUM.exists():
        return None
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto("about:blank")
        start = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_selector("table.results", state="attached", timeout=60_000)
        page.wait_for_selector("body[data-ready]", state="attached", timeout=60_000)
        wall = time.perf_counter() - start
        ready = float(page.get_attribute("body", "data-ready") or "nan")
        page.click("nav button[data-view=items]")
        page.wait_for_selector("#f-facet")
        before = page.inner_text("#match-count")
        start = time.perf_counter()
        page.select_option("#f-facet", "group: boolean")
        while page.inner_text("#match-count") == before:  # the page's CSP forbids eval
            if time.perf_counter() - start > 60:
                raise RuntimeError("the filter did not change the count within 60 s")
            time.sleep(0.005)
        filtered = 1000 * (time.perf_counter() - start)
        browser.close()
    return ready, wall, filtered


def default_run(home: Path, out: Path) -> float:
    env = {**os.environ, "WHATIF_HOME": str(home)}
    command = [sys.executable, "-m", "whatifbench", "run", "--no-progress", "--out"]
    subprocess.run([*command, str(out / "first")], env=env, check=True, capture_output=True)
    start = time.perf_counter()
    subprocess.run([*command, str(out / "second")], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["WHATIF_HOME"] = str(root / "home")
        from whatifbench.report.render import write_outputs

        runs = build_runs(root)
        items = sum(r.n_items for r in runs)
        timed(baseline, root / "base-first", runs)
        cold = timed(write_outputs, root / "cold", runs)
        base, warm = [], []
        for k in range(5):  # alternated, so that a slow spell of this shared machine hits both
            base.append(timed(baseline, root / f"base{k}", runs))
            warm.append(timed(write_outputs, root / f"warm{k}", runs))
        fresh = []  # new results: figures not drawn yet, thumbnails of the dataset cached
        for k in range(3):
            shutil.rmtree(root / "home" / "figures", ignore_errors=True)
            fresh.append(timed(write_outputs, root / f"fresh{k}", runs))
        size = (root / "warm0" / "report.html").stat().st_size
        print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
        print(f"runs {len(runs)}, samples {items}")
        print(f"baseline: results.json + samples.jsonl:   {statistics.median(base):.2f} s "
              "(median of 5)")
        print(f"write_outputs, cold caches:               {cold:.2f} s "
              f"({cold / statistics.median(base):.2f}x the baseline)")
        pairs = statistics.median(w / b for w, b in zip(warm, base, strict=True))
        print(f"write_outputs, warm caches (median of 5): {statistics.median(warm):.2f} s "
              f"({statistics.median(warm) / statistics.median(base):.2f}x the baseline; "
              f"median of the 5 paired ratios {pairs:.2f}x)")
        print(f"write_outputs, new figures (median of 3): {statistics.median(fresh):.2f} s "
              f"({statistics.median(fresh) / statistics.median(base):.2f}x the baseline; "
              "figures drawn, thumbnails cached: the usual case after a run)")
        print(f"report.html: {size / 1e6:.1f} MB")
        times = browser_times(root / "warm0" / "report.html")
        if times is None:
            print("Chromium not found at /usr/bin/chromium: page timings skipped")
        else:
            ready, wall, filtered = times
            print(f"page ready (first table, filters) by the page's clock: {ready:.0f} ms; "
                  f"from navigation (wall): {wall:.2f} s; filter to new count: "
                  f"{filtered:.0f} ms")
        cached = default_run(root / "default-home", root / "default")
        from whatifbench import api
        from whatifbench.runner.evaluate import RunOptions

        os.environ["WHATIF_HOME"] = str(root / "default-home")
        small = api.run_all([api.default_dataset()], list(api.DEFAULT_MODELS),
                            options=RunOptions(progress=False))
        report = statistics.median(
            timed(write_outputs, root / f"default-report{k}", small) for k in range(3))
        print(f"default 'whatif run', fully cached (subprocess): {cached:.2f} s, of which "
              f"write_outputs (in process, warm): {report:.2f} s")


if __name__ == "__main__":
    main()
