"""The annotation app and its store against hostile and unlucky conditions (issue 32): printed
links that work in the user's terminal and keep the token out of pipes, hostile answer bodies
answered with a JSON 4xx, a full disk said as such with a JSON 5xx, reservations of annotators
who left that expire, going back to change an answer, a read-only store that still exports."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from human_util import free_port
from interop_util import kind_datasets  # noqa: F401  (session fixture)
from util import make_choice_dataset, whatif, whatif_env

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.human import api
from whatifbench.human.plan import BLOCK
from whatifbench.human.records import Settings
from whatifbench.human.server import AnnotationServer, start
from whatifbench.human.store import RESERVATION_S, HumanStore

pytestmark = pytest.mark.timeout(120)
LINK = re.compile(r"^\s+a1: (http://\S+)\s*$", re.M)


@pytest.fixture()
def dataset(tmp_path: Path) -> Dataset:
    return load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=10))


@pytest.fixture()
def served(dataset: Dataset, tmp_path: Path) -> Iterator[AnnotationServer]:
    server = api.serve(dataset, Settings(), store=tmp_path / "store.sqlite")
    start(server)
    yield server
    server.shutdown()
    server.server_close()


def post(server: AnnotationServer, body: bytes, headers: dict[str, str] | None = None
         ) -> tuple[int, Any]:
    """POST ``body`` to /api/answer; (status, parsed JSON reply)."""
    request = urllib.request.Request(server.url().rstrip("/") + "/api/answer", data=body,
                                     headers={"X-Whatif-Token": server.token, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def get(server: AnnotationServer, path: str) -> tuple[int, Any]:
    request = urllib.request.Request(server.url().rstrip("/") + path,
                                     headers={"X-Whatif-Token": server.token})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _serve_output(args: list[str], home: Path, tty: bool) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``whatif human serve`` (stdout a pseudo-terminal, or a pipe); its output up to the
    line saying how to stop it."""
    command = [sys.executable, "-m", "whatifbench", "human", "serve", *args, "--no-browser"]
    if tty:
        master, slave = pty.openpty()
        process = subprocess.Popen(command, env=whatif_env(home), stdout=slave,
                                   stderr=subprocess.PIPE)
        os.close(slave)
        read = lambda: os.read(master, 4096)  # noqa: E731
        fd = master
    else:
        process = subprocess.Popen(command, env=whatif_env(home), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        assert process.stdout is not None
        fd = process.stdout.fileno()
        read = lambda: os.read(fd, 4096)  # noqa: E731
    out = b""
    deadline = time.monotonic() + 60
    while b"Ctrl-C" not in out and time.monotonic() < deadline:
        if select.select([fd], [], [], 1)[0]:
            chunk = read()
            if not chunk:
                break
            out += chunk
    assert b"Ctrl-C" in out, (out, process.stderr.read() if process.poll() is not None else "")
    return process, out.decode().replace("\r\n", "\n")


def test_printed_links_work_in_a_terminal_and_keep_the_token_out_of_pipes(
        tmp_path: Path, whatif_home: Path, dataset: Dataset) -> None:
    """Item 3: with --host, the links printed to a terminal carry the real token and open the
    app; printed to a pipe (a log file) the token is masked and the way to it is said."""
    for tty, extra in ((True, []), (False, []), (False, ["--show-token"])):
        port = str(free_port())
        process, out = _serve_output([str(dataset.root), "--host", "127.0.0.1", "--port", port,
                                      "--annotator", "a1", *extra], whatif_home, tty)
        try:
            link = LINK.search(out)
            assert link, out
            store = HumanStore(dataset, None, readonly=True)
            token = store.token
            store.close()
            if tty or extra:
                assert f"token={token}" in link.group(1)
                with urllib.request.urlopen(link.group(1), timeout=10) as page:
                    assert page.status == 200 and b"whatif-config" in page.read()
            else:
                assert token not in out and "token=***" in link.group(1)
                assert "printed only to a terminal" in out and "--show-token" in out
        finally:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.parametrize(("body", "headers", "code", "said"), [
    (b'{"annotator": "a1"}', {"Content-Length": "abc"}, 400, "Content-Length"),
    (b"[" * 100_000 + b"]" * 100_000, {}, 400, "not JSON"),
    (b'{"annotator": "a1", "position": 0, "reply": "A", "seconds": ' + b"9" * 400 + b"}", {},
     400, "seconds"),
    (b'{"annotator": "a1", "position": 0, "reply": "A", "seconds": ' + b"9" * 5000 + b"}", {},
     400, "not JSON"),
    (b'{"annotator": "a1", "position": 0, "reply": "A", "seconds": NaN}', {}, 400, "seconds"),
    (b'{"annotator": "a1", "position": 0, "parts": ["\\ud800", "b", "c"]}', {}, 400,
     "surrogate"),
    (b'{"annotator": "a1", "position": ' + b"9" * 400 + b', "reply": "A"}', {}, 400,
     "position"),
    (b'{"annotator": "a1", "position": 0, "reply": "A", "revise": true}', {}, 409,
     "not answered"),
    (b"\xff\xfe{}", {}, 400, "not JSON"),
])
def test_hostile_answer_bodies_get_a_json_4xx(served: AnnotationServer,
                                              capfd: pytest.CaptureFixture[str], body: bytes,
                                              headers: dict[str, str], code: int,
                                              said: str) -> None:
    """Item 4: each hostile body is a 4xx with a JSON error, no traceback, and the server
    goes on answering."""
    got, reply = post(served, body, headers)
    assert got == code and said in reply["error"]
    assert get(served, "/api/state?annotator=a1")[0] == 200
    assert "Traceback" not in capfd.readouterr().err


def test_a_lone_surrogate_in_an_explanation_is_a_4xx(kind_datasets: Any, tmp_path: Path,  # noqa: F811
                                                      capfd: pytest.CaptureFixture[str]
                                                      ) -> None:
    """Item 4: ``\\ud800`` in an Exp answer (MuCR's three fields), which the store cannot hold
    as text, is a 400 with a JSON error, not a traceback."""
    server = api.serve(load_dataset(kind_datasets("multi-image")), Settings(),
                       store=tmp_path / "mucr.sqlite")
    start(server)
    try:
        for _ in range(40):
            _, state = get(server, "/api/state?annotator=a1")
            if state["item"]["form"] == "explain":
                break
            post(server, json.dumps({"annotator": "a1", "position": state["position"],
                                     "unsure": True, "reply": ""}).encode())
        assert state["item"]["form"] == "explain"
        body = ('{"annotator": "a1", "position": ' + str(state["position"])
                + ', "parts": ["a cause \\ud800", "an effect", "a link"]}')
        code, reply = post(server, body.encode())
        assert code == 400 and "surrogate" in reply["error"]
        assert get(server, "/api/state?annotator=a1")[1]["position"] == state["position"]
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capfd.readouterr().err


def test_a_full_disk_is_said_and_answered_with_a_5xx(served: AnnotationServer,
                                                     capfd: pytest.CaptureFixture[str]) -> None:
    """Item 8: SQLite's real SQLITE_FULL (a page limit reached as a full disk is) is what the
    message says, about the annotation store, in a JSON 503; later answers work again."""
    code, state = get(served, "/api/state?annotator=a1")
    assert code == 200
    with served.store._lock:
        db = served.store._db()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        n = 0
        for pad in (200, 40, 8, 0):  # fill every page to the brim, as a full disk leaves them
            while True:
                try:
                    db.execute("INSERT INTO answers VALUES ('z', ?, '', 0, NULL, ?)",
                               (f"{n}" + "x" * pad, n))
                except sqlite3.OperationalError as exc:
                    assert "full" in str(exc)
                    break
                n += 1
    code, reply = post(served, json.dumps({"annotator": "a1", "position": state["position"],
                                           "reply": "A", "seconds": 2}).encode())
    assert code == 503
    assert "annotation store" in reply["error"] and "is full" in reply["error"]
    assert "run store" not in reply["error"] and "rollback" not in reply["error"]
    with served.store._lock:
        served.store._db().execute("PRAGMA max_page_count = 1073741823")
    code, _ = post(served, json.dumps({"annotator": "a1", "position": state["position"],
                                       "reply": "A", "seconds": 2}).encode())
    assert code == 200
    assert "Traceback" not in capfd.readouterr().err


def test_reservations_of_absent_annotators_expire(dataset: Dataset) -> None:
    """Item 9: with --per-item 1, five names that ask for items and never answer hold blocks
    only until they have been gone for RESERVATION_S; then another annotator gets them."""
    store = HumanStore(dataset, Settings(per_item=1))
    clock = [1000.0]
    store.now = lambda: clock[0]
    for ghost in ("g1", "g2", "g3", "g4", "g5"):
        store.progress(ghost)
    mine: list[str] = []
    while (p := store.progress("real")).position is not None:
        mine.append(str(p.item_id))
        store.answer("real", p.position, "A", False, 1.0)
        clock[0] += 1.0
    assert len(mine) < len(dataset.items)  # the ghosts hold the rest, for now
    clock[0] += RESERVATION_S + 1
    while (p := store.progress("real")).position is not None:
        mine.append(str(p.item_id))
        store.answer("real", p.position, "A", False, 1.0)
    assert sorted(mine) == sorted(i.id for i in dataset.items)
    assert len(mine) > 2 * BLOCK


def test_an_annotator_goes_back_and_changes_answers(served: AnnotationServer) -> None:
    """Low item: Back shows the previous answered item with the answer given; a changed
    answer replaces it (the newest is kept, seconds add up) and the app resumes."""
    for reply in ("A", "B", "C"):
        _, state = get(served, "/api/state?annotator=a1")
        post(served, json.dumps({"annotator": "a1", "position": state["position"],
                                 "reply": reply, "seconds": 2}).encode())
    _, state = get(served, "/api/state?annotator=a1")
    assert (state["position"], state["previous"]) == (3, 2)
    code, back = get(served, f"/api/state?annotator=a1&position={state['previous']}")
    assert code == 200 and back["revising"] and back["given"]["reply"] == "C"
    assert back["previous"] == 1
    code, again = post(served, json.dumps({"annotator": "a1", "position": 1, "reply": "D",
                                           "seconds": 3, "revise": True}).encode())
    assert code == 200 and again["position"] == 3 and not again["revising"]
    given = {a.item_id: (a.reply, a.seconds) for a in served.store.answers()}
    assert sorted(r for r, _ in given.values()) == ["A", "C", "D"]
    assert sorted(s for _, s in given.values()) == [2.0, 2.0, 5.0]
    # a plain resend of an answered position still changes nothing
    post(served, json.dumps({"annotator": "a1", "position": 0, "reply": "B"}).encode())
    assert sorted(a.reply for a in served.store.answers()) == ["A", "C", "D"]
    assert get(served, "/api/state?annotator=a1&position=7")[0] == 404
    assert get(served, "/api/state?annotator=a1&position=%C2%B2")[0] == 400


def test_a_read_only_store_is_exported(dataset: Dataset, tmp_path: Path, whatif_home: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Low item: 'whatif human export' reads a store it cannot write (a read-only file in a
    read-only folder; as root, where permissions do not bind, every connection that is not
    read-only is refused as a read-only medium refuses it)."""
    folder = tmp_path / "kept"
    folder.mkdir()
    store = HumanStore(dataset, Settings(), folder / "store.sqlite")
    for _ in range(4):
        p = store.progress("a1")
        store.answer("a1", p.position, "A", False, 1.0)
    store.close()
    (folder / "store.sqlite").chmod(0o444)
    folder.chmod(0o555)
    try:
        if os.geteuid() != 0:
            done = whatif(["human", "export", str(dataset.root), "--store",
                           str(folder / "store.sqlite"), "--out", str(tmp_path / "run")],
                          home=whatif_home)
            assert done.returncode == 0, done.stderr
        real = sqlite3.connect
        kept = (folder / "store.sqlite").resolve()

        def read_only(target: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
            if not kwargs.get("uri") and Path(target).resolve() == kept:
                target, kwargs["uri"] = f"{kept.as_uri()}?mode=ro", True
            return real(target, *args, **kwargs)

        monkeypatch.setattr(sqlite3, "connect", read_only)
        written = api.export_runs(dataset, tmp_path / "run2", store=folder / "store.sqlite")
        assert written.runs[0].n_items == 4
    finally:
        folder.chmod(0o755)
