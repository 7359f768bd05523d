"""Run folders written before ``results.json`` was versioned (main's 81140b7 and every earlier
folder) read and report the same numbers.

No run folder is committed: ``as_81140b7`` turns a folder written now into the one 81140b7
wrote for the same runs. The differences, taken from a folder 81140b7 wrote
(``PYTHONPATH=<81140b7>/src python -m whatifbench run ...``): ``results.json`` has no ``format``
and ``version`` fields, the metrics carry no ``ci95_method`` beside their intervals, and
``runs_sha256`` is the digest of those entries; ``samples.jsonl`` lines have the same fields.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from util import make_choice_dataset

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.records.results_file import FORMAT, VERSION, runs_digest
from whatifbench.core.suite import suite_for
from whatifbench.errors import WhatifError
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.results import load_runs


def without_methods(value: Any) -> Any:
    """``value`` with every ``ci95_method`` left out (81140b7's metrics had none)."""
    if isinstance(value, dict):
        return {k: without_methods(v) for k, v in value.items() if k != "ci95_method"}
    if isinstance(value, list):
        return [without_methods(v) for v in value]
    return value


def as_81140b7(folder: Path, out: Path) -> Path:
    """A copy of the run folder ``folder`` as 81140b7 wrote it."""
    shutil.copytree(folder, out)
    data = json.loads((out / "results.json").read_text())
    assert data.pop("format") == FORMAT and data.pop("version") == VERSION
    for run in data["runs"]:
        run["metrics"] = without_methods(run["metrics"])
    data["runs_sha256"] = runs_digest(data["runs"])
    (out / "results.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Runs of two suites (paired C-VQA-Synthetic, CFMM with its totals) by three models,
    written now, and the same as 81140b7 wrote them."""
    root = tmp_path_factory.mktemp("compat")
    datasets = [load_dataset(make_choice_dataset(root / "choice"))]
    for name in ("cvqa-synthetic", "cfmm"):
        suite_for(name).example(root / name, seed=0)
        datasets.append(load_dataset(root / name))
    runs = api.run_all(datasets, ["builtin:random", "builtin:constant", "builtin:ignore-premise"],
                       options=RunOptions(progress=False))
    api.write_outputs(root / "now", runs)
    return root / "now", as_81140b7(root / "now", root / "old")


def test_an_unversioned_folder_reads_the_same_runs(folders: tuple[Path, Path]) -> None:
    now, old = (load_runs(f) for f in folders)
    assert [(r.suite, r.dataset, r.model, r.n_items) for r in old] == \
        [(r.suite, r.dataset, r.model, r.n_items) for r in now]
    assert [r.metrics for r in old] == [without_methods(r.metrics) for r in now]
    assert [r.spec for r in old] == [r.spec for r in now]
    assert [r.samples for r in old] == [r.samples for r in now]


def test_an_unversioned_folder_reports_the_same_numbers(folders: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    for k, folder in enumerate(folders):
        assert main(["report", str(folder), "--out", str(tmp_path / f"r{k}")]) == 0
    now, old = (tmp_path / "r0", tmp_path / "r1")
    strip = str(folders[0]), str(folders[1])
    assert (old / "report.md").read_text().replace(strip[1], strip[0]) == \
        (now / "report.md").read_text()
    tables = sorted(p.name for p in (now / "tables").iterdir())
    assert tables == sorted(p.name for p in (old / "tables").iterdir()) and tables
    for name in tables:
        assert (old / "tables" / name).read_bytes() == (now / "tables" / name).read_bytes()
    # the merged report writes the current version, whatever it read
    merged = json.loads((old / "results.json").read_text())
    assert (merged["format"], merged["version"]) == (FORMAT, VERSION)


def test_a_newer_version_is_refused_with_a_sentence(folders: tuple[Path, Path],
                                                   tmp_path: Path) -> None:
    out = shutil.copytree(folders[0], tmp_path / "newer")
    data = json.loads((out / "results.json").read_text())
    data["version"] = VERSION + 1
    (out / "results.json").write_text(json.dumps(data))
    with pytest.raises(WhatifError, match=r"has version 3, written by a newer whatifbench"):
        load_runs(out)
