"""MuCR through tiny real-architecture transformers models: both image layouts end to end on
a multi-image model (its outputs are noise: the assertions are about what reaches the model),
ranking, and a single-image model that needs the composite layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.hf.inputs import build_prompt
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mucr-tiny") / "ds"
    MucrSyntheticGenerator.generate(out, groups=1, seed=5)
    return out


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("arch", ["idefics3", "qwen2_vl"])
def test_each_layout_reaches_the_model_as_it_should(tiny_models: Any, pairs: Path,
                                                    arch: str) -> None:
    dataset = load_dataset(pairs)
    backend = HFBackend(f"hf:{tiny_models.path(arch)}", {})
    suite = get_suite("mucr")
    c2e = next(i for i in dataset.items if i.group == "c2e")
    for layout, count in (("multi", 5), ("composite", 1)):
        protocol = Protocol(image_layout=layout).resolved("generate")
        request = RequestBuilder(suite, protocol, dataset).build(c2e)
        prompt = build_prompt(backend.loaded, request, backend.spec)
        assert len(prompt.images) == count
        if layout == "multi":
            # each image follows its label in the text the model reads
            text = request.turns[-1].parts
            labels = [p.text for p in text if p.text and p.text.endswith(":")]
            assert labels == ["Cause:", "A:", "B:", "C:", "D:"]


def test_both_layouts_end_to_end_and_the_comparison_table(
        tiny_idefics3: Path, pairs: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    runs = {}
    for layout in ("multi", "composite"):
        out = tmp_path / layout
        code, err = _run(["run", "--suite", str(pairs), "--model", f"hf:{tiny_idefics3}",
                          "--image-layout", layout, "--max-new-tokens", "4", "-M",
                          "batch_size=4", "--out", str(out), "--no-progress"], capsys)
        assert code == 0, err
        assert "16 items, 0 from the store" in err and " 0 errors" in err
        run = json.loads((out / "results.json").read_text())["runs"][0]
        assert run["spec"]["protocol"]["image_layout"] == layout and run["n_items"] == 16
        assert set(run["metrics"]) >= {"c2e", "e2c", "cue", "exp", "by_category", "by_style"}
        runs[layout] = run
    code, _ = _run(["report", str(tmp_path / "multi"), str(tmp_path / "composite"),
                    "--out", str(tmp_path / "both")], capsys)
    assert code == 0
    report = (tmp_path / "both" / "report.md").read_text() if (
        tmp_path / "both" / "report.md").exists() else ""
    text = report + "".join(p.read_text() for p in (tmp_path / "both").glob("*.html"))
    assert "multi-image vs composite input" in text


def test_rank_mode_scores_letters_with_five_images(tiny_idefics3: Path, pairs: Path,
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["run", "--suite", str(pairs), "--model", f"hf:{tiny_idefics3}",
                      "--answer-mode", "rank", "--max-new-tokens", "4", "--out",
                      str(tmp_path / "rank"), "--no-progress"], capsys)
    assert code == 0, err
    samples = [json.loads(line) for line in
               (tmp_path / "rank" / "samples.jsonl").read_text().splitlines()]
    choice = [s for s in samples if s["group"] in ("c2e", "e2c", "cue")]
    assert choice and all(len(s["scores"]) == 4 for s in choice)
    assert all(s.get("scores") is None for s in samples if s["group"] == "exp")


def test_a_single_image_model_needs_the_composite(tiny_paligemma: Path, pairs: Path,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["run", "--suite", str(pairs), "--model", f"hf:{tiny_paligemma}",
                      "--out", str(tmp_path / "multi"), "--no-progress"], capsys)
    assert code == 2 and "--image-layout composite" in err and "Traceback" not in err
    code, err = _run(["run", "--suite", str(pairs), "--model", f"hf:{tiny_paligemma}",
                      "--image-layout", "composite", "--answer-mode", "rank",
                      "--max-new-tokens", "4", "--out", str(tmp_path / "composite"),
                      "--no-progress"], capsys)
    assert code == 0, err
