"""Reports of confusing or tampered run folders: datasets of the same name told apart, a changed
``samples.jsonl`` refused, a run without a dataset hash shown without items, the same run given
twice shown once, and model names in ``report.md`` escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from util import make_choice_dataset, page_data

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.report.table import Table


def _run(ds: Path, out: Path, model: str = "builtin:random") -> Path:
    assert main(["run", "--suite", str(ds), "--model", model, "--out", str(out),
                 "--no-progress"]) == 0
    return out


def _report(capsys: pytest.CaptureFixture[str], *args: Path | str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["report", *map(str, args)])
    return code, capsys.readouterr().err


def test_datasets_of_the_same_name_show_their_short_hash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = make_choice_dataset(tmp_path / "one", seed=1)
    two = make_choice_dataset(tmp_path / "two", seed=2)
    hashes = [load_dataset(d).items_sha256[:12] for d in (one, two)]
    assert hashes[0] != hashes[1]
    _run(one, tmp_path / "a")
    _run(two, tmp_path / "b")
    code, _ = _report(capsys, tmp_path / "a", tmp_path / "b", "--out", tmp_path / "m")
    assert code == 0
    md = (tmp_path / "m" / "report.md").read_text()
    data = page_data((tmp_path / "m" / "report.html").read_text())
    names = [d["name"] for d in data["datasets"]]
    for h in hashes:
        assert f"C-VQA-Synthetic: handmade (sha256 {h})" in md
        assert f"handmade (sha256 {h})" in names
    assert data["datasets"][0]["tables"][0]["title"].endswith(f"(sha256 {hashes[0]})")
    # A dataset whose name is its own keeps the plain name.
    _run(one, tmp_path / "c")
    code, _ = _report(capsys, tmp_path / "c", "--out", tmp_path / "n")
    assert "**C-VQA-Synthetic: handmade**" in (tmp_path / "n" / "report.md").read_text()


def test_a_changed_samples_file_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    run = _run(ds, tmp_path / "run")
    samples = run / "samples.jsonl"
    good = samples.read_text()
    lines = good.splitlines()
    first = json.loads(lines[0])
    first["correct"] = not first["correct"]  # the page would contradict the tables
    samples.write_text("\n".join([json.dumps(first, ensure_ascii=False), *lines[1:]]) + "\n")
    code, err = _report(capsys, run, "--out", tmp_path / "m")
    assert code == 2 and not (tmp_path / "m").exists()
    assert str(samples) in err and "results.json" in err and "changed" in err, err
    samples.write_text("\n".join(lines[1:]) + "\n")  # a record removed
    code, err = _report(capsys, run, "--out", tmp_path / "m")
    assert code == 2 and "changed" in err, err
    samples.write_text(good)
    code, _ = _report(capsys, run, "--out", tmp_path / "m")
    assert code == 0


def test_a_changed_results_file_is_refused_like_a_changed_samples_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An edited metric would be shown in every table while an edited sample is refused: both
    are checked the same way (issue 32, low)."""
    ds = make_choice_dataset(tmp_path / "ds")
    run = _run(ds, tmp_path / "run")
    results = run / "results.json"
    good = results.read_text()
    data = json.loads(good)
    data["runs"][0]["metrics"]["counterfactual_accuracy"] = 99.9
    results.write_text(json.dumps(data, indent=2))
    code, err = _report(capsys, run, "--out", tmp_path / "m")
    assert code == 2 and not (tmp_path / "m").exists()
    assert str(results) in err and "changed" in err, err
    results.write_text(good)
    code, _ = _report(capsys, run, "--out", tmp_path / "m")
    assert code == 0


def test_a_run_without_a_dataset_hash_shows_no_items_of_another_dataset(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds", seed=1)
    run = _run(ds, tmp_path / "run")
    results = json.loads((run / "results.json").read_text())
    del results["runs"][0]["spec"]["dataset"]["items_sha256"]
    del results["runs_sha256"]  # as a folder of an older version, without its seal
    (run / "results.json").write_text(json.dumps(results))
    shutil.rmtree(ds)
    make_choice_dataset(ds, seed=2, n_pairs=3)  # another dataset at the recorded path
    other = {item.question for item in load_dataset(ds).items}
    code, err = _report(capsys, run, "--out", tmp_path / "m")
    assert code == 0
    data = page_data((tmp_path / "m" / "report.html").read_text())
    [dataset] = data["datasets"]
    assert dataset["found"] is None and "records no hash" in dataset["problem"]
    shown = {data["strings"][k] for k in dataset["items"]["question"]}
    assert not shown & other
    assert "records no hash" in err


def test_the_same_run_given_twice_is_shown_once(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    run = _run(ds, tmp_path / "run")
    shutil.copytree(run, tmp_path / "copy")
    code, err = _report(capsys, run, run, tmp_path / "copy", "--out", tmp_path / "m")
    assert code == 0
    assert len(json.loads((tmp_path / "m" / "results.json").read_text())["runs"]) == 1
    assert len((tmp_path / "m" / "samples.jsonl").read_text().splitlines()) == 12
    assert err.count("is given more than once") == 2, err
    rows = [line for line in (tmp_path / "m" / "report.md").read_text().splitlines()
            if line.startswith("| builtin:random |")]
    assert len(rows) == 2  # the results table and the Runs table


def test_report_md_escapes_markdown_in_model_names(tmp_path: Path) -> None:
    hostile = "*bold* [x](y) <b>_u_ `c` |p #h ~s~ \\e &amp;"
    ds = make_choice_dataset(tmp_path / "ds")
    _run(ds, tmp_path / "run", model=f"{hostile}=builtin:random")
    md = (tmp_path / "run" / "report.md").read_text()
    escaped = ("\\*bold\\* \\[x\\](y) \\<b\\>\\_u\\_ \\`c\\` \\|p \\#h \\~s\\~ \\\\e "
               "\\&amp;")
    assert md.count(escaped) == 2, md
    assert "*bold*" not in md.replace("\\*bold\\*", "") and "<b>" not in md
    table = Table("t", ("model", "acc"), ((hostile, "33.3"),))
    assert table.to_markdown().splitlines()[-1] == f"| {escaped} | 33.3 |"
