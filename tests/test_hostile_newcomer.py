"""Issue 40, items 9, 10, 12 and 14 (a newcomer's mistakes): a run folder where a dataset goes
and the other way round, labels that name arguments a backend does not take, a mistyped option's
usage, review edits that change nothing and two reviews of one version, and the audit's p."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.core.csvtext import csv_text
from whatifbench.core.dataset import load_dataset


def _run(tmp_path: Path, *extra: str) -> tuple[Path, Path]:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress", *extra]) == 0
    return ds, tmp_path / "run"


# -- item 9 ------------------------------------------------------------------------------------
def test_a_run_folder_as_a_dataset_and_a_dataset_as_a_run_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds, run = _run(tmp_path)
    capsys.readouterr()
    for argv in (["run", "--suite", str(run), "--no-progress"], ["stats", str(run)],
                 ["items", str(run), str(run)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        named = f"{run} is a run folder (results.json), not a dataset: its dataset is handmade"
        assert f"{named} at {ds}" in err, err
        assert "pass the dataset folder" in err and "no card.json" not in err
    for argv in (["report", str(ds), "--out", str(tmp_path / "rep")],
                 ["view", str(ds), "--no-browser"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"{ds} is a dataset folder (card.json), not a run folder" in err, err
        assert f"whatif run --suite {ds}" in err and "holds no results.json" not in err
    assert not (tmp_path / "rep").exists()


# -- item 10 -----------------------------------------------------------------------------------
def test_labels_leave_out_arguments_another_backend_takes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--model",
                 "builtin:constant", "-M", "seed=3", "--out", str(tmp_path / "run"),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    for text in (out, report):
        assert "no -M seed" not in text and "[-M seed=3]" not in text
        assert "builtin:random vs builtin:constant" in text
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                 str(tmp_path / "default"), "--no-progress"]) == 0
    assert main(["report", str(tmp_path / "run"), str(tmp_path / "default"), "--out",
                 str(tmp_path / "both")]) == 0
    both = (tmp_path / "both" / "report.md").read_text(encoding="utf-8")
    # one model's runs differ in -M seed: said on its rows only, never on another model's
    assert "builtin:random \\[-M seed=3\\]" in both and "builtin:random \\[no -M seed\\]" in both
    assert "builtin:constant \\[" not in both and "builtin:constant |" in both


def test_a_mistyped_option_shows_the_subcommands_usage(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run", "--modle", "x"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: whatif run ") and "did you mean --model?" in err
    assert "whatif run: error: unrecognized arguments: --modle" in err


# -- item 12 -----------------------------------------------------------------------------------
def _sheet(tmp_path: Path, ds: Path, name: str) -> tuple[Path, list[dict[str, str]]]:
    sheet = tmp_path / name
    assert main(["review", "export", str(ds), "--sheet", "keys", "--out", str(sheet)]) == 0
    return sheet, list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8"))))


def _write(sheet: Path, rows: list[dict[str, str]]) -> None:
    sheet.write_text(csv_text([list(rows[0]), *[list(r.values()) for r in rows]]),
                     encoding="utf-8")


def test_an_edit_that_changes_nothing_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    sheet, rows = _sheet(tmp_path, ds, "s.csv")
    rows[2]["decision"] = "edit"  # the key left as it is
    _write(sheet, rows)
    capsys.readouterr()
    assert main(["review", "import", str(ds), str(sheet), "--out", str(tmp_path / "v2")]) == 2
    err = capsys.readouterr().err
    assert f"line 4: {rows[2]['key']}: the decision is 'edit' but the key is unchanged" in err
    assert not (tmp_path / "v2").exists()


def test_two_different_reviews_of_one_version_get_different_versions(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    versions = []
    for k, row in enumerate((0, 4)):
        sheet, rows = _sheet(tmp_path, ds, f"s{k}.csv")
        item = next(i for i in load_dataset(ds).items if i.id == rows[row]["key"])
        rows[row].update(decision="edit",
                         answer_key=next(c for c in item.choices if c != item.target))
        _write(sheet, rows)
        assert main(["review", "import", str(ds), str(sheet), "--out",
                     str(tmp_path / f"v{k}")]) == 0
        versions.append(load_dataset(tmp_path / f"v{k}").card.version)
    assert versions[0] != versions[1] and all(v.startswith("test+r1.") for v in versions)
    again, rows = _sheet(tmp_path, tmp_path / "v0", "again.csv")
    rows[1]["decision"] = "reject"
    _write(again, rows)
    assert main(["review", "import", str(tmp_path / "v0"), str(again), "--out",
                 str(tmp_path / "v3")]) == 0
    third = load_dataset(tmp_path / "v3").card.version
    assert third.startswith("test+r2.") and third.count("+") == 1


# -- item 14 -----------------------------------------------------------------------------------
def test_the_audit_prints_small_p_as_the_run_tables_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from whatifbench.analysis.audit.tables import tables

    # the paper design: its text-only shortcuts give slices passed blind with a tiny p
    assert main(["generate", "cvqa-synthetic", "--per-template", "60", "--design", "paper",
                 "--out", str(tmp_path / "ds")]) == 0
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "ds"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    tiny = [s for s in result["slices"] if s.get("p_holm") is not None and s["p_holm"] < 1e-3]
    assert tiny, "the generated dataset should have slices passed blind with a tiny p"
    text = "\n".join(t.to_text(200) for t in tables(result))
    rows = [line for line in text.splitlines() if "FLAGGED" in line
            and line.split()[0] in ("template", "role")]  # the slices whose p is tiny
    assert rows and all("<0.001" in line for line in rows), text
    assert " 0  FLAGGED" not in text and "e-0" not in text
