"""The annotation store and server without a browser: counterbalanced dealing that keeps a
pair's questions apart, ``--per-item`` spreading, resuming from the file, settings that cannot
change under a store, 127.0.0.1 by default and a token otherwise, no answer key in what the page
gets, MuCR's composite, and explanations written as judge references."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from human_util import api as call
from util import make_choice_dataset, whatif

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.errors import WhatifError
from whatifbench.human import api
from whatifbench.human.plan import BLOCK
from whatifbench.human.records import Settings
from whatifbench.human.server import start
from whatifbench.human.store import HumanStore


def _answer_all(store: HumanStore, who: str, reply: str = "A") -> list[str]:
    """Answer everything dealt to ``who`` until nothing is left; the item ids in order."""
    order = []
    while True:
        progress = store.progress(who)
        if progress.position is None:
            return order
        order.append(str(progress.item_id))
        assert store.answer(who, progress.position, reply, False, 1.0)


@pytest.fixture()
def dataset(tmp_path: Path) -> Dataset:
    return load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=10))


def test_pairs_are_apart_and_counterbalanced(dataset: Dataset) -> None:
    store = HumanStore(dataset, Settings(seed=3))
    roles = {i.id: (i.pair_id, i.role) for i in dataset.items}
    firsts: dict[str, dict[str, str]] = {}
    for who in ("a1", "a2"):
        order = _answer_all(store, who)
        assert sorted(order) == sorted(roles)  # everyone gets every item once
        where = {item: k for k, item in enumerate(order)}
        for pair in {p for p, _ in roles.values()}:
            o, c = where[f"{pair}-o"], where[f"{pair}-c"]
            assert abs(o - c) > 1, f"{who}: pair {pair} back to back"
            firsts.setdefault(who, {})[pair] = "original" if o < c else "counterfactual"
        counts = Counter(firsts[who].values())
        assert abs(counts["original"] - counts["counterfactual"]) <= 1
    # each pair is seen original-first by one annotator and counterfactual-first by the other
    assert all(firsts["a1"][p] != firsts["a2"][p] for p in firsts["a1"])


def test_per_item_spreads_each_item_to_k_annotators(dataset: Dataset) -> None:
    store = HumanStore(dataset, Settings(per_item=2))
    dealt: dict[str, list[str]] = {"a1": [], "a2": [], "a3": []}
    while True:  # three people at work at once: one answer each in turn
        moved = False
        for who, items in dealt.items():
            progress = store.progress(who)
            if progress.position is not None:
                items.append(str(progress.item_id))
                store.answer(who, progress.position, "A", False, 1.0)
                moved = True
        if not moved:
            break
    holders = Counter(item for items in dealt.values() for item in items)
    assert set(holders.values()) == {2} and len(holders) == len(dataset.items)
    assert all(len(items) >= 2 * BLOCK for items in dealt.values())  # the work is shared
    for items in dealt.values():  # whole pairs only
        assert set(Counter(i.split("-")[0] for i in items).values()) == {2}


def test_a_reopened_store_resumes_and_keeps_its_settings(dataset: Dataset) -> None:
    store = HumanStore(dataset, Settings(limit=8))
    assert store.pool.n_items == 8
    for _ in range(5):
        p = store.progress("a1")
        assert p.position is not None
        store.answer("a1", p.position, "B", False, 2.0)
    again = HumanStore(dataset)  # a second handle on the same file (a second server)
    p = again.progress("a1")
    assert (p.position, p.answered, p.left) == (5, 5, 3)
    assert store.answer("a1", 0, "C", False, 1.0)  # a resend changes nothing
    assert [a.reply for a in again.answers()] == ["B"] * 5
    with pytest.raises(WhatifError, match="with --seed 0 --limit 8, not --seed 0 --limit 10"):
        HumanStore(dataset, Settings(limit=10))


def test_server_is_local_by_default_and_needs_the_token_elsewhere(dataset: Dataset) -> None:
    server = api.serve(dataset, Settings())
    start(server)
    try:
        assert server.server_address[0] == "127.0.0.1"
        base = server.url().rstrip("/")
        assert "token" not in server.url("a1")
        with urllib.request.urlopen(base + "/?annotator=a1") as page:
            assert b"whatif-config" in page.read()
        for path in ("/api/state?annotator=a1",):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(base + path)
            assert err.value.code == 403
        forged = urllib.request.Request(base + "/", headers={"Host": "evil.example:80"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(forged)
        assert err.value.code == 403
        state = call(base, server.token, "/api/state?annotator=a1")
        text = json.dumps(state)
        item = next(i for i in dataset.items if i.question in state["item"]["text"])
        assert "target" not in text and "provenance" not in text and item.id not in text
        with pytest.raises(urllib.error.HTTPError) as err:  # unreadable answers are refused
            call(base, server.token, "/api/answer",
                 {"annotator": "a1", "position": state["position"], "reply": "maybe"})
        assert err.value.code == 422
        image = state["item"]["images"][0]
        with urllib.request.urlopen(base + image) as got:
            assert got.read()[:4] == b"\x89PNG"
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + image.split("?")[0])
    finally:
        server.shutdown()
        server.server_close()
    named = api.serve(dataset, None, host="127.0.0.1")
    start(named)
    try:
        link = named.url("a1")
        assert f"token={named.token}" in link
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(link.split("&token=")[0])
        assert err.value.code == 403
        with urllib.request.urlopen(link) as page:
            assert page.status == 200
    finally:
        named.shutdown()
        named.server_close()


def test_mucr_items_are_one_composite_and_explanations_become_references(
        tmp_path: Path, whatif_home: Path) -> None:
    done = whatif(["generate", "mucr-synthetic", "--out", str(tmp_path / "mucr"), "--groups",
                   "1"], home=whatif_home)
    assert done.returncode == 0, done.stderr
    dataset = load_dataset(tmp_path / "mucr")
    server = api.serve(dataset, Settings())
    start(server)
    base = server.url().rstrip("/")
    forms: Counter[str] = Counter()
    try:
        state = call(base, server.token, "/api/state?annotator=a1")
        while state["item"]:
            item = state["item"]
            forms[item["form"]] += 1
            assert len(item["images"]) == 1  # five or two images, as one labelled composite
            body = ({"parts": ["A red ball rolls.", "The tower falls.", "The ball hits it."]}
                    if item["form"] == "explain" else {"reply": item["options"][0][0]})
            state = call(base, server.token, "/api/answer",
                         {"annotator": "a1", "position": state["position"], **body})
    finally:
        server.shutdown()
        server.server_close()
    assert forms == {"choice": 12, "explain": 4}
    answers = api.stored_answers(dataset)
    added = api.write_references(dataset, answers, tmp_path / "refs")
    assert added == 12  # three parts of four explanations
    copy = load_dataset(tmp_path / "refs", verify=True)
    exp = next(i for i in copy.items if i.kind == "text")
    before = next(i for i in dataset.items if i.id == exp.id)
    assert exp.meta["references"][2] == [*before.meta["references"][2], "The ball hits it."]
    assert load_dataset(tmp_path / "mucr", verify=True).items_sha256 == dataset.items_sha256
