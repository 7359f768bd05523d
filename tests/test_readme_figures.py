"""Issue 40, item 15: the README's figures for the demo come from a bench script that measures
them (``bench/bench_first_run.py``), and that script reads the per-model times ``whatif run``
prints today."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from util import make_choice_dataset

from whatifbench.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> object:
    spec = importlib.util.spec_from_file_location("bench_first_run",
                                                  ROOT / "bench" / "bench_first_run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_quotes_the_measured_first_run() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "~2 s" not in readme  # the old, unmeasured claim (5.9 s measured)
    found = re.search(r"The first run spends most of its time in the scene reader.*?\n\n",
                      readme, re.S)
    assert found, "the README says where the first demo run spends its time"
    text = " ".join(found.group(0).split())
    assert "python bench/bench_first_run.py" in text
    assert re.search(r"generated in [0-9.]+–[0-9.]+ s", text)
    assert re.search(r"first run takes [0-9]+–[0-9]+ s .* scene reader [0-9]+–[0-9]+ s", text)


def test_the_bench_reads_the_times_whatif_run_prints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--model",
                 "builtin:constant", "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    found = dict(_bench().MODEL_LINE.findall(err))  # type: ignore[attr-defined]
    assert set(found) == {"builtin:random", "builtin:constant"}
    assert all(float(v) >= 0 for v in found.values())
