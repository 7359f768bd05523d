"""``whatif run --budget N --bank FILE``: a bank fitted by ``whatif items --bank`` from stored
runs, items picked from it (whole pairs, at most N), the estimated full score with its interval
in the run spec, labelled as an estimate in every table, report.md and the explorer; and the
clear errors of bad input."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from util import make_choice_dataset

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.errors import EXIT_USER
from whatifbench.runner.evaluate import RunOptions


def random_runs(dataset: Path, out: Path, n: int = 24) -> Path:
    """``n`` seeded random models' runs of ``dataset`` in one run folder (names random0 …)."""
    runs = []
    for k in range(n):
        found = api.run_all([dataset], ["builtin:random"], {"seed": k},
                            options=RunOptions(progress=False))
        runs += [replace(r, spec=replace(r.spec, model_name=f"random{k}")) for r in found]
    api.write_outputs(out, runs)
    return out


@pytest.fixture(scope="module")
def banked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 60-pair dataset, 24 runs of it, its bank, and a second dataset."""
    tmp = tmp_path_factory.mktemp("banked")
    ds = make_choice_dataset(tmp / "ds", n_pairs=60)
    other = make_choice_dataset(tmp / "other", n_pairs=60, seed=5)
    runs = random_runs(ds, tmp / "runs")
    assert main(["items", str(ds), str(runs), "--bank", str(tmp / "bank.json")]) == 0
    return {"ds": ds, "other": other, "runs": runs, "bank": tmp / "bank.json", "tmp": tmp}


def page_data(folder: Path) -> dict:
    page = (folder / "report.html").read_text(encoding="utf-8")
    found = re.search(r"<script type='application/json' id='whatif-data'>(.*?)</script>", page,
                      re.S)
    assert found
    return json.loads(found.group(1))


@pytest.mark.parametrize("method", ["stratified", "random"])
def test_budget_run_is_an_estimate_everywhere(banked: dict[str, Path], tmp_path: Path,
                                              method: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    bank = json.loads(banked["bank"].read_text(encoding="utf-8"))
    assert bank["format"] == "whatifbench-item-bank" and bank["respondents"] == 24
    assert len(bank["units"]) == 60  # C-VQA's scoring unit: the counterfactual questions
    out = tmp_path / "est"
    assert main(["run", "--suite", str(banked["ds"]), "--model", "builtin:constant",
                 "--budget", "30", "--bank", str(banked["bank"]), "--budget-method", method,
                 "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    run = results["runs"][0]
    est = run["spec"]["estimate"]
    assert est["kind"] == "estimate" and est["method"] == method and est["budget"] == 30
    assert run["n_items"] == est["items"] <= 30 and est["dataset_items"] == 120
    low, high = est["interval"]
    assert 0 <= low <= est["value"] <= high <= 100 and high > low
    assert est["bank"] == "bank.json" and len(est["bank_sha256"]) == 64
    # design-based: the standard error, what a random draw would have had, the bank's own
    # model-based prediction (outside the interval: the model answers unlike the bank's runs)
    assert est["design"] == method and est["se"] > 0 and est["asked_units"] == est["items"] // 2
    assert isinstance(est["bank_prediction"], float) and isinstance(est["misfit"], bool)
    assert run["spec"]["selection"]["budget"] == 30
    samples = [json.loads(line) for line in
               (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    pairs = {}
    for s in samples:
        pairs.setdefault(s["pair_id"], set()).add(s["role"])
    assert all(roles == {"original", "counterfactual"} for roles in pairs.values())
    label = f"builtin:constant [estimate: {est['items']} of 120 items]"
    assert label in printed and "estimated full score" in printed
    report = (out / "report.md").read_text(encoding="utf-8")
    assert f"estimate: {est['items']} of 120 items" in report and "⚠ Estimates" in report
    data = page_data(out)
    ranking = data["datasets"][0]["ranking"]
    assert ranking["rows"][0]["label"] == label
    assert ranking["rows"][0]["value"] == est["value"]
    assert "estimated" in ranking["metric"]
    assert all("estimate" in t["notes"][-1] or any("Estimates" in n for n in t["notes"])
               for t in data["datasets"][0]["tables"])


def test_a_full_run_beside_an_estimate_is_told_apart(banked: dict[str, Path],
                                                     tmp_path: Path) -> None:
    for name, extra in (("full", []), ("est", ["--budget", "20", "--bank",
                                                str(banked["bank"])])):
        assert main(["run", "--suite", str(banked["ds"]), "--model", "builtin:constant",
                     *extra, "--out", str(tmp_path / name), "--no-progress"]) == 0
    assert main(["report", str(tmp_path / "full"), str(tmp_path / "est"), "--out",
                 str(tmp_path / "both")]) == 0
    report = (tmp_path / "both" / "report.md").read_text(encoding="utf-8")
    full = [line for line in report.splitlines() if line.startswith("| builtin:constant |")]
    est = [line for line in report.splitlines()
           if line.startswith("| builtin:constant \\[estimate: 20 of 120 items\\] |")]
    assert full and est  # told apart in every table (the runs table too)
    assert full[0].rstrip(" |").endswith("–")  # no estimate on the full run's row
    assert not est[0].rstrip(" |").endswith("–")


def test_bank_of_another_dataset_is_refused(banked: dict[str, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--suite", str(banked["other"]), "--model", "builtin:constant",
                 "--budget", "20", "--bank", str(banked["bank"]), "--out", str(tmp_path / "x"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == EXIT_USER
    assert "was fitted on the dataset 'handmade'" in err and "items sha256" in err
    assert not (tmp_path / "x").exists()


def test_a_budget_that_buys_every_item_is_a_full_run(banked: dict[str, Path],
                                                     tmp_path: Path) -> None:
    out = tmp_path / "all"
    assert main(["run", "--suite", str(banked["ds"]), "--model", "builtin:constant",
                 "--budget", "500", "--bank", str(banked["bank"]), "--out", str(out),
                 "--no-progress"]) == 0
    run = json.loads((out / "results.json").read_text(encoding="utf-8"))["runs"][0]
    # not an estimate (it was 33.33 in [33.35, 33.35] once): every item asked, value exact
    assert "estimate" not in run["spec"] and run["n_items"] == 120
    assert "estimate" not in (out / "report.md").read_text(encoding="utf-8")


def test_a_trimmed_or_edited_bank_is_refused_before_any_model_call(
        banked: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = json.loads(banked["bank"].read_text(encoding="utf-8"))
    bank["units"] = bank["units"][:10]  # the dataset's hash, a tenth of its units
    trimmed = tmp_path / "trimmed.json"
    trimmed.write_text(json.dumps(bank), encoding="utf-8")
    code = main(["run", "--suite", str(banked["ds"]), "--model", "builtin:constant",
                 "--budget", "20", "--bank", str(trimmed), "--out", str(tmp_path / "x"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == EXIT_USER and "are not that dataset's" in err and "10 dealing units" in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("args, message", [
    (["--budget", "20", "--bank", "BANK", "--budget-method", "adaptive"],
     "--budget-method adaptive is gone"),
    (["--budget", "20", "--bank", "BANK", "--budget-method", "fancy"], "is not one of"),
    (["--budget", "20"], "--budget N and --bank FILE go together"),
    (["--bank", "BANK"], "--budget N and --bank FILE go together"),
    (["--budget", "20", "--bank", "BANK", "--limit", "10"], "leave out --limit"),
    (["--budget", "0", "--bank", "BANK"], "must be a positive number"),
    (["--budget", "20", "--bank", "NOTABANK"], "is not a whatifbench item bank"),
    (["--budget", "20", "--bank", "MISSING"], "does not exist"),
])
def test_budget_bad_input(banked: dict[str, Path], tmp_path: Path, args: list[str],
                          message: str, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "not.json").write_text('{"units": []}', encoding="utf-8")
    swap = {"BANK": str(banked["bank"]), "NOTABANK": str(tmp_path / "not.json"),
            "MISSING": str(tmp_path / "missing.json")}
    code = main(["run", "--suite", str(banked["ds"]), "--model", "builtin:constant",
                 *[swap.get(a, a) for a in args], "--out", str(tmp_path / "x"),
                 "--no-progress"])
    assert code == EXIT_USER
    assert message in capsys.readouterr().err


def test_bank_needs_enough_runs(banked: dict[str, Path], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    few = random_runs(banked["ds"], tmp_path / "few", n=5)
    code = main(["items", str(banked["ds"]), str(few), "--bank", str(tmp_path / "b.json")])
    err = capsys.readouterr().err
    assert code == EXIT_USER
    assert "needs at least 20 runs" in err and "5 were given" in err
    assert not (tmp_path / "b.json").exists()
