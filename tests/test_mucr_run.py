"""MuCR end to end through the CLI: both image layouts, answer modes, strategies, the default
offline judge and the merged layout report. The oracle backend answers from the pixels it is
sent (separate images or tiles of the composite), so a wrong layout or label order fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mucr_util import PixelOracle, write_release

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import COT_SUFFIX, Protocol
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder, choose_demos
from whatifbench.suites.mucr.importer import import_mucr


@pytest.fixture
def release(tmp_path: Path) -> tuple[Path, Path]:
    """(release folder, dataset folder) of two groups of four pairs."""
    rel = write_release(tmp_path / "release")
    import_mucr(rel.jsonl, rel.images, tmp_path / "ds", causal_reason="parts")
    return tmp_path / "release", tmp_path / "ds"


def _run(release: tuple[Path, Path], out: Path, *extra: str) -> dict:
    folder, ds = release
    PixelOracle.image_counts = []
    code = main(["run", "--suite", str(ds), "--model", "test:mucr-oracle", "-M",
                 f"release={folder}", "--out", str(out), "--no-progress", *extra])
    assert code == 0
    return json.loads((out / "results.json").read_text())["runs"][0]


def _perfect(run: dict) -> None:
    m = run["metrics"]
    assert (m["c2e"], m["e2c"], m["cue"]) == (100.0, 100.0, 100.0), m
    assert m["exp"] == 10.0 and m["n_judge_failures"] == 0


def test_both_layouts_and_merged_report(release: tuple[Path, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    multi = _run(release, tmp_path / "multi")
    _perfect(multi)
    counts = dict(PixelOracle.image_counts)
    assert counts == {"c2e": 5, "e2c": 5, "cue": 2, "exp": 2}
    composite = _run(release, tmp_path / "composite", "--image-layout", "composite")
    _perfect(composite)
    assert {n for _g, n in PixelOracle.image_counts} == {1}
    assert composite["spec"]["protocol"]["image_layout"] == "composite"
    assert composite["spec"]["judge"]["backend"]["spec"] == "embedding:all-MiniLM-L6-v2"
    assert composite["spec"]["judge"]["method"] == "similarity"
    capsys.readouterr()
    assert main(["report", str(tmp_path / "multi"), str(tmp_path / "composite"),
                 "--out", str(tmp_path / "both")]) == 0
    out = capsys.readouterr().out
    assert "multi-image vs composite input" in out
    assert "test:mucr-oracle [image_layout=multi]" in out
    assert "test:mucr-oracle [image_layout=composite]" in out
    md = (tmp_path / "both" / "report.md").read_text()
    assert "| model | C2E multi | C2E composite | C2E Δ |" in md
    assert len(json.loads((tmp_path / "both" / "results.json").read_text())["runs"]) == 2


def test_rank_mode_ranks_choices_and_generates_explanations(release: tuple[Path, Path],
                                                           tmp_path: Path) -> None:
    run = _run(release, tmp_path / "rank", "--answer-mode", "rank")
    _perfect(run)
    samples = [json.loads(x) for x in (tmp_path / "rank" / "samples.jsonl").read_text()
               .splitlines()]
    for s in samples:
        if s["group"] == "exp":
            assert s["scores"] is None and s["response"].startswith("1. ")
        else:
            assert len(s["scores"]) == 4 and s["parses"] == {"rank": s["prediction"]}


@pytest.mark.parametrize("layout", ["multi", "composite"])
def test_one_shot_demonstrations_from_other_pairs(release: tuple[Path, Path], tmp_path: Path,
                                                   layout: str) -> None:
    run = _run(release, tmp_path / layout, "--strategy", "one-shot", "--image-layout", layout)
    _perfect(run)
    ds = load_dataset(release[1])
    items = {i.id: i for i in ds.items}
    demos = run["spec"]["demonstrations"]
    assert set(demos) == set(items)
    for item_id, demo_id in demos.items():
        assert items[demo_id].group == items[item_id].group
        assert items[demo_id].pair_id != items[item_id].pair_id
    per_request = {"multi": {"c2e": 10, "e2c": 10, "cue": 4, "exp": 4},
                   "composite": {"c2e": 2, "e2c": 2, "cue": 2, "exp": 2}}[layout]
    assert dict(PixelOracle.image_counts) == per_request


def test_one_shot_request_shape(release: tuple[Path, Path]) -> None:
    ds = load_dataset(release[1])
    suite = get_suite("mucr")
    protocol = Protocol(strategy="one-shot").resolved(
        "generate", default_tokens=suite.default_max_new_tokens)
    builder = RequestBuilder(suite, protocol, ds, choose_demos(ds, ds.items, 0, suite))
    item = next(i for i in ds.items if i.id == "3-c2e")
    for evaluated, demo in builder.demos.items():  # never from the item's own group of four
        own = next(i for i in ds.items if i.id == evaluated)
        assert not set(demo.meta["group_of_four"]) & set(own.meta["group_of_four"])
    request = builder.build(item)
    demo_turn, answer, question = request.turns
    assert [p.text for p in demo_turn.parts if p.text is not None][:5] == \
        ["Cause:", "A:", "B:", "C:", "D:"]
    assert len(demo_turn.images) == 5 and len(question.images) == 5
    demo = builder.demos[item.id]
    assert answer.role == "assistant" and answer.text == demo.target
    exp = next(i for i in ds.items if i.id == "3-exp")
    exp_request = builder.build(exp)
    assert exp_request.turns[1].text == builder.demos[exp.id].target  # three numbered lines
    assert exp_request.max_new_tokens == 256 and not exp_request.candidates


def test_cot_and_ccot(release: tuple[Path, Path], tmp_path: Path) -> None:
    run = _run(release, tmp_path / "cot", "--strategy", "cot")
    _perfect(run)
    assert run["spec"]["protocol"]["max_new_tokens"] == 512
    prompts = [json.loads(x)["prompt"] for x in (tmp_path / "cot" / "samples.jsonl")
               .read_text().splitlines()]
    assert all(p.endswith(COT_SUFFIX) for p in prompts)
    run = _run(release, tmp_path / "ccot", "--strategy", "ccot", "--image-layout", "composite")
    _perfect(run)
    assert len(PixelOracle.image_counts) == 2 * 32  # describe, then answer, for every item
    prompts = [json.loads(x)["prompt"] for x in (tmp_path / "ccot" / "samples.jsonl")
               .read_text().splitlines()]
    assert all(p.startswith("Scene description:\n") for p in prompts)


def test_builtin_model_and_stats(release: tuple[Path, Path], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--suite", str(release[1]), "--model", "builtin:random",
                 "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    m = json.loads((tmp_path / "r" / "results.json").read_text())["runs"][0]["metrics"]
    assert all(0 <= m[k] <= 100 for k in ("c2e", "e2c", "cue")) and m["exp"] < 3
    assert main(["stats", str(release[1]), "--plots", str(tmp_path / "plots")]) == 0
    out = capsys.readouterr().out
    assert "pairs per category and style" in out
    assert "total               4      4      8" in out
    assert "c2e     25.0  25.0  25.0  25.0" in out
    assert (tmp_path / "plots" / "pairs_by_category.png").stat().st_size > 0


def test_one_shot_cot_in_rank_mode(release: tuple[Path, Path], tmp_path: Path) -> None:
    run = _run(release, tmp_path / "r", "--strategy", "one-shot-cot", "--answer-mode", "rank",
               "--image-layout", "composite")
    _perfect(run)
    assert dict(PixelOracle.image_counts) == {"c2e": 2, "e2c": 2, "cue": 2, "exp": 2}
