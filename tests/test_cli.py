"""The CLI: listings, bad names, unwritable outputs, escaped reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from util import make_choice_dataset, page_data

from whatifbench.cli.main import main
from whatifbench.core.suite import Sample
from whatifbench.report.render import report_html
from whatifbench.report.sources import fresh
from whatifbench.runner.results import RunResult


def test_listings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for name in ("builtin:random", "builtin:constant", "builtin:ignore-premise"):
        assert name in out
    assert main(["suites"]) == 0
    assert "cvqa-synthetic" in capsys.readouterr().out


@pytest.mark.parametrize("argv, needle", [
    (["run", "--suite", "{ds}", "--model", "nosuch:model"], "Unknown backend 'nosuch:model'"),
    (["run", "--suite", "{tmp}/missing"], "There is no dataset folder"),
    (["run", "--suite", "{ds}", "--model", "builtin:random", "--limit", "0"], "--limit"),
    (["run", "--suite", "{ds}", "--model", "builtin:random", "--prompt", "bogus"],
     "has no prompt 'bogus'"),
    (["run", "--suite", "{ds}", "--model", "builtin:random", "--out", "{ds}/card.json"],
     "lies inside the input"),
    (["run", "--suite", "{ds}", "--model", "builtin:random", "--out", "{tmp}/notes.txt"],
     "exists and is not a folder"),
    (["run", "--suite", "{ds}", "--model", "builtin:random", "--out", "{tmp}/notes.txt/x"],
     "is a file, not a folder you can write to"),
    (["run", "--suite", "{ds}", "--model", "builtin:random", "--max-new-tokens", "0"],
     "must be a positive number"),
    (["run", "--suite", "{ds}", "-M", "novalue"], "key=value"),
    (["generate"], "needs a name"),
])
def test_bad_input_gives_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     argv: list[str], needle: str) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    (tmp_path / "notes.txt").write_text("mine")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    argv = [a.format(ds=ds, tmp=tmp_path) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "out")] if argv[0] == "run" else []
    code = main([*argv, "--no-progress"] if argv[0] == "run" else argv)
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err and "Traceback" not in err
    assert err.count("whatif: error:") == 1
    assert not (tmp_path / "out").exists()  # not even an empty folder
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_run_writes_reports_with_escaped_model_text(tmp_path: Path) -> None:
    evil = "<script>alert('x')</script>"
    sample = Sample("i1", "p", "original", "g", "q", "prompt", "1", evil, None, None, False, True,
                    "no-answer", None)
    metrics = {"original_accuracy": 0.0, "counterfactual_accuracy": 0.0, "drop": 0.0,
               "pair_accuracy": 0.0, "unparsed": 100.0, "n_pairs": 0}
    run = RunResult("cvqa-synthetic", "d", "m<b>", 1, metrics, {"dataset": {}}, [sample])
    page = report_html(fresh([run]))
    assert evil not in page and "m<b>" not in page and "\\u003cscript\\u003e" in page
    assert "</script" not in page.split("id='whatif-data'>")[1].split("</script>")[0]
    data = page_data(page)
    assert evil in data["strings"] and data["runs"][0]["model"] == "m<b>"
    assert "http://" not in page and "https://" not in page  # nothing loaded from the network


def test_run_end_to_end_prints_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:ignore-premise", "--out",
                 str(tmp_path / "out"), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "builtin:ignore-premise" in captured.out and "100.0" in captured.out
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["runs"][0]["n_items"] == 12
    md = (tmp_path / "out" / "report.md").read_text()
    assert "| builtin:ignore-premise |" in md


def test_report_merges_run_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    for name, strategy in (("a", "zero-shot"), ("b", "cot")):
        assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--strategy",
                     strategy, "--out", str(tmp_path / name), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                 str(tmp_path / "m")]) == 0
    merged = json.loads((tmp_path / "m" / "results.json").read_text())
    assert [r["spec"]["protocol"]["strategy"] for r in merged["runs"]] == ["zero-shot", "cot"]
    assert len((tmp_path / "m" / "samples.jsonl").read_text().splitlines()) == 24
    assert main(["report", str(tmp_path / "nothing"), "--out", str(tmp_path / "m2")]) == 2
    assert "holds no results.json" in capsys.readouterr().err


def test_cvqa_csv_refuses_other_suites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds", suite="cfmm")
    assert main(["export", str(ds), "--format", "cvqa-csv", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "belongs to the suite 'cfmm'" in err and not (tmp_path / "x").exists()
