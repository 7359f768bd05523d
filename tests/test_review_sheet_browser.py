"""The HTML review sheet in a real browser: it fits 1,400 px, shows whole cells, keeps edits in
the browser's local storage until the CSV is downloaded, and the download imports."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from browser_util import needs_chromium, open_page
from test_cvqa_real_review import built_dataset

from whatifbench.review.api import export_review, import_review

pytestmark = needs_chromium


def test_sheet_fits_the_window_and_shows_whole_cells(page: Any, tmp_path: Path) -> None:
    sheet = export_review(built_dataset(tmp_path), tmp_path / "s.html")
    open_page(page, sheet.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    boxes = page.evaluate("[...document.querySelectorAll('textarea, select')]"
                          ".map(e => e.getBoundingClientRect().right)")
    assert boxes and max(boxes) <= 1400  # new_question, new_answer, comment on screen
    labels = page.evaluate("[...document.querySelectorAll('article.row')[0]"
                           ".querySelectorAll('label, dt')].map(e => e.firstChild.textContent"
                           ".trim())")
    assert labels.count("image") == 1 and "new_question" in labels and "comment" in labels
    cut = page.evaluate("[...document.querySelectorAll('textarea')]"
                        ".filter(t => t.scrollHeight > t.clientHeight + 2).length")
    assert cut == 0  # every cell shows its whole text
    text = page.locator("article.row").nth(1).locator("textarea[data-col=new_question]")
    assert text.input_value().endswith("</textarea><script>alert(1)</script>")
    assert page.problems == []


def test_edits_survive_a_reload_until_the_csv_is_downloaded(page: Any, tmp_path: Path) -> None:
    ds = built_dataset(tmp_path)
    sheet = export_review(ds, tmp_path / "s.html")
    open_page(page, sheet.as_uri())
    second = page.locator("article.row").nth(1)
    second.locator("select[data-col=decision]").select_option("edit")
    second.locator("textarea[data-col=new_answer]").fill("yes")
    second.locator("textarea[data-col=comment]").fill("checked, twice")
    page.click("#add")
    page.locator("article.row").nth(2).locator("textarea[data-col=image]").fill(
        "COCO_val2014_000000000001.jpg")
    page.locator("#status", has_text="kept in this browser").wait_for()
    page.reload()
    page.wait_for_selector("body[data-ready]", state="attached")
    assert "Restored the edits" in page.inner_text("#status")
    second = page.locator("article.row").nth(1)
    assert second.locator("textarea[data-col=new_answer]").input_value() == "yes"
    assert second.locator("select[data-col=decision]").input_value() == "edit"
    assert page.locator("article.row").count() == 3
    with page.expect_download() as info:
        page.click("#download")
    path = tmp_path / "downloaded.csv"
    info.value.save_as(path)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert [r["decision"] for r in rows] == ["reject", "edit", "new"]
    assert rows[1]["new_answer"] == "yes" and rows[1]["comment"] == "checked, twice"
    assert "cleared" in page.inner_text("#status")
    page.reload()
    page.wait_for_selector("body[data-ready]", state="attached")
    assert page.locator("article.row").count() == 2  # nothing kept after the download
    assert page.locator("article.row").nth(1).locator(
        "textarea[data-col=new_answer]").input_value() == "no"
    del rows[2]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    card = import_review(ds, path, tmp_path / "reviewed")
    assert card.counts["review"] == {"edit": 1, "reject": 1}
    assert page.problems == []
