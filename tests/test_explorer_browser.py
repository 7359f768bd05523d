"""The results explorer in a real browser (Debian's Chromium driven by Playwright): loads without
console errors, shows intervals, filters to the right counts, pair views, model vs model,
hostile text shown literally, and ``whatif view`` serving the same page."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from browser_util import needs_chromium, open_page
from explorer_util import (
    HOSTILE,
    REPLY,
    TRACE,
    load_samples,
    make_explorer_dataset,
    pair_outcomes,
)

from whatifbench import api
from whatifbench.answers.letters import letter_for
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.models.base import Backend
from whatifbench.report.serve import make_server, start
from whatifbench.report.sources import load_sources
from whatifbench.report.table import Cell
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.store import RunStore

MODELS = ("builtin:random", "builtin:constant", "eyes=builtin:ignore-premise", "test:hostile")

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder: four models (one named, one hostile) over the explorer dataset."""
    base = tmp_path_factory.mktemp("explorer")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WHATIF_HOME", str(base / "home"))
        ds = make_explorer_dataset(base / "ds")
        store = RunStore(base / "store.sqlite")
        runs = api.run_all([ds], list(MODELS), store=store,
                           options=RunOptions(progress=False))
        store.close()
        api.write_outputs(base / "run", runs)
    return base / "run"


_open = open_page


def _results(run_dir: Path) -> list[dict[str, Any]]:
    return json.loads((run_dir / "results.json").read_text())["runs"]


def test_overview_shows_intervals_ranking_and_counts(page: Any, run_dir: Path,
                                                     tmp_path: Path) -> None:
    _open(page, (run_dir / "report.html").as_uri())
    page.screenshot(path=str(tmp_path / "overview.png"), full_page=True)
    results = _results(run_dir)
    rows = page.locator("table.results").first.locator("tbody tr:not(.ref)")
    assert rows.count() == len(MODELS)  # then the chance row (tests/test_reference_rows.py)
    first = rows.nth(0).locator("td")
    m = results[0]["metrics"]
    ci = m["ci95"]["original_accuracy"]
    overall = first.nth(first.count() - 4)  # the "all" original-accuracy cell
    cell = Cell(m["original_accuracy"], 1, tuple(ci))
    # a centred interval is "± half its width"; another says how far it reaches either way
    shown = (cell.interval_text() if cell.centred else
             f"+{ci[1] - m['original_accuracy']:.1f} −{m['original_accuracy'] - ci[0]:.1f}")
    assert " ".join(overall.inner_text().split()).startswith(
        f"{m['original_accuracy']:.1f} {shown}")
    assert f"95% interval {ci[0]:.1f} – {ci[1]:.1f}" in overall.get_attribute("title")
    body = page.inner_text("main")
    assert "eyes" in body and "Ranking by counterfactual accuracy" in body
    best = max(results, key=lambda r: r["metrics"]["counterfactual_accuracy"])
    ranked = page.locator("table.ranking tbody tr").first.locator("td").nth(2).inner_text()
    assert ranked == f"{best['metrics']['counterfactual_accuracy']:.1f}"
    counts = page.locator("table.counts tbody tr").nth(3).locator("td")
    unparsed = sum(s["unparsed"] for s in load_samples(run_dir) if s["model"] == "test:hostile")
    assert unparsed > 0 and counts.nth(3).inner_text() == str(unparsed)
    # Believes its eyes: counterfactual errors that repeat the original question's answer.
    eyes = {(s["pair_id"], s["role"]): s for s in load_samples(run_dir)
            if s["model"] == "builtin:ignore-premise"}
    wrong = [p for (p, role), s in eyes.items() if role == "counterfactual" and not s["correct"]]
    repeated = sum(eyes[(p, "counterfactual")]["prediction"] == eyes[(p, "original")]["target"]
                   for p in wrong)
    assert wrong and repeated == len(wrong)  # ignore-premise repeats every original answer
    share = page.locator("table.counts tbody tr").nth(2).locator("td").last.inner_text()
    assert share == f"{100 * repeated / len(wrong):.1f}% ({repeated}/{len(wrong)})"
    assert page.locator("table.counts tbody tr").nth(1).locator("td").last.inner_text() != share
    page.click("nav button[data-view=figures]")
    assert page.locator(".figure img").count() == 2
    assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
    assert page.problems == []


