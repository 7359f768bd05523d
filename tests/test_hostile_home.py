"""Issue 40, item 1: caches are best-effort. A ``$WHATIF_HOME`` that is read-only, full, or
blocked by a file (the home itself, or ``cache/report`` under it) leaves ``whatif run``,
``report``, ``view`` and ``audit`` working: what the home cannot keep is computed and used,
not kept."""

from __future__ import annotations

import errno
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from util import SRC, make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.report import bounded_server
from whatifbench.runner.store import RunStore
from whatifbench.runner.store_errors import store_error

pytestmark = pytest.mark.timeout(300)


def _blocked_home(tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home blocked by a regular file: the home itself, or its ``cache`` folder (as root,
    where permissions do not bind, a file in the way is what refuses every write)."""
    home = tmp_path / "home"
    if where == "home":
        home.write_text("not a folder")
    else:
        home.mkdir()
        (home / "cache").write_text("not a folder")
    monkeypatch.setenv("WHATIF_HOME", str(home))
    return home


def _view_page(run: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """What ``whatif view RUN`` serves at its root (the server stops after one request)."""
    got: dict[str, bytes] = {}

    def once(server: Any, message: str) -> None:
        bounded_server.start(server)
        got["page"] = urllib.request.urlopen(server.url, timeout=30).read()
        server.shutdown()
        server.server_close()

    monkeypatch.setattr(bounded_server, "serve_until_interrupted", once)
    assert main(["view", str(run), "--no-browser"]) == 0
    return got["page"]


@pytest.mark.parametrize("where", ["home", "cache"])
def test_run_report_view_and_audit_with_a_blocked_home(
        tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    home = _blocked_home(tmp_path, where, monkeypatch)
    before = home.read_bytes() if home.is_file() else (home / "cache").read_bytes()
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--model",
                 "builtin:constant", "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    assert (tmp_path / "run" / "results.json").is_file()
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "report.html").is_file()
    assert b"whatif-data" in _view_page(tmp_path / "run", monkeypatch)
    assert main(["audit", str(ds)]) == 0
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    if where == "home":  # the run store and the audit's cache live in the home itself
        assert "cannot keep answers" in err and "in memory only" in err
        assert "the audit could not be kept" in err
    assert (home.read_bytes() if home.is_file() else (home / "cache").read_bytes()) == before


def test_the_demo_suite_and_composites_without_a_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default suite (generated once into the home) and files handed on by path
    (composites, blank images) go to a private temporary folder when the home cannot hold them."""
    from whatifbench.core.fsutil import scratch_dir
    from whatifbench.runner.ablation import grey_file
    from whatifbench.runner.requests import composite_file

    ds = make_choice_dataset(tmp_path / "ds")
    _blocked_home(tmp_path, "home", monkeypatch)
    images = sorted(str(p) for p in (ds / "images").iterdir())[:2]
    for made in (composite_file(images, ["A", "B"]), grey_file(8, 6)):
        assert Path(made).is_file() and Path(made).parent == scratch_dir()
    assert main(["run", "--model", "builtin:constant", "--limit", "20", "--no-progress",
                 "--out", str(tmp_path / "run")]) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["runs"][0]["spec"]["dataset"]["path"].startswith(str(scratch_dir()))


def test_a_full_home_is_computed_not_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Every file the home would receive meets ENOSPC, and the run store "database or disk is
    full" after its first answers; the run folder (elsewhere) is written all the same."""
    ds = make_choice_dataset(tmp_path / "ds")
    home = tmp_path / "home"
    monkeypatch.setenv("WHATIF_HOME", str(home))
    mkstemp = tempfile.mkstemp

    def full(*args: Any, **kwargs: Any) -> Any:
        if str(kwargs.get("dir", "")).startswith(str(home)):
            raise OSError(errno.ENOSPC, "No space left on device")
        return mkstemp(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", full)
    put = RunStore._put
    calls = {"n": 0}

    def filling(self: RunStore, *args: Any) -> None:
        calls["n"] += 1
        if calls["n"] > 3 and self.unkept is None:
            raise store_error(self.path, sqlite3.OperationalError("database or disk is full"),
                              1.0)
        put(self, *args)

    monkeypatch.setattr(RunStore, "_put", filling)
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["runs"][0]["n_items"] == 12
    err = capsys.readouterr().err
    assert "cannot keep answers (database or disk is full)" in err and "Traceback" not in err
    assert not list((home / "cache").rglob("*.json"))  # nothing kept, nothing half-written
    with sqlite3.connect(home / "store.sqlite") as db:  # the answers kept before it filled up
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 3
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")]) == 0


def test_a_chosen_store_that_cannot_be_written_is_still_an_error(tmp_path: Path) -> None:
    """Only the default store (a cache in the home) is best-effort: a --store the user named
    fails with its sentence, before any model is called."""
    (tmp_path / "blocked").write_text("x")
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--store",
                 str(tmp_path / "blocked" / "s.sqlite"), "--out", str(tmp_path / "run"),
                 "--no-progress"]) == 2
    assert not (tmp_path / "run").exists()


READ_ONLY_RUN = r"""
import json, sys
from whatifbench.cli.main import main
print(json.dumps([main(args) for args in json.loads(sys.argv[1])]))
"""


def _can_bind_read_only(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c",
                            f'mount --bind -o ro "{tmp_path}" "{tmp_path}"'],
                           capture_output=True, timeout=30, check=False)
    return probe.returncode == 0


def test_a_read_only_home_for_real(tmp_path: Path) -> None:
    """The home (with a store and caches from an earlier run) bind-mounted read-only in a
    private mount namespace: run, report and audit still succeed, and the home is unchanged."""
    if not _can_bind_read_only(tmp_path):
        pytest.skip("cannot bind-mount read-only here (needs unprivileged user namespaces)")
    ds = make_choice_dataset(tmp_path / "ds")
    home = tmp_path / "home"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": SRC, "WHATIF_HOME": str(home),
           "HF_HUB_OFFLINE": "1"}
    first = subprocess.run([sys.executable, "-m", "whatifbench", "run", "--suite", str(ds),
                            "--model", "builtin:random", "--out", str(tmp_path / "first"),
                            "--no-progress"], env=env, capture_output=True, text=True,
                           timeout=200, check=False)
    assert first.returncode == 0, first.stderr
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    cases = [["run", "--suite", str(ds), "--model", "builtin:constant", "--no-progress",
              "--out", str(tmp_path / "run")],
             ["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")],
             ["audit", str(ds)]]
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f'mount --bind -o ro "{home}" "{home}" && "$@"', "sh",
         sys.executable, "-c", READ_ONLY_RUN, json.dumps(cases)],
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1]) == [0, 0, 0], done
    assert "Traceback" not in done.stderr and "cannot keep answers" in done.stderr
    assert (tmp_path / "rep" / "report.html").is_file()
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before
