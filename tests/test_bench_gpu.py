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
                           "--decode-tokens", "6", "--release-items", "2",
                           "--release-tokens", "8", "--rounds", "2", "--json", str(out),
                           *([] if lmms else ["--no-lmms-eval"])]) == 0
    figures = json.loads(out.read_text())
    env = figures["environment"]
    assert env["size"] == "tiny" and env["torch"] and env["cpu"] and env["rounds"] == 2
    assert env["torch_threads"] == 1  # --tiny on a CPU: one torch thread unless --threads
    assert not figures["skipped"] and not figures["failed"]
    runs = {(t["model"], t["tool"], t["mode"], t["batch"]) for t in figures["timings"]}
    for model in ("llava", "qwen2_vl"):
        for mode in ("rank", "generate"):
            for tool in ("whatif", "bare"):
                assert {(model, tool, mode, 1), (model, tool, mode, 2)} <= runs
            assert figures["ratios"][f"{model}/{mode}/whatif_vs_bare/b2"] > 0
        # On a CPU the whatif runs decode eagerly; the fast path is run beside them.
        assert {(model, "whatif-eager", "generate", 2), (model, "whatif-fast", "generate", 2),
                (model, "whatif-release", "generate", 1)} <= runs
        assert figures["ratios"][f"{model}/generate/fast_vs_eager/b2"] > 0
        decode = figures["decode"][model]
        assert decode["rows"] == 2 and decode["new_tokens"] == 6
        assert decode["eager_tokens_per_s"] > 0 and decode["fast_tokens_per_s"] > 0
        assert 0 < decode["fast_share_of_bound"] and decode["measured_gbs"] > 0
        assert "temperature" in figures["release_decoding"][model]
    released = [t for t in figures["timings"] if t["tool"] == "whatif-release"]
    assert all(t["items"] == 2 and 0 < t["tokens"] <= 16 for t in released)
    assert all(t["items"] == 12 and t["items_per_s"] > 0 for t in figures["timings"]
               if t["tool"] != "whatif-release")
    # The same forward passes on the same batches: identical outputs in float32, batch 2 gives
    # batch 1's choices and replies, and the fast decoding path gives eager generate's.
    checks = figures["outputs"]
    assert checks and all(c["compared"] == 12 and c["differ"] == 0 for c in checks.values())
    assert "llava rank: whatif batch 2 vs 1" in checks
    assert "qwen2_vl generate batch 2: fast decoding vs eager" in checks
    if lmms:  # lmms-eval generates at batch 1 only (it refuses 2), with our replies
        assert ("llava", "lmms-eval", "generate", 1) in runs
        assert ("llava", "lmms-eval", "generate", 2) not in runs
        (versus,) = [c for name, c in checks.items() if name.startswith("llava generate: whatif")
                     and name.endswith("vs lmms-eval")]  # whatif's fastest batch size
        assert versus == {"compared": 12, "differ": 0}
        assert figures["ratios"]["llava/generate/whatif_vs_lmms/b1"] > 0
    printed = capsys.readouterr().out
    assert "whatif/bare" in printed and "items/s" in printed and "tokens/s" in printed


def test_gpu_bench_says_when_there_is_no_cuda_device(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_gpu
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert bench_gpu.main([]) == 2
    assert "--device cpu --tiny" in capsys.readouterr().err