def test_filters_change_the_visible_pairs_to_the_right_counts(page: Any, run_dir: Path) -> None:
    samples = load_samples(run_dir)
    eyes = pair_outcomes(samples, "builtin:ignore-premise")
    _open(page, (run_dir / "report.html").as_uri(), "view=items")
    assert page.inner_text("#match-count") == "10"
    page.select_option("#f-model", label="eyes")
    page.select_option("#f-outcome", "RW")
    assert page.inner_text("#match-count") == str(sum(v == "RW" for v in eyes.values()))
    assert page.locator("#unit-list tbody tr").count() == sum(v == "RW" for v in eyes.values())
    page.select_option("#f-outcome", "RR")
    assert page.inner_text("#match-count") == str(sum(v == "RR" for v in eyes.values()))
    page.select_option("#f-outcome", "")
    page.select_option("#f-flag", "repeat")  # ignore-premise repeats every original answer
    assert page.inner_text("#match-count") == str(sum(v == "RW" for v in eyes.values()))
    page.select_option("#f-flag", "")
    page.select_option("#f-facet", "group: abs_counting_2")
    assert page.inner_text("#match-count") == "5"
    page.select_option("#f-facet", "")
    page.select_option("#f-model", label="test:hostile")
    page.select_option("#f-flag", "unparsed")
    hostile = {s["pair_id"] for s in samples if s["model"] == "test:hostile" and s["unparsed"]}
    assert page.inner_text("#match-count") == str(len(hostile))
    page.select_option("#f-flag", "")
    page.select_option("#f-model", "any")
    page.fill("#q", "pair 7")
    page.press("#q", "Enter")
    assert page.inner_text("#match-count") == "1"
    assert "q=pair+7" in page.url  # the state is in the link
    assert page.problems == []


def test_pair_view_shows_both_questions_the_images_and_every_answer(
        page: Any, run_dir: Path, tmp_path: Path) -> None:
    _open(page, (run_dir / "report.html").as_uri(), "view=items")
    page.click("#unit-list tr[data-unit=p0]")
    view = page.locator("#pair-view")
    text = view.inner_text()
    assert "How many things are there (original, pair 0)?" in text
    assert "If one thing were added, How many things are there (counterfactual, pair 0)?" in text
    images = page.locator(".images img")
    assert images.count() == 2  # the photo and the intervened scene
    assert page.evaluate("[...document.querySelectorAll('.images img')]"
                         ".every(i => i.complete && i.naturalWidth > 0)")
    assert "intervened scene" in page.inner_text(".images")
    for model in ("builtin:random", "builtin:constant", "eyes", "test:hostile"):
        assert view.locator("tr.model th", has_text=model).count() == 1
    assert view.locator("tr.model").count() == 4
    assert view.locator(".response").count() == 8
    traces = view.locator("details.trace")
    assert traces.count() == 2  # the hostile model's program traces, one per question
    assert TRACE["program"] in traces.first.locator(".program").inner_text()
    assert "tool calls: 1" in traces.first.inner_text()
    assert '"args":["<b>cat</b>"]' in traces.first.locator(".call").inner_text()
    page.screenshot(path=str(tmp_path / "pair.png"), full_page=True)
    page.keyboard.press("j")
    assert "unit=p1" in page.url and "pair p1" in page.inner_text(".pairhead")
    page.keyboard.press("ArrowLeft")
    assert "unit=p0" in page.url
    shared = page.url
    page.keyboard.press("Escape")
    assert page.locator("#unit-list").count() == 1
    _open(page, shared.split("#")[0], shared.split("#")[1])  # a shared link reopens the pair
    assert "pair p0" in page.inner_text(".pairhead")
    assert page.problems == []


def test_model_vs_model_counts_match_results_json(page: Any, run_dir: Path) -> None:
    results = {r["model"]: r["metrics"] for r in _results(run_dir)}
    _open(page, (run_dir / "report.html").as_uri(), "view=compare&a=0&b=2")
    cell = lambda role, code: int(page.inner_text(  # noqa: E731
        f"td[data-role={role}][data-cell={code}]"))
    for role, key in (("original", "original_accuracy"),
                      ("counterfactual", "counterfactual_accuracy")):
        a_right = cell(role, "RR") + cell(role, "RW")
        b_right = cell(role, "RR") + cell(role, "WR")
        total = a_right + cell(role, "WR") + cell(role, "WW")
        assert total == 10
        assert a_right == round(results["builtin:random"][key] / 10)  # % of 10 items
        assert b_right == round(results["builtin:ignore-premise"][key] / 10)
    samples = load_samples(run_dir)
    right = {(s["model"], s["item_id"]): s["correct"] for s in samples}
    differ = {s["pair_id"] for s in samples if s["model"] == "builtin:random"
              and right[("builtin:ignore-premise", s["item_id"])] != s["correct"]}
    assert page.inner_text("#disagree-count") == str(len(differ))
    assert page.locator("#unit-list tbody tr").count() == len(differ)
    assert page.problems == []


