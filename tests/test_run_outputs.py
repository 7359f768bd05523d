"""Issue 11, item 2 (and the run parts of 10, 11): run folders are unique, written as one unit,
identified by a run id, never replaced without --overwrite, and `whatif report` refuses files of
two different runs side by side.

Backs README's promise "outputs appear complete or not at all" for runs
(``test_kill_9_while_replacing_a_run_keeps_the_earlier_run_whole``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from util import make_choice_dataset, snapshot, whatif_env

from whatifbench.cli.main import main
from whatifbench.runner.results import default_run_folder, load_runs

MODEL = ["--model", "builtin:constant", "--no-progress"]


def _run_ids(folder: Path) -> set[str]:
    ids = {json.loads((folder / "results.json").read_text())["run_id"]}
    ids |= {json.loads(line)["run_id"] for line in (folder / "samples.jsonl").read_text()
            .splitlines()}
    return ids


def test_default_folders_of_runs_started_together_differ(tmp_path: Path) -> None:
    names = {default_run_folder() for _ in range(50)}
    assert len(names) == 50  # same second, different folders
    ds = make_choice_dataset(tmp_path / "ds")
    work = tmp_path / "work"
    work.mkdir()
    procs = [subprocess.Popen([sys.executable, "-m", "whatifbench", "run", "--suite", str(ds),
                               "--model", model, "--no-progress"], cwd=work, env=whatif_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for model in ("builtin:random", "builtin:constant")]
    for proc in procs:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    runs = sorted((work / "whatif-out").iterdir())
    assert len(runs) == 2  # neither run's results were lost
    assert {load_runs(r)[0].model for r in runs} == {"builtin:random", "builtin:constant"}


def test_two_runs_writing_one_out_at_once(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=20)
    out = tmp_path / "out"
    procs = [subprocess.Popen([sys.executable, "-m", "whatifbench", "run", "--suite", str(ds),
                               "--model", model, "-M", "delay=0.01", "--out", str(out),
                               "--no-progress"], env=whatif_env(tmp_path / f"home-{k}"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k, model in enumerate(("builtin:random", "builtin:constant"))]
    results = [(p.wait(timeout=180), p.communicate()[1]) for p in procs]
    assert sorted(code for code, _ in results) == [0, 2], results
    loser = next(err for code, err in results if code == 2)
    assert "another process" in loser or "already exists" in loser
    assert len(_run_ids(out)) == 1  # results.json and samples.jsonl of the same run
    winner = load_runs(out)[0]
    assert winner.model in {"builtin:random", "builtin:constant"}
    assert {s.item_id for s in winner.samples} == {f"p{k}-{r}" for k in range(20) for r in "oc"}


KILLER = textwrap.dedent("""
    import os, signal, sys
    from whatifbench.report import render
    def killed(*args, **kwargs):  # kill -9 halfway through writing the outputs
        os.kill(os.getpid(), signal.SIGKILL)
    render.report_html = killed
    from whatifbench.cli.main import main
    sys.exit(main(sys.argv[1:]))
""")


def test_kill_9_while_replacing_a_run_keeps_the_earlier_run_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    out = tmp_path / "out"
    assert main(["run", "--suite", str(ds), *MODEL, "--out", str(out)]) == 0
    before = snapshot(out)
    killed = subprocess.run([sys.executable, "-c", KILLER, "run", "--suite", str(ds), "--model",
                             "builtin:random", "--no-progress", "--out", str(out),
                             "--overwrite"], env=whatif_env(), capture_output=True, timeout=180,
                            check=False)
    assert killed.returncode == -9
    assert snapshot(out) == before  # untouched, whole
    assert len(list(tmp_path.glob(".out.*.partial"))) == 1
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "merged")]) == 0
    assert "builtin:constant" in capsys.readouterr().out
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--no-progress",
                 "--out", str(out), "--overwrite"]) == 0
    assert load_runs(out)[0].model == "builtin:random" and len(_run_ids(out)) == 1
    assert list(tmp_path.glob(".out.*.partial")) == []  # the dead writer's leftovers removed


def test_report_refuses_results_and_samples_of_different_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    a, b, mixed = tmp_path / "a", tmp_path / "b", tmp_path / "mixed"
    assert main(["run", "--suite", str(ds), *MODEL, "--out", str(a)]) == 0
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--no-progress",
                 "--out", str(b)]) == 0
    mixed.mkdir()  # what an interrupted file-by-file write used to leave
    (mixed / "results.json").write_bytes((a / "results.json").read_bytes())
    (mixed / "samples.jsonl").write_bytes((b / "samples.jsonl").read_bytes())
    capsys.readouterr()
    assert main(["report", str(mixed), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "come from different runs" in err and "samples.jsonl:1" in err
    assert not (tmp_path / "r").exists()


def test_run_out_onto_an_existing_run_needs_overwrite(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    out = tmp_path / "out"
    assert main(["run", "--suite", str(ds), *MODEL, "--out", str(out)]) == 0
    first = _run_ids(out)
    capsys.readouterr()
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--no-progress",
                 "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert _run_ids(out) == first and load_runs(out)[0].model == "builtin:constant"
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--no-progress",
                 "--out", str(out), "--overwrite"]) == 0
    assert _run_ids(out) != first and load_runs(out)[0].model == "builtin:random"
    # report --out follows the same rule
    assert main(["report", str(out), "--out", str(out)]) == 2
    assert "is the input" in capsys.readouterr().err


def test_a_failed_run_leaves_no_out_folder(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    for extra in (["--prompt", "bogus"], ["--model", "nosuch:x"], ["--limit", "0"]):
        assert main(["run", "--suite", str(ds), "--model", "builtin:random", *extra, "--out",
                     str(tmp_path / "a" / "b" / "out"), "--no-progress"]) == 2
        assert not (tmp_path / "a").exists()  # neither the folder nor its parents


@pytest.mark.parametrize("damage, needle", [
    (lambda r: r["runs"][0].pop("metrics"), "field runs[0].metrics is missing"),
    (lambda r: r["runs"][0].update(n_items="many"), "field runs[0].n_items is \"many\""),
    (lambda r: r.update(runs={}), "field runs is an empty object, not an array"),
    (lambda r: r.pop("runs"), "not a whatifbench results file"),
])
def test_report_on_a_results_json_missing_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              damage: object, needle: str) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    out = tmp_path / "out"
    assert main(["run", "--suite", str(ds), *MODEL, "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    damage(results)  # type: ignore[operator]
    (out / "results.json").write_text(json.dumps(results))
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert needle in err and "internal error" not in err


def test_report_when_the_dataset_broke_later(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    out = tmp_path / "out"
    assert main(["run", "--suite", str(ds), *MODEL, "--out", str(out)]) == 0
    with open(ds / "items.jsonl", "a", encoding="utf-8") as handle:
        handle.write("{broken\n")
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    assert "internal error" not in err
    # The explorer shows a dataset's images only while its items.jsonl has the run's hash.
    assert "has changed since the run" in err
    assert "data:image/jpeg" not in (tmp_path / "r" / "report.html").read_text()
