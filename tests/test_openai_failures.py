"""The openai: backend when the network misbehaves (issue 11 items 3, 4, 12): a server that
drips its reply, Ctrl-C in the middle of a run, a server nobody runs, a remote server without a
key, and replies without content."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset

from whatifbench import secrets
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Request
from whatifbench.errors import WhatifError
from whatifbench.models.openai_compat.backend import OpenAIBackend
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def _requests(dataset_dir: Path) -> list[Request]:
    dataset = load_dataset(dataset_dir)
    builder = RequestBuilder(get_suite(dataset.suite), Protocol().resolved("generate"), dataset)
    return [builder.build(item) for item in dataset.items]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*args, "--no-progress"])
    out, err = capsys.readouterr()
    return code, out, err


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_the_timeout_bounds_the_whole_call_even_when_the_server_drips(
        fake_openai: Any, photos: Path) -> None:
    # One byte every 0.5 s: no single read ever waits 2 s, the whole reply would take minutes.
    server = fake_openai({"cycle": ["drip"], "drip": 0.5})
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": server.url, "timeout": 2,
                                                "max_retries": 0})
    started = time.monotonic()
    [(index, response)] = list(backend.generate(_requests(photos)[:1]))
    elapsed = time.monotonic() - started
    assert index == 0 and response.text is None
    assert response.error == "no complete response within 2 s (after 1 attempt)"
    assert elapsed < 6, elapsed


def test_a_dripped_call_is_retried_and_the_client_recovers(fake_openai: Any,
                                                           photos: Path) -> None:
    server = fake_openai({"schedule": {"1": "drip"}, "drip": 0.5})
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": server.url, "timeout": 1,
                                                "max_retries": 1, "backoff": 0.01,
                                                "max_connections": 1})
    [(_, response)] = list(backend.generate(_requests(photos)[:1]))
    assert response.error is None and response.text and response.meta["attempts"] == 2


def test_ctrl_c_during_an_openai_run_shuts_the_client_down_cleanly(
        fake_openai: Any, photos: Path, tmp_path: Path) -> None:
    """A real process, a real SIGINT while requests are in flight: the resume message and
    nothing else (no "Exception ignored ... Event loop is closed", no traceback)."""
    server = fake_openai({"latency": 2.0})
    env = {**os.environ, "WHATIF_HOME": str(tmp_path / "home"), "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-m", "whatifbench", "run", "--suite", str(photos), "--model",
         "openai:fake-vlm", "--base-url", server.url, "-M", "max_connections=2", "--out",
         str(tmp_path / "out"), "--no-progress"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not server.requests():  # the client is now waiting on its event loop
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no request reached the server in 60 s"
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "run the same command again to resume" in err
    for noise in ("Exception ignored", "Event loop is closed", "Traceback", "never retrieved"):
        assert noise not in err, err


@pytest.mark.parametrize("retries", [0, 6])
def test_an_unreachable_server_stops_the_run_with_one_message(
        photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], retries: int) -> None:
    """Nobody listens: a small run (8 calls, no retries) stops once all have failed, a larger
    one (8 calls × 7 attempts) after its first 20 attempts, long before the retries end."""
    url = _closed_port_url()
    started = time.monotonic()
    code, out, err = _run(["run", "--suite", str(photos), "--model", "openai:fake-vlm",
                           "--base-url", url, "-M", f"max_retries={retries}", "-M",
                           "backoff=0.05", "--out", str(tmp_path / "out")], capsys)
    assert code == 2, err
    attempts = 8 if retries == 0 else 20
    assert f"could not be reached: none of the first {attempts} attempts got an answer" in err
    assert "ConnectError" in err and "--base-url" in err and "Traceback" not in err
    assert err.count("whatif: error:") == 1 and out == ""
    assert not (tmp_path / "out" / "results.json").exists()
    assert time.monotonic() - started < 20


def test_a_remote_server_without_a_key_is_refused_before_any_call(
        photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for url in (None, "http://gpu1.invalid:8000/v1"):
        extra = ["--base-url", url] if url else []
        code, _, err = _run(["run", "--suite", str(photos), "--model", "openai:gpt-4o", *extra,
                             "--out", str(tmp_path / "out")], capsys)
        assert code == 2 and "No API key is set for openai:gpt-4o at" in err
        assert "OPENAI_API_KEY" in err and (url or "https://api.openai.com/v1") in err
    # A loopback server needs no key; a placeholder says a remote one needs none either, and
    # is not treated as a secret (it would otherwise be masked in every reply).
    OpenAIBackend("openai:m", {"base_url": "http://localhost:8000/v1"})
    OpenAIBackend("openai:m", {"base_url": "http://[::1]:8000/v1"})
    OpenAIBackend("openai:m", {"base_url": "http://gpu1:8000/v1", "api_key": "EMPTY"})
    assert secrets.redact("EMPTY handed") == "EMPTY handed"
    with pytest.raises(WhatifError, match="No API key"):
        OpenAIBackend("openai:m", {"base_url": "http://10.0.0.7:8000/v1"})


def test_a_reply_without_content_is_a_failed_call_retried_by_the_next_run(
        fake_openai: Any, photos: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"schedule": {"1": "null_content"}})
    args = ["run", "--suite", str(photos), "--model", "openai:fake-vlm", "--base-url",
            server.url, "-M", "max_connections=1"]
    code, _, err = _run([*args, "--out", str(tmp_path / "a")], capsys)
    assert code == 3, err
    samples = [json.loads(line) for line in
               (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    [failed] = [s for s in samples if s["error"]]
    assert failed["error"].startswith("empty reply: choices[0].message.content is null")
    assert failed["response"] is None and not failed["unparsed"]
    assert len(server.requests()) == 8  # not repeated at once: the same request, the same reply
    code, _, err = _run([*args, "--out", str(tmp_path / "b")], capsys)
    assert code == 0, err
    assert "7 from the store, 1 computed, 0 errors" in err
