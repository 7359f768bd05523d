"""``bench/bench_gpu.py --device cpu --tiny``: the accelerator benchmark's own code on tiny
models (its figures need a GPU; here it must run through and its outputs must agree)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"

pytestmark = pytest.mark.slow


def test_gpu_bench_runs_on_tiny_models_and_the_tools_agree(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    sys.modules.pop("bench_gpu", None)
    import bench_gpu

    lmms = importlib.util.find_spec("lmms_eval") is not None
    out = tmp_path / "figures.json"
    assert bench_gpu.main(["--device", "cpu", "--tiny", "--pairs", "6", "--limit", "12",
                           "--batches", "1,2", "--max-new-tokens", "4", "--budget", "3600",
                           "--json", str(out), *([] if lmms else ["--no-lmms-eval"])]) == 0
    figures = json.loads(out.read_text())
    assert figures["environment"]["size"] == "tiny" and not figures["skipped"]
    runs = {(t["model"], t["tool"], t["mode"], t["batch"]) for t in figures["timings"]}
    for model in ("llava", "qwen2_vl"):
        for mode in ("rank", "generate"):
            for tool in ("whatif", "bare"):
                assert {(model, tool, mode, 1), (model, tool, mode, 2)} <= runs
            assert figures["ratios"][f"{model}/{mode}/whatif_vs_bare/b2"] > 0
    assert all(t["items"] == 12 and t["items_per_s"] > 0 for t in figures["timings"])
    # The same forward passes on the same batches: identical outputs in float32, and batch 2
    # gives batch 1's choices and replies.
    checks = figures["outputs"]
    assert checks and all(c["compared"] == 12 and c["differ"] == 0 for c in checks.values())
    assert "llava rank: whatif batch 2 vs 1" in checks
    if lmms:  # lmms-eval generates at batch 1 only (it refuses 2), with our replies
        assert ("llava", "lmms-eval", "generate", 1) in runs
        assert ("llava", "lmms-eval", "generate", 2) not in runs
        (versus,) = [c for name, c in checks.items() if name.startswith("llava generate: whatif")
                     and name.endswith("vs lmms-eval")]  # whatif's fastest batch size
        assert versus == {"compared": 12, "differ": 0}
    printed = capsys.readouterr().out
    assert "whatif/bare" in printed and "items/s" in printed


def test_gpu_bench_says_when_there_is_no_cuda_device(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_gpu
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert bench_gpu.main([]) == 2
    assert "--device cpu --tiny" in capsys.readouterr().err