def test_hostile_text_is_shown_literally_and_never_runs(page: Any, run_dir: Path) -> None:
    page_text = (run_dir / "report.html").read_text()
    assert "<script>alert" not in page_text and "<img src=x" not in page_text
    assert "</textarea><b>" not in page_text
    _open(page, (run_dir / "report.html").as_uri(), "view=items")
    listed = page.inner_text("#unit-list")
    for hostile in HOSTILE:
        assert hostile in listed
    for k in range(1, 5):
        _open(page, (run_dir / "report.html").as_uri(), f"view=items&unit=p{k}")
        assert HOSTILE[k - 1] in page.inner_text("#pair-view")
    _open(page, (run_dir / "report.html").as_uri(), "view=items&model=3&flag=unparsed")
    page.locator("#unit-list tbody tr").first.click()
    assert REPLY in page.inner_text("#pair-view")
    assert page.evaluate("document.scripts.length") == 2  # the data block and the page's own
    assert page.locator("main img[src=x], main img[src=y]").count() == 0
    assert page.locator("main b", has_text="bold").count() == 0
    assert page.problems == []


def test_whatif_view_serves_the_same_page_with_full_images(page: Any, run_dir: Path) -> None:
    server = make_server(load_sources([run_dir]))
    start(server)
    try:
        _open(page, server.url, "view=items&unit=p0")
        assert page.locator("table.results").count() == 0  # items view
        srcs = page.evaluate("[...document.querySelectorAll('.images img')]"
                             ".map(i => [i.getAttribute('src'), i.naturalWidth])")
        assert [s for s, _ in srcs] == ["image/0/images/000.png",
                                        "image/0/images/intervened/000.png"]
        assert all(width == 96 for _, width in srcs)  # the full image, not a thumbnail
        page.click("nav button[data-view=overview]")
        assert page.locator("table.results").first.locator("tbody tr:not(.ref)").count() == len(
            MODELS)
        for bad in ("image/0/../../../../etc/passwd", "image/0/%2e%2e/card.json",
                    "image/0/card.json", "image/0/items.jsonl", "image/1/images/000.png",
                    "etc/passwd"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(server.url + bad, timeout=10)
            assert err.value.code == 404, bad
        request = urllib.request.Request(server.url, headers={"Host": "evil.example:80"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=10)
        assert err.value.code == 403
        assert server.server_address[0] == "127.0.0.1"
        assert page.problems == []
    finally:
        server.shutdown()
        server.server_close()


def test_rank_scores_show_as_a_bar_per_candidate(page: Any, tmp_path: Path) -> None:
    from cfmm_util import good_records, write_images, write_jsonl

    from whatifbench.suites.cfmm.importer import import_cfmm

    records = good_records(1)
    images = write_images(tmp_path / "imgs", records)
    import_cfmm(tmp_path / "ds", images=images, jsonl=write_jsonl(tmp_path / "p.jsonl", records))
    store = RunStore(tmp_path / "store.sqlite")
    runs = api.run_all([tmp_path / "ds"], ["builtin:ignore-premise", "builtin:constant"],
                       store=store, options=RunOptions(progress=False))
    store.close()
    api.write_outputs(tmp_path / "run", runs)
    first = runs[0].samples[0]
    _open(page, (tmp_path / "run" / "report.html").as_uri(), f"view=items&unit={first.pair_id}")
    answers = page.locator("#pair-view tr.model").first.locator("td.answer")
    assert answers.count() == 2  # basic and counterfactual
    bars = answers.first.locator(".scores .bar")
    assert bars.count() == 2 and answers.first.locator(".scores .bar.chosen").count() == 1
    assert f"{first.scores[0]:.3f}" in answers.first.locator(".scores").inner_text()
    _open(page, (tmp_path / "run" / "report.html").as_uri(), "view=overview")
    # CFMM tables 2 and 3, then the paired comparison of the two models, overall and by slice
    assert page.locator("table.results").count() == 4
    headers = page.inner_text("table.counts thead")
    assert "parse failures" in headers
    assert "believes its eyes" not in headers  # two options: a wrong answer is the other one
    assert page.problems == []


@register("backend", "test:flaky")
class FlakyModel(Backend):
    """Answers right, except on the counterfactual questions of pairs p2 and p5, where the
    call fails (a backend error)."""

    capabilities = Capabilities(generate=True)

    def prepare(self, items: Sequence[Item]) -> None:
        self._items = {i.id: i for i in items}

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            item = self._items[request.item_id]
            if item.id in ("p2-c", "p5-c"):
                yield i, Response(error="connection refused by <b>server</b>")
            else:
                yield i, Response(text=f"The answer is {letter_for(item.target_index)}.")


def test_errors_are_counted_filtered_shown_and_the_run_spec_is_readable(
        page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHATIF_HOME", str(tmp_path / "home"))
    ds = make_explorer_dataset(tmp_path / "ds", n_pairs=6)
    store = RunStore(tmp_path / "store.sqlite")
    runs = api.run_all([ds], ["test:flaky"], store=store, options=RunOptions(progress=False))
    store.close()
    api.write_outputs(tmp_path / "run", runs)
    url = (tmp_path / "run" / "report.html").as_uri()
    _open(page, url)
    counts = page.locator("table.counts tbody tr").first.locator("td")
    assert counts.nth(4).inner_text() == "2"  # the errors column
    _open(page, url, "view=items")
    assert page.inner_text("#match-count") == "6"
    page.select_option("#f-flag", "error")
    assert page.inner_text("#match-count") == "2"
    listed = page.locator("#unit-list tbody tr")
    assert [listed.nth(k).get_attribute("data-unit") for k in range(2)] == ["p2", "p5"]
    listed.first.click()
    assert "error: connection refused by <b>server</b>" in page.inner_text("#pair-view")
    page.click("nav button[data-view=runs]")
    spec = page.inner_text("main")
    [run] = runs
    dataset = run.spec.to_json()["dataset"]
    for fact in (dataset["name"], dataset["version"], dataset["path"], dataset["items_sha256"],
                 "test:flaky", "zero-shot", str(run.spec.git_revision or "")):
        assert fact in spec, fact
    execution = page.locator("dl.spec dt", has_text="execution").first.locator(
        "xpath=following-sibling::dd[1]").inner_text()
    assert "computed\n12" in execution and "errors\n2" in execution
    assert "from_store\n0" in execution
    assert page.problems == []


def test_judge_scores_and_replies_show_in_the_pair_view(page: Any, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from mucr_util import ScriptedModel, write_release
    from test_mucr_metrics import _script

    from whatifbench.suites.mucr.importer import import_mucr

    monkeypatch.setenv("WHATIF_HOME", str(tmp_path / "home"))
    rel = write_release(tmp_path / "release")
    import_mucr(rel.jsonl, rel.images, tmp_path / "ds")
    _script(tmp_path / "ds", {str(r["id"]): r for r in rel.records})
    store = RunStore(tmp_path / "store.sqlite")
    runs = api.run_all([tmp_path / "ds"], ["test:mucr-script"], store=store,
                       options=RunOptions(progress=False, judge="test:judge"))
    store.close()
    ScriptedModel.replies = {}
    api.write_outputs(tmp_path / "run", runs)
    [sample] = [s for s in runs[0].samples if s.item_id == "2-exp"]
    _open(page, (tmp_path / "run" / "report.html").as_uri(),
          f"view=items&unit={sample.pair_id}")
    view = page.locator("#pair-view")
    assert "judged score: 3.75" in view.inner_text()
    judge = view.locator("details", has=page.locator("summary", has_text="judge")).first
    judge.locator("summary").click()
    assert "Something else happens." in judge.inner_text() and "Score: 2" in judge.inner_text()
    assert page.problems == []


def test_the_header_counts_what_each_run_asked(page: Any, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs that asked different items (a budgeted run, --limit): the header's count is of the
    runs together, and each run's own count is said (it read '90 pairs, 180 items' when each
    run had asked 50 pairs)."""
    monkeypatch.setenv("WHATIF_HOME", str(tmp_path / "home"))
    ds = make_explorer_dataset(tmp_path / "ds")
    full = api.run_all([ds], ["builtin:constant"], options=RunOptions(progress=False))
    part = api.run_all([ds], ["builtin:random"], options=RunOptions(progress=False, limit=6))
    api.write_outputs(tmp_path / "run", [*full, *part])
    _open(page, (tmp_path / "run" / "report.html").as_uri())
    head = page.locator("main p.muted").first.inner_text()
    assert "10 pairs, 20 items (over the runs together; each asked:" in head
    assert "builtin:constant [limit=none] 20" in head and "builtin:random [limit=6] 6" in head
    assert page.problems == []
