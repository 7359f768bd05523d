"""Issue 40, item 13 (the page): a results table wider and taller than the window scrolls inside
its own box, whose horizontal scrollbar is on screen with the table, with the row names and the
header kept in view; the page itself never scrolls sideways. Headless Chromium
(``tests/browser_util.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_util import needs_chromium, open_page
from test_budget import random_runs

from whatifbench.cli.main import main

pytestmark = [needs_chromium, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def wide_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twenty runs of a six-template C-VQA-Synthetic set and a budgeted run beside them: 17
    columns, the last the estimate, and more rows than a window holds."""
    tmp = tmp_path_factory.mktemp("wide")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WHATIF_HOME", str(tmp / "home"))
        assert main(["generate", "cvqa-synthetic", "--per-template", "10", "--out",
                     str(tmp / "ds")]) == 0
        runs = random_runs(tmp / "ds", tmp / "runs", n=20)
        assert main(["items", str(tmp / "ds"), str(runs), "--bank", str(tmp / "bank.json")]) == 0
        assert main(["run", "--suite", str(tmp / "ds"), "--model", "builtin:constant",
                     "--budget", "40", "--bank", str(tmp / "bank.json"), "--out",
                     str(tmp / "est"), "--no-progress"]) == 0
        assert main(["report", str(tmp / "est"), str(runs), "--out", str(tmp / "rep")]) == 0
    return tmp / "rep" / "report.html"


GEOMETRY = """() => {
  const box = document.querySelector('table.results').parentElement;
  const rect = (el) => { const r = el.getBoundingClientRect();
                         return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const heads = box.querySelectorAll('thead tr:last-child th');
  return {box: rect(box), client: [box.clientWidth, box.clientHeight],
          scroll: [box.scrollWidth, box.scrollHeight], window: [innerWidth, innerHeight],
          page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          last: rect(heads[heads.length - 1]), lastText: heads[heads.length - 1].textContent,
          name: rect(box.querySelector('tbody tr td'))};
}"""


def test_a_wide_tall_table_scrolls_in_its_own_box(page: Any, wide_report: Path,
                                                  tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1000, "height": 800})
    open_page(page, wide_report.as_uri())
    page.locator("table.results").first.scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('table.results').parentElement"
                  ".scrollIntoView({block: 'start'})")
    before = page.evaluate(GEOMETRY)
    assert before["scroll"][0] > before["client"][0] + 100  # wider than the window: it scrolls
    assert before["page"][0] <= before["page"][1]  # the page itself does not
    # The box, its horizontal scrollbar included, fits in the window with the table's top.
    assert before["box"]["bottom"] - before["box"]["top"] <= before["window"][1]
    assert before["box"]["bottom"] <= before["window"][1] + 1
    page.evaluate("() => { const b = document.querySelector('table.results').parentElement; "
                  "b.scrollLeft = b.scrollWidth; b.scrollTop = b.scrollHeight; }")
    after = page.evaluate(GEOMETRY)
    page.screenshot(path=str(tmp_path / "scrolled.png"))
    assert after["lastText"] == "estimated full score"
    assert after["last"]["right"] <= min(after["box"]["right"], after["window"][0]) + 1
    assert after["last"]["left"] >= after["name"]["right"] - 1  # not under the row names
    assert abs(after["name"]["left"] - after["box"]["left"]) <= 2  # row names stay in view
    assert after["last"]["top"] >= after["box"]["top"] - 1  # the header stays in view
    assert page.problems == []
