"""The real lmms-eval (PyPI) runs an exported task on a tiny random LLaVA (``llava_hf``,
offline), and ``whatif import-results`` of its samples gives the same per-item correctness as
our own ``hf:`` run of the same model (greedy, identical prompts).

lmms-eval is not in the test extra (its declared dependencies pull torchvision and a CUDA
torch); ``.ci/run`` installs it with the subset of its dependencies that this path imports and
sets ``WHATIF_REQUIRE_LMMS_EVAL=1``, which turns the skip below into a failure."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from whatifbench.cli.main import main
from whatifbench.core.registry import lookup
from whatifbench.integrations.lmms.export import export_lmms_eval

pytestmark = [pytest.mark.lmms_eval, pytest.mark.slow]
TOKENS = 8
"""Generation budget of both runs (short: random weights only produce noise)."""


@pytest.fixture(scope="module")
def lmms_eval_installed() -> None:
    if importlib.util.find_spec("lmms_eval") is None:
        if os.environ.get("WHATIF_REQUIRE_LMMS_EVAL") == "1":
            pytest.fail("lmms_eval is not installed although WHATIF_REQUIRE_LMMS_EVAL=1; see "
                        ".ci/run for how it is installed.")
        pytest.skip("lmms_eval is not installed (.ci/run installs it)")


def lmms_eval_error(printed: str) -> str | None:
    """What lmms-eval printed from its first error or traceback on (``None`` when it printed
    neither): it reports a crash of its model or task with exit status 0."""
    marks = [printed.find(m) for m in ("Error during evaluation", "Traceback (most recent call")]
    found = [m for m in marks if m >= 0]
    return printed[min(found):][-6000:] if found else None


def test_lmms_eval_errors_are_found_in_what_it_printed() -> None:
    crashed = ("INFO Selected Tasks\nERROR | lmms_eval.__main__:cli_evaluate:614 - Error during "
               "evaluation: No module named 'filelock._api'.\nTraceback (most recent call last):"
               "\n  File ...\nModuleNotFoundError: No module named 'filelock._api'")
    problem = lmms_eval_error(crashed)
    assert problem is not None and problem.startswith("Error during evaluation")
    assert problem.endswith("No module named 'filelock._api'")
    assert lmms_eval_error("INFO Selected Tasks\n|whatif_cvqa_synthetic|pair_accuracy|") is None


def samples(rows: Path) -> dict[str, dict]:
    return {obj["item_id"]: obj for obj in map(json.loads, rows.read_text().splitlines())}


def test_lmms_eval_runs_our_task_like_our_own_run(lmms_eval_installed: None, tiny_llava: Path,
                                                   tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    lookup("generator", "cvqa-synthetic").obj.generate(dataset, seed=0, per_template=1)
    task = export_lmms_eval(dataset, tmp_path / "task")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf_home"),
           "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run(
        [sys.executable, "-m", "lmms_eval", "--model", "llava_hf", "--model_args",
         f"pretrained={tiny_llava},device=cpu,device_map=cpu", "--tasks", task.task,
         "--include_path", str(task.folder), "--batch_size", "1", "--log_samples",
         "--output_path", str(tmp_path / "logs"), "--gen_kwargs", f"max_new_tokens={TOKENS}"],
        capture_output=True, text=True, env=env, timeout=1200, cwd=tmp_path)
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed[-4000:]
    # lmms-eval exits 0 when its model or task crashes (and writes no samples): show its error.
    problem = lmms_eval_error(printed)
    assert problem is None, f"lmms-eval failed (exit status 0):\n{problem}"
    (logged,) = (tmp_path / "logs").rglob(f"*_samples_{task.task}.jsonl")
    assert "pair_accuracy" in done.stdout  # lmms-eval's own table shows our aggregations

    assert main(["import-results", "lmms-eval", str(logged), "--dataset", str(dataset),
                 "--out", str(tmp_path / "imported")]) == 0
    assert main(["run", "--suite", str(dataset), "--model", f"hf:{tiny_llava}", "-M",
                 "batch_size=1", "--max-new-tokens", str(TOKENS), "--out",
                 str(tmp_path / "own"), "--no-progress"]) == 0
    theirs = samples(tmp_path / "imported" / "samples.jsonl")
    ours = samples(tmp_path / "own" / "samples.jsonl")
    assert set(theirs) == set(ours) and len(ours) == 12
    for item_id, mine in ours.items():
        assert theirs[item_id]["prompt"] == mine["prompt"]
        assert theirs[item_id]["response"].strip() == mine["response"], item_id
        assert theirs[item_id]["correct"] == mine["correct"], item_id
    imported = json.loads((tmp_path / "imported" / "results.json").read_text())["runs"][0]
    own = json.loads((tmp_path / "own" / "results.json").read_text())["runs"][0]
    for key in ("original_accuracy", "counterfactual_accuracy", "drop", "pair_accuracy"):
        assert imported["metrics"][key] == own["metrics"][key]
    assert imported["spec"]["protocol"]["max_new_tokens"] == TOKENS
    # lmms-eval's aggregated results are the task's aggregations over the same replies.
    (results,) = (tmp_path / "logs").rglob("*_results.json")
    reported = json.loads(results.read_text())["results"][task.task]
    assert reported["pair_accuracy,none"] == own["metrics"]["pair_accuracy"]
    assert reported["drop,none"] == own["metrics"]["drop"]
