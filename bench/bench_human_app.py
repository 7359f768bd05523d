"""The annotation app's overhead per item over a 200-item session (``whatif human serve``).

Generates, in a temporary folder, a C-VQA-Synthetic suite of 204 items (102 pairs), starts the
real ``whatif human serve --limit 200`` process, and measures in the same run:

- browser: headless Chromium (/usr/bin/chromium via Playwright) answers all 200 items by
  keyboard (a digit, then Enter); per item, the time from the key press to the next item shown
  with its image decoded: what the app adds to a person's time on each item;
- HTTP: the same session driven by the API alone (POST the answer, which returns the next
  item, then GET its image): the server's share, without rendering;
- the answers found in the store afterwards (all 200 of each session).

With ``--screenshots DIR`` it also writes ``human-cvqa.png``, ``human-cfmm.png`` and
``human-mucr.png``: the app on a C-VQA-Synthetic, a CFMM-Synthetic and a MuCR-Synthetic item.

Run: ``PYTHONPATH=src python bench/bench_human_app.py [--screenshots docs]`` (prints ``uptime``
too: the figures are noisy on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
ITEMS = 200
LINK = re.compile(r"^\s+\S+: (http://\S+)$")


def whatif(args: list[str], home: Path) -> None:
    env = {**os.environ, "WHATIF_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "whatifbench", *args], env=env, check=True,
                   stdout=subprocess.DEVNULL)


def serve(dataset: Path, home: Path, names: list[str], *extra: str
          ) -> tuple[subprocess.Popen[str], list[str]]:
    """``whatif human serve`` as a process; its links, one per name."""
    env = {**os.environ, "WHATIF_HOME": str(home)}
    args = [sys.executable, "-m", "whatifbench", "human", "serve", str(dataset), "--no-browser",
            *extra]
    for name in names:
        args += ["--annotator", name]
    process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True)
    links = []
    assert process.stdout is not None
    for line in process.stdout:
        found = LINK.match(line)
        if found:
            links.append(found.group(1))
        if line.startswith("Ctrl-C"):
            return process, links
    raise RuntimeError("the server did not start")


def images_ready(page: Any) -> bool:
    return bool(page.evaluate(
        "() => [...document.images].every((i) => i.complete && i.naturalWidth > 0)"))


def wait_item(page: Any, answered: int) -> None:
    page.wait_for_selector(f"#progress[data-answered='{answered}']")
    while not images_ready(page):
        time.sleep(0.002)


def browser_session(link: str) -> list[float]:
    """Seconds per item from key press to the next item shown (image decoded)."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(link)
        wait_item(page, 0)
        for k in range(ITEMS):
            start = time.perf_counter()
            page.keyboard.press("1234"[k % 4])
            page.keyboard.press("Enter")
            wait_item(page, k + 1) if k + 1 < ITEMS else page.wait_for_selector("#done")
            times.append(time.perf_counter() - start)
        browser.close()
    return times


def http_session(link: str, name: str) -> list[float]:
    """Seconds per item: POST the answer (the reply carries the next item), GET its image."""
    base = link.split("/?")[0]
    token = re.search(r"token=([^&]+)", link)
    page = urllib.request.urlopen(link).read().decode()
    found = re.search(r'"token":"([^"]+)"', page)
    assert found or token
    key = (found or token).group(1)  # type: ignore[union-attr]
    headers = {"X-Whatif-Token": key, "Content-Type": "application/json"}

    def call(path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base + path, data=data, headers=headers)
        return json.loads(urllib.request.urlopen(request).read())

    state = call(f"/api/state?annotator={name}")
    times = []
    for k in range(ITEMS):
        start = time.perf_counter()
        state = call("/api/answer", {"annotator": name, "position": state["position"],
                                     "reply": "ABCD"[k % 4], "seconds": 1.0})
        for image in (state["item"] or {}).get("images", []):
            urllib.request.urlopen(base + image).read()
        times.append(time.perf_counter() - start)
    return times


def summary(label: str, times: list[float]) -> None:
    print(f"{label:<8} {statistics.fmean(times):.4f} s/item mean, median "
          f"{statistics.median(times):.4f}, p95 {sorted(times)[int(0.95 * len(times))]:.4f}, "
          f"session {sum(times):.1f} s for {len(times)} items")


def screenshots(out: Path, root: Path, home: Path) -> None:
    """The app on a C-VQA, a CFMM and a MuCR item."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    whatif(["generate", "cfmm-synthetic", "--out", str(root / "cfmm"), "--per-category", "2"],
           home)
    whatif(["generate", "mucr-synthetic", "--out", str(root / "mucr"), "--groups", "1"], home)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        for name, dataset, form in (("cvqa", root / "cvqa", None), ("cfmm", root / "cfmm", None),
                                    ("mucr", root / "mucr", "image A")):
            process, links = serve(dataset, home, ["shots"], "--seed", "1")
            try:
                page = browser.new_page(viewport={"width": 1100, "height": 860})
                page.goto(links[0])
                wait_item(page, 0)
                while form and form not in page.inner_text(".answers"):  # a C2E/E2C item
                    answered = int(page.get_attribute("#progress", "data-answered"))
                    if page.locator("textarea").count():  # an explanation: skip it
                        page.click("#unsure")
                    else:
                        page.keyboard.press("1")
                        page.keyboard.press("Enter")
                    wait_item(page, answered + 1)
                page.keyboard.press("2")  # an option chosen, not yet confirmed
                page.screenshot(path=str(out / f"human-{name}.png"), full_page=True)
                print(f"wrote {out / f'human-{name}.png'}")
            finally:
                process.kill()
                process.wait()
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, metavar="DIR")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        whatif(["generate", "cvqa-synthetic", "--out", str(root / "cvqa"), "--per-template",
                "17"], home)
        if args.screenshots:
            screenshots(args.screenshots, root, root / "home-shots")
        process, links = serve(root / "cvqa", home, ["b1", "h1"], "--limit", str(ITEMS))
        try:
            http = http_session(links[1], "h1")
            browser = browser_session(links[0]) if CHROMIUM.exists() else None
        finally:
            process.kill()
            process.wait()
        from whatifbench.core.dataset import load_dataset
        from whatifbench.human.api import stored_answers

        os.environ["WHATIF_HOME"] = str(home)
        stored = stored_answers(load_dataset(root / "cvqa"))
        print(f"session: {ITEMS} items of C-VQA-Synthetic, one annotator each way; stored "
              f"answers: {sum(a.annotator == 'b1' for a in stored)} (browser), "
              f"{sum(a.annotator == 'h1' for a in stored)} (HTTP)")
        summary("HTTP", http)
        if browser is not None:
            summary("browser", browser)
        else:
            print("browser: skipped (/usr/bin/chromium is missing)")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
