"""MuCR metrics on a hand-computed example, the text-judge path, judge caching and failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from mucr_util import ScriptedJudge, ScriptedModel, write_release
from util import page_data

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.results import RunResult
from whatifbench.runner.store import RunStore
from whatifbench.suites.mucr.importer import import_mucr
from whatifbench.suites.mucr.judging import (
    JUDGE_PROMPT,
    WEIGHTS,
    reply_score,
    similarity_score,
)


@pytest.mark.parametrize(("cosine", "score"), [(-0.3, 0.0), (0.1, 0.0), (0.45, 5.0), (0.8, 10.0),
                                               (0.99, 10.0), (0.24, 2.0)])
def test_similarity_mapping(cosine: float, score: float) -> None:
    assert similarity_score(cosine) == pytest.approx(score)


@pytest.mark.parametrize(("reply", "score"), [
    ("7", 7.0), ("Score: 8/10", 8.0), ("10", 10.0), ("8.5 out of 10", 8.5),
    ("<think>maybe 3</think> 6", 6.0), ("11", None), ("no idea", None), ("", None),
    ("<think>still 4", None),
])
def test_judge_reply_score(reply: str, score: float | None) -> None:
    assert reply_score(reply) == score


def _dataset(tmp_path: Path) -> tuple[Path, dict[str, dict]]:
    rel = write_release(tmp_path / "release")
    import_mucr(rel.jsonl, rel.images, tmp_path / "ds", causal_reason="parts")
    return tmp_path / "ds", {str(r["id"]): r for r in rel.records}


def _script(ds: Path, truth: dict[str, dict]) -> None:
    """c2e right for pairs 1-6, e2c for 1-2, cue for 1-4 (5 unparsed); Exp: pair 1 repeats the
    references, pair 2 only the cause one, pair 3 writes nothing, the rest one sentence."""
    items = {i.id: i for i in load_dataset(ds).items}
    replies: dict[str, str] = {}
    for n in range(1, 9):
        for metric, right in (("c2e", n <= 6), ("e2c", n <= 2), ("cue", n <= 4)):
            item = items[f"{n}-{metric}"]
            k = item.target_index if right else (item.target_index + 1) % 4
            replies[item.id] = f"The answer is {'ABCD'[k]}."
    replies["5-cue"] = "I cannot tell."
    refs = truth["1"]["causal_reason"]
    replies["1-exp"] = "\n".join(f"{k}. {t}" for k, t in enumerate(refs, 1))
    replies["2-exp"] = (f"1. {truth['2']['causal_reason'][0]}\n2. Something else happens.\n"
                        "3. No idea why.")
    replies["3-exp"] = ""
    ScriptedModel.replies = replies


def _run(ds: Path, store: RunStore, judge: str = "test:judge") -> RunResult:
    [run] = api.run_all([ds], ["test:mucr-script"], store=store,
                        options=RunOptions(progress=False, judge=judge))
    return run


def test_four_metrics_hand_computed(tmp_path: Path) -> None:
    ds, truth = _dataset(tmp_path)
    _script(ds, truth)
    store = RunStore(tmp_path / "store.sqlite")
    judge_calls = ScriptedJudge.calls
    run = _run(ds, store)
    m = run.metrics
    assert (m["c2e"], m["e2c"], m["cue"]) == (75.0, 25.0, 50.0)
    # Exp: pair 1 = 9; pair 2 = .25*9 + .25*2 + .5*2 = 3.75; pair 3 = 0; pairs 4-8 = .5*2 = 1.
    assert m["exp"] == round((9 + 3.75 + 0 + 5 * 1.0) / 8, 2) == 2.22
    assert m["exp_parts"]["cause"] == 2.25
    assert m["exp_parts"]["link"] == pytest.approx(21 / 8, abs=0.006)
    assert m["n"] == {"c2e": 8, "e2c": 8, "cue": 8, "exp": 8} and m["n_pairs"] == 8
    assert m["n_unparsed"] == 2  # 5-cue and the empty 3-exp
    assert m["unparsed"] == round(100 / 24, 2) and m["n_judge_failures"] == 0
    lo, hi = m["ci95"]["c2e"]
    assert lo < 75.0 < hi and m["ci95"]["exp"][0] <= 2.22 <= m["ci95"]["exp"][1]
    human = m["by_category"]["human"]  # pairs 1 and 6
    assert (human["c2e"], human["e2c"], human["cue"], human["exp"]) == (100.0, 50.0, 50.0, 5.0)
    photo = m["by_style"]["photograph"]  # pairs 1, 3, 5, 7
    assert (photo["c2e"], photo["e2c"], photo["cue"], photo["exp"]) == (75.0, 25.0, 50.0, 2.75)
    assert set(m["by_category"]) == {"human", "animal", "plant", "character", "mixture"}
    # Judge calls: 3 + 3 + 0 + 5 * 1 (a single sentence is the link part only).
    assert ScriptedJudge.calls - judge_calls == 11
    # The run summary counts model items and judge calls apart (32 items, 11 judge calls).
    e = run.execution
    assert (e.computed, e.from_store, e.judge_computed, e.judge_from_store) == (32, 0, 11, 0)
    assert e.summary(run.n_items).startswith(
        "32 items, 0 from the store, 32 computed, 0 errors; judge: 11 calls (0 from the "
        "store, 11 computed, 0 errors), ")
    judged = run.spec.to_json()["judge"]
    assert judged["backend"]["spec"] == "test:judge" and judged["method"] == "text"
    assert judged["prompt"] == JUDGE_PROMPT and judged["weights"] == list(WEIGHTS)
    sample = next(s for s in run.samples if s.item_id == "2-exp")
    assert sample.score == 3.75
    assert sample.judgement["parts"]["effect"] == {"text": "Something else happens.",
                                                   "score": 2.0, "reply": "Score: 2"}
    # The second run comes entirely from the store: no model and no judge calls.
    model_calls, judge_calls = ScriptedModel.calls, ScriptedJudge.calls
    again = _run(ds, store)
    assert (ScriptedModel.calls, ScriptedJudge.calls) == (model_calls, judge_calls)
    assert again.execution.computed == 0 and again.metrics == m
    # Another judge is another cache key: only the judge calls are made again.
    other = api.run_all([ds], ["test:mucr-script"], store=store, options=RunOptions(
        progress=False, judge="test:judge", judge_args={"variant": 2}))[0]
    assert ScriptedModel.calls == model_calls and ScriptedJudge.calls == judge_calls + 11
    assert other.spec.judge.backend.args == {"variant": 2}
    store.close()


def test_judge_failures_are_counted_and_retried(tmp_path: Path) -> None:
    ds, truth = _dataset(tmp_path)
    _script(ds, truth)
    store = RunStore(tmp_path / "store.sqlite")
    ScriptedJudge.fail_word = "soaked"  # every effect-part prompt (the references say so)
    try:
        run = _run(ds, store)
    finally:
        ScriptedJudge.fail_word = None
    m = run.metrics
    assert m["n_judge_failures"] == 2  # the effect parts of pairs 1 and 2
    one = next(s for s in run.samples if s.item_id == "1-exp")
    assert one.score == 0.25 * 9 + 0.5 * 9
    assert one.judgement["parts"]["effect"]["failure"] == "judge-error"
    calls = ScriptedJudge.calls
    fixed = _run(ds, store)
    assert ScriptedJudge.calls - calls == 2  # only the failed calls are made again
    assert fixed.metrics["n_judge_failures"] == 0 and fixed.metrics["exp"] == 2.22
    store.close()


def test_suites_without_text_items_never_create_a_judge(tmp_path: Path) -> None:
    from util import make_choice_dataset

    ds = make_choice_dataset(tmp_path / "cvqa")
    [run] = api.run_all([ds], ["builtin:random"], store=RunStore(tmp_path / "s.sqlite"),
                        options=RunOptions(progress=False, judge="no-such-judge"))
    assert "judge" not in run.spec


def test_model_text_is_escaped_in_the_report(tmp_path: Path) -> None:
    ds, truth = _dataset(tmp_path)
    _script(ds, truth)
    ScriptedModel.replies["4-exp"] = "1. <script>alert(1)</script>\n2. b\n3. c"
    store = RunStore(tmp_path / "store.sqlite")
    run = _run(ds, store)
    store.close()
    paths = api.write_outputs(tmp_path / "out", [run])
    page = paths["report.html"].read_text()
    assert "<script>alert" not in page and "\\u003cscript\\u003ealert(1)" in page
    data = page_data(page)
    assert any("<script>alert(1)</script>" in s for s in data["strings"])
    assert 9.0 in data["runs"][0]["samples"]["score"]  # pair 1's perfect explanation
