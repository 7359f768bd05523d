"""The annotation app in a real browser (Debian's Chromium driven by Playwright): answers by
keyboard survive a kill -9 of the server and resume at the next item, ``whatif human export``
gives the same rows, two annotators work at once, and hostile question text is shown as text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser_util import needs_chromium, open_page
from explorer_util import HOSTILE, make_explorer_dataset
from human_util import ServeProcess, answer_by_keyboard, free_port, outside_address, refused
from util import run_outputs, whatif

from whatifbench.core.dataset import load_dataset
from whatifbench.human import api
from whatifbench.human.records import Settings
from whatifbench.human.server import start

pytestmark = needs_chromium
KEYS = "1234ABCD"


def test_keyboard_answers_survive_kill_and_export_gives_them(page: Any, tmp_path: Path,
                                                             whatif_home: Path) -> None:
    ds_dir = make_explorer_dataset(tmp_path / "ds")
    dataset = load_dataset(ds_dir)
    questions = {i.question: i.id for i in dataset.items}
    port = str(free_port())
    server = ServeProcess([str(ds_dir), "--annotator", "alice", "--port", port], whatif_home)
    given: dict[str, str] = {}
    try:
        link = server.links["alice"]
        assert link.startswith(f"http://127.0.0.1:{port}/") and "token=" not in link
        outside = outside_address()  # 127.0.0.1 only: the machine's other address is refused
        assert outside is None or refused(outside, int(port))
        assert not refused("127.0.0.1", int(port))
        open_page(page, link)
        assert page.inner_text("#progress") == "Item 1 of 20"
        for k in range(10):
            item_id = questions[page.inner_text("#question").split("\nAnswer with")[0]]
            key = KEYS[k % len(KEYS)]
            given[item_id] = key
            assert answer_by_keyboard(page, key) == k
        assert page.inner_text("#progress") == "Item 11 of 20"
    finally:
        server.kill()  # kill -9: no chance to flush or close anything
    # the page notices the server is gone and says the answers are saved
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#message:has-text('every answer you gave so far is saved')")
    page.goto("about:blank")  # no retry of that answer once the server is back
    again = ServeProcess([str(ds_dir), "--annotator", "alice", "--port", port], whatif_home)
    try:
        open_page(page, again.links["alice"])
        assert page.inner_text("#progress") == "Item 11 of 20"
        assert page.get_attribute("#progress", "data-answered") == "10"
    finally:
        again.kill()
    # the one kind of console error expected: requests refused while the server was down
    assert [p for p in page.problems if "ERR_CONNECTION_REFUSED" not in p] == []

    done = whatif(["human", "export", str(ds_dir), "--out", str(tmp_path / "run")],
                  home=whatif_home)
    assert done.returncode == 0, done.stderr
    results, samples = run_outputs(tmp_path / "run")
    assert [r["model"] for r in results["runs"]] == ["human:alice"]
    assert results["runs"][0]["spec"]["model_name"] == "human: alice"
    assert {s["item_id"] for s in samples} == set(given)
    items = {i.id: i for i in dataset.items}
    for s in samples:
        k = "ABCD".index(given[s["item_id"]]) if given[s["item_id"]] in "ABCD" \
            else int(given[s["item_id"]]) - 1
        assert s["prediction"] == items[s["item_id"]].choices[k]
        assert s["correct"] == (s["prediction"] == items[s["item_id"]].target)
        assert s["meta"]["human"]["seconds"] is not None
    # the same rows from the Python API (what the export wrote is what the store holds)
    rows = [(a.item_id, a.reply) for a in api.stored_answers(dataset)]
    letters = {i: k if k in "ABCD" else "ABCD"[int(k) - 1] for i, k in given.items()}
    assert sorted(rows) == sorted(letters.items())


def test_two_annotators_at_once_and_hostile_text_is_shown_as_text(browser: Any, tmp_path: Path
                                                                  ) -> None:
    dataset = load_dataset(make_explorer_dataset(tmp_path / "ds"))
    server = api.serve(dataset, Settings(per_item=1))
    start(server)
    contexts = [browser.new_context() for _ in range(2)]
    pages = [c.new_page() for c in contexts]
    problems: list[str] = []
    for p in pages:
        p.on("pageerror", lambda e: problems.append(str(e)))
        p.on("dialog", lambda d: (problems.append(d.message), d.dismiss()))
    try:
        for p, name in zip(pages, ("alice", "bob"), strict=True):
            open_page(p, server.url(name))
        seen: dict[str, list[str]] = {"alice": [], "bob": []}
        for _ in range(4):  # turns interleave: both are mid-session at the same time
            for p, name in zip(pages, ("alice", "bob"), strict=True):
                seen[name].append(p.inner_text("#question"))
                answer_by_keyboard(p, "2")
        shown = "\n".join(q for qs in seen.values() for q in qs)
        # with --per-item 1 the two get different pairs
        assert not set(seen["alice"]) & set(seen["bob"])
        hostile_seen = [h for h in HOSTILE if h in shown]
        for p in pages:  # keep answering until a hostile question is on screen, then check it
            for _ in range(12):
                text = p.inner_text("#question")
                if any(h in text for h in HOSTILE):
                    hostile_seen.append(text)
                    assert p.locator("#question script, #question img, #question b").count() == 0
                    break
                answer_by_keyboard(p, "1")
        assert hostile_seen, "no hostile question was shown"
    finally:
        for c in contexts:
            c.close()
        server.shutdown()
        server.server_close()
    assert problems == []
    runs = api.human_runs(dataset, api.stored_answers(dataset), {"source": "app"})
    names = [r.spec.model_name for r in runs]
    # two people: no majority row (with two, any disagreement would be a tie)
    assert names == ["human: alice", "human: bob"]
    assert all(r.n_items >= 4 for r in runs[:2])
