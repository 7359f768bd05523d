"""The annotation app's Back action in a real browser (issue 32, low item): after a mis-keyed
answer the annotator presses the left arrow (or the Back button), sees the previous item with
the answer given, changes it, and goes on where they were; the store keeps the newest answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser_util import needs_chromium, open_page
from explorer_util import make_explorer_dataset
from human_util import answer_by_keyboard

from whatifbench.core.dataset import load_dataset
from whatifbench.human import api
from whatifbench.human.records import Settings
from whatifbench.human.server import start

pytestmark = needs_chromium


def test_back_changes_a_mis_keyed_answer(page: Any, tmp_path: Path) -> None:
    dataset = load_dataset(make_explorer_dataset(tmp_path / "ds"))
    server = api.serve(dataset, Settings(), store=tmp_path / "store.sqlite")
    start(server)
    try:
        open_page(page, server.url("alice"))
        assert page.is_disabled("#back")  # nothing answered yet
        answer_by_keyboard(page, "A")
        second = page.inner_text("#question")
        answer_by_keyboard(page, "B")  # the mis-keyed one
        third = page.inner_text("#question")
        page.keyboard.press("ArrowLeft")
        page.wait_for_selector("#progress[data-revising='1']")
        assert page.inner_text("#question") == second
        assert page.get_attribute("button.option[data-value='B']", "aria-pressed") == "true"
        assert "You answered this item before" in page.inner_text("#revising")
        page.click("#back")  # one more step back, then forward again with the button
        page.wait_for_selector("#progress[data-position='0']")
        assert page.get_attribute("button.option[data-value='A']", "aria-pressed") == "true"
        page.click("#resume")
        page.wait_for_selector("#progress[data-revising='0']")
        assert page.inner_text("#question") == third
        page.keyboard.press("ArrowLeft")
        page.wait_for_selector("#progress[data-position='1']")
        page.keyboard.press("D")
        page.keyboard.press("Enter")
        page.wait_for_selector("#progress[data-revising='0']")
        assert page.inner_text("#question") == third  # back where they were
        assert page.get_attribute("#progress", "data-answered") == "2"
    finally:
        server.shutdown()
        server.server_close()
    assert page.problems == []
    assert [a.reply for a in api.stored_answers(dataset, tmp_path / "store.sqlite")] == ["A", "D"]
