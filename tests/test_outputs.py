"""Issue 11, items 1 and 11: outputs never touch inputs, --overwrite replaces only what we wrote,
the existence check and the publishing rename are one step, leftovers of killed writers go away.

These back README's promises "inputs are never modified" (``test_overwrite_never_destroys_
inputs``, ``test_export_onto_its_own_dataset_is_refused``) and "outputs appear complete or not
at all" (``test_two_writers_of_one_folder_one_wins_whole``, ``test_kill_9_leaves_no_output_and_
the_next_write_cleans_up``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images
from util import make_choice_dataset, snapshot, whatif, whatif_env

from whatifbench.cli.main import main
from whatifbench.core.outputs import MARKER, folder_kind, staged_dir
from whatifbench.core.rename import rename_exchange, rename_noreplace
from whatifbench.errors import WhatifError


def _release_folder(shared_dir: Path, folder: Path) -> Path:
    """A user's working folder: the release CSV, its images and an unrelated note."""
    folder.mkdir()
    (folder / "good.csv").write_bytes(sample_csv(shared_dir).read_bytes())
    sample_images(shared_dir, folder / "coco")
    (folder / "notes.txt").write_text("my notes")
    return folder


def test_overwrite_never_destroys_inputs(shared_dir: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    work = _release_folder(shared_dir, tmp_path / "work")
    before = snapshot(work)
    # the reproduction: --out "$PWD" --overwrite, run inside the folder holding the inputs
    done = whatif(["import", "cvqa-real", "--csv", "good.csv", "--images", "coco", "--out",
                   str(work), "--overwrite"], cwd=work)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "folder you are working in" in done.stderr
    # the same from elsewhere: the output contains the inputs
    assert main(["import", "cvqa-real", "--csv", str(work / "good.csv"), "--images",
                 str(work / "coco"), "--out", str(work), "--overwrite"]) == 2
    assert "contains the input" in capsys.readouterr().err
    # an output inside an input folder, or equal to it
    for out, needle in ((work / "coco" / "ds", "lies inside the input folder"),
                        (work / "coco", "is the input")):
        assert main(["import", "cvqa-real", "--csv", str(work / "good.csv"), "--images",
                     str(work / "coco"), "--out", str(out), "--overwrite"]) == 2
        assert needle in capsys.readouterr().err
    assert snapshot(work) == before and not list(tmp_path.glob(".*"))


def test_export_onto_its_own_dataset_is_refused(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    before = snapshot(ds)
    for fmt, out in (("cvqa-csv", ds), ("cvqa-csv", tmp_path), ("cfmm-csv", ds / "items.jsonl"),
                     ("cello-jsonl", ds / "items.jsonl")):
        assert main(["export", str(ds), "--format", fmt, "--out", str(out), "--overwrite"]) == 2
        err = capsys.readouterr().err
        assert "input" in err and "Traceback" not in err, err
    assert snapshot(ds) == before


def test_review_sheets_stay_out_of_the_dataset(shared_dir: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    sample_images(shared_dir, tmp_path / "coco")
    ds = tmp_path / "ds"
    assert main(["import", "cvqa-real", "--csv", str(sample_csv(shared_dir)), "--images",
                 str(tmp_path / "coco"), "--out", str(ds)]) == 0
    before = snapshot(ds)
    assert main(["review", "export", str(ds), "--out", str(ds / "sheet.csv"), "--overwrite"]) == 2
    assert "lies inside the input folder" in capsys.readouterr().err
    sheet = tmp_path / "sheet.csv"
    assert main(["review", "export", str(ds), "--out", str(sheet)]) == 0
    assert snapshot(ds) == before
    inside = tmp_path / "copy"  # a sheet kept inside the dataset it reviews
    shutil.copytree(ds, inside)
    shutil.copy(sheet, inside / "sheet.csv")
    assert main(["review", "import", str(inside), str(inside / "sheet.csv"), "--in-place"]) == 2
    assert "contains the input" in capsys.readouterr().err
    assert (inside / "sheet.csv").read_bytes() == sheet.read_bytes()


def test_overwrite_replaces_only_folders_we_wrote_of_the_same_kind(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    run = tmp_path / "run"
    assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--out", str(run),
                 "--no-progress"]) == 0
    assert folder_kind(run) == "run" and folder_kind(ds) == "dataset"
    assert folder_kind(mine) is None
    capsys.readouterr()
    cases = [
        (["generate", "cvqa-synthetic", "--per-template", "2", "--out", str(mine)],
         "whatifbench did not write it"),
        (["run", "--suite", str(ds), "--model", "builtin:random", "--out", str(mine)],
         "whatifbench did not write it"),
        (["generate", "cvqa-synthetic", "--per-template", "2", "--out", str(run)],
         "it holds a run written by whatifbench"),
    ]
    for argv, needle in cases:
        assert main([*argv, "--overwrite"]) == 2
        assert needle in capsys.readouterr().err
    assert (mine / "thesis.tex").read_text() == "years of work"
    assert main(["generate", "cvqa-synthetic", "--per-template", "2", "--out",
                 str(tmp_path / "gen")]) == 0
    assert main(["generate", "cvqa-synthetic", "--per-template", "3", "--out",
                 str(tmp_path / "gen"), "--overwrite"]) == 0
    assert json.loads((tmp_path / "gen" / "card.json").read_text())["counts"]["items"] == 36
    monkeypatch.chdir(tmp_path)  # a folder named like the generator is not one of its inputs
    for extra in ([], ["--overwrite"]):
        assert main(["generate", "cvqa-synthetic", "--per-template", "2", "--out",
                     "cvqa-synthetic", *extra]) == 0
    assert (tmp_path / "gen" / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_out_dot_gets_a_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    for argv in (["run", "--suite", str(ds), "--model", "builtin:random", "--out", "."],
                 ["generate", "cvqa-synthetic", "--out", "."],
                 ["export", str(ds), "--format", "cvqa-csv", "--out", "."]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "folder you are working in" in err and "internal error" not in err
    assert list(empty.iterdir()) == []


RACE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from whatifbench.core.rename import rename_noreplace
    base, me, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    results = []
    for r in range(rounds):
        src = base / f"src-{me}-{r}"
        src.mkdir()
        (src / "who").write_text(me)
        (base / f"ready-{me}-{r}").touch()
        while len(list(base.glob(f"ready-*-{r}"))) < 2:
            pass
        try:
            rename_noreplace(src, base / f"target-{r}")
            results.append("won")
        except FileExistsError:
            results.append("lost")
    print(" ".join(results))
""")


def test_rename_noreplace_is_one_step_between_two_processes(tmp_path: Path) -> None:
    rounds = 40
    procs = [subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path), me, str(rounds)],
                              env=whatif_env(), stdout=subprocess.PIPE, text=True)
             for me in ("a", "b")]
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    for r in range(rounds):
        assert sorted((outs[0][r], outs[1][r])) == ["lost", "won"], r
        winner = "a" if outs[0][r] == "won" else "b"
        assert (tmp_path / f"target-{r}" / "who").read_text() == winner


def test_rename_helpers_on_files_and_folders(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("a")
    b.write_text("b")
    with pytest.raises(FileExistsError):
        rename_noreplace(a, b)
    assert b.read_text() == "b" and a.read_text() == "a"
    rename_noreplace(a, tmp_path / "c")
    assert (tmp_path / "c").read_text() == "a" and not a.exists()
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    d1.mkdir()
    d2.mkdir()
    (d1 / "x").write_text("1")
    (d2 / "x").write_text("2")
    assert rename_exchange(d1, d2)  # Linux file systems of this machine support it
    assert (d1 / "x").read_text() == "2" and (d2 / "x").read_text() == "1"


WRITER = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    from whatifbench.core.dataset import DatasetWriter
    from whatifbench.errors import WhatifError
    out, base, me, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    try:
        with DatasetWriter(out) as writer:
            writer.add_image("x.txt", me.encode())
            if mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            (base / f"ready-{me}").touch()
            deadline = time.monotonic() + 60
            while (len(list(base.glob("ready-*"))) < 2 if mode == "race"
                   else not (base / "release").exists()):
                assert time.monotonic() < deadline
                time.sleep(0.01)
            writer.finish(name=me, suite="cvqa-synthetic", version="0", generator={}, seed=None)
    except WhatifError as exc:
        print(exc)
        sys.exit(2)
""")


def _writer(out: Path, base: Path, me: str, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(out), str(base), me, mode],
                            env=whatif_env(), stdout=subprocess.PIPE, text=True)


def test_two_writers_of_one_folder_one_wins_whole(tmp_path: Path) -> None:
    """Both pass the existence check (the folder is absent), both stage, both publish at once:
    one publishes, the other is told and leaves nothing (before: both succeeded)."""
    out, base = tmp_path / "out", tmp_path / "sync"
    base.mkdir()
    procs = [_writer(out, base, me, "race") for me in ("a", "b")]
    results = [(p.wait(timeout=120), p.communicate()[0]) for p in procs]
    assert sorted(code for code, _ in results) == [0, 2]
    loser = next(text for code, text in results if code == 2)
    assert "was written by another process" in loser
    winner = json.loads((out / "card.json").read_text())["name"]
    assert (out / "images" / "x.txt").read_text() == winner  # one writer's files, whole
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_kill_9_leaves_no_output_and_the_next_write_cleans_up(tmp_path: Path) -> None:
    out, base = tmp_path / "out", tmp_path / "sync"
    base.mkdir()
    killed = _writer(out, base, "dead", "kill")
    assert killed.wait(timeout=60) == -9
    (dead,) = tmp_path.glob(".out.*.partial")  # what kill -9 leaves: never published
    assert not out.exists() and (dead / "images").is_dir()  # images wait for finish()
    live = _writer(out, base, "live", "hold")  # the next writer removes it, works beside it
    while not (base / "ready-live").exists():
        assert live.poll() is None
        time.sleep(0.01)
    (partial,) = tmp_path.glob(".out.*.partial")
    assert partial != dead and not dead.exists()
    old = tmp_path / ".out.abcd1234.partial"  # left by an older version: no marker, untouched
    old.mkdir()
    (old / "big.bin").write_bytes(b"0" * 1000)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    fresh = tmp_path / ".out.efgh5678.partial"  # no marker yet, but just created
    fresh.mkdir()
    assert main(["generate", "cvqa-synthetic", "--per-template", "2", "--out", str(out)]) == 0
    left = sorted(tmp_path.glob(".out.*.partial"))
    assert left == sorted([partial, fresh])  # the live writer's and the fresh one stay
    (base / "release").touch()
    assert live.wait(timeout=60) == 2  # the folder was published meanwhile: told, not replaced
    assert json.loads((out / "card.json").read_text())["counts"]["items"] == 24


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "x"
    with pytest.raises(RuntimeError), staged_dir(out) as stage:
        (stage / "half.txt").write_text("half")
        raise RuntimeError("crash")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "keep").write_text("k")
    with pytest.raises(WhatifError, match="not empty"), staged_dir(tmp_path):
        pass
    assert [p.name for p in tmp_path.iterdir()] == ["keep"]
