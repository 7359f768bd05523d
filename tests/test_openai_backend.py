"""The openai: backend against a real local HTTP server with latency and injected faults."""

from __future__ import annotations

import json
import socket
import types
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fake_openai_model import render, reply_for, token_logprobs
from photos import make_photo_dataset

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Request
from whatifbench.models.openai_compat.backend import OpenAIBackend
from whatifbench.models.openai_compat.payloads import chat_messages
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder

KEY = "sk-test-5f9c2e7d1a44"
FAULTS = {"2": "429", "3": "500", "4": "malformed", "5": "drop", "6": "timeout", "7": "503"}


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def _requests(dataset_dir: Path, mode: str) -> list[Request]:
    dataset = load_dataset(dataset_dir)
    protocol = Protocol(answer_mode=mode).resolved("generate")
    builder = RequestBuilder(get_suite(dataset.suite), protocol, dataset)
    return [builder.build(item) for item in dataset.items]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*args, "--no-progress"])
    out, err = capsys.readouterr()
    return code, out, err


def _everything(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace")
                     for p in sorted(folder.rglob("*")) if p.is_file())


def test_every_item_completes_through_injected_faults_and_a_rerun_sends_nothing(
        fake_openai: Any, photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, whatif_home: Path) -> None:
    server = fake_openai({"latency": 0.02, "schedule": FAULTS, "retry_after": 0.4, "hang": 5,
                          "api_key": KEY})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    args = ["run", "--suite", str(photos), "--model", "openai:fake-vlm", "--base-url", server.url,
            "-M", "timeout=1", "-M", "backoff=0.05", "-M", "max_connections=4"]
    code, _, err = _run([*args, "--out", str(tmp_path / "a")], capsys)
    assert code == 0, err
    assert "0 from the store, 8 computed, 0 errors" in err
    log = server.requests()
    assert Counter(r["fault"] for r in log) == Counter({"ok": 8, **Counter(FAULTS.values())})
    assert all(r["authorised"] for r in log)
    # Retry-After is honoured: the retry of the rate-limited body comes 0.4 s later or more.
    limited = next(r for r in log if r["fault"] == "429")
    retry = next(r for r in log if r["body_sha"] == limited["body_sha"] and r["n"] > limited["n"])
    assert retry["time"] - limited["time"] >= 0.4
    # Every reply reached its own item: compare with the server's deterministic answer.
    samples = [json.loads(line) for line in (tmp_path / "a" / "samples.jsonl").read_text()
               .splitlines()]
    by_id = {s["item_id"]: s for s in samples}
    for request in _requests(photos, "generate"):
        messages = chat_messages(request)
        text = "".join(p["text"] for p in messages[-1]["content"] if p["type"] == "text")
        expected = reply_for(text, [], "".join(render(messages)))
        assert by_id[request.item_id]["response"] == expected
    assert len({s["response"] for s in samples}) > 1

    code, _, err = _run([*args, "--out", str(tmp_path / "b"), "-M", "max_connections=9"], capsys)
    assert code == 0, err
    assert "8 from the store, 0 computed, 0 errors" in err
    assert len(server.requests()) == len(log)
    assert KEY not in _everything(tmp_path) + _everything(whatif_home) + err


def test_failed_items_are_counted_and_retried_on_the_next_run(
        fake_openai: Any, photos: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"schedule": {"1": "500", "2": "503", "3": "429"}, "retry_after": 0})
    args = ["run", "--suite", str(photos), "--model", "openai:fake-vlm", "--base-url", server.url,
            "-M", "max_retries=0"]
    code, out, err = _run([*args, "--out", str(tmp_path / "a")], capsys)
    assert code == 3, err  # finished, outputs written, some items ended in a backend error
    assert "0 from the store, 8 computed, 3 errors" in err
    assert "3 item(s) ended in a backend error (3 request(s) failed" in err
    assert "backend errors" in out and "openai:fake-vlm: 3 of 8 items" in out
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    assert (results["runs"][0]["n_items"], results["runs"][0]["errors"]) == (8, 3)
    errors = [json.loads(line)["error"] for line in
              (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    assert sorted(e.split(":")[0] for e in errors if e) == ["HTTP 429", "HTTP 500", "HTTP 503"]
    code, _, err = _run([*args, "--out", str(tmp_path / "b")], capsys)
    assert code == 0, err
    assert "5 from the store, 3 computed, 0 errors" in err
    assert len(server.requests()) == 11


def test_ranking_uses_the_servers_prompt_log_probabilities(fake_openai: Any, photos: Path,
                                                           tmp_path: Path) -> None:
    server = fake_openai({"latency": 0.01})
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": server.url})
    requests = _requests(photos, "rank")
    requests.append(Request(requests[0].item_id, requests[0].turns,
                            candidates=("A", "twelve"), answer_prefix="The best answer is: ("))
    responses = dict(backend.score(requests))
    assert sorted(responses) == list(range(len(requests)))
    for i, request in enumerate(requests):
        messages = chat_messages(request, answer_prefix=False)
        head = [*messages, {"role": "assistant", "content": request.answer_prefix}]
        start = len(render(messages) if not request.answer_prefix
                    else render(head, False, True))
        expected = []
        for cand in request.candidates:
            tokens = render([*messages, {"role": "assistant",
                                         "content": request.answer_prefix + cand}], False, True)
            expected.append(sum(v for v in token_logprobs(tokens)[start:] if v is not None))
        response = responses[i]
        assert response.error is None
        assert response.scores == pytest.approx(expected, abs=1e-9)
        counts = [len(c) for c in request.candidates]
        assert response.meta["candidate_tokens"] == counts
        assert response.mean_scores == pytest.approx(
            [s / n for s, n in zip(expected, counts, strict=True)])
    # The image is part of the prompt: the two items of a pair share it, other pairs do not.
    assert responses[0].scores != responses[2].scores
    assert len(server.requests()) == sum(1 + len(r.candidates) for r in requests)


def test_rank_mode_through_the_cli_writes_results(fake_openai: Any, photos: Path,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"schedule": {"3": "drop", "9": "500"}})
    code, _, err = _run(["run", "--suite", str(photos), "--model", "openai:fake-vlm",
                         "--base-url", server.url, "--answer-mode", "rank", "-M", "backoff=0.01",
                         "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    assert "8 computed, 0 errors" in err
    samples = (tmp_path / "out" / "samples.jsonl").read_text().splitlines()
    assert all(len(json.loads(s)["scores"]) == 4 for s in samples)


@pytest.mark.parametrize("config", [{"prompt_logprobs": False},
                                    {"reject_params": ["prompt_logprobs"]}])
def test_a_server_without_prompt_log_probabilities_can_only_generate(
        fake_openai: Any, photos: Path, tmp_path: Path, config: dict,
        capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai(config)
    code, _, err = _run(["run", "--suite", str(photos), "--model", "openai:fake-vlm",
                         "--base-url", server.url, "--answer-mode", "rank",
                         "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert "can only generate text" in err and "--answer-mode generate" in err
    assert "Traceback" not in err and not (tmp_path / "out" / "results.json").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_key_never_leaks_from_error_bodies_connection_errors_or_refusals(
        fake_openai: Any, photos: Path, tmp_path: Path, whatif_home: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    echoing = fake_openai({"cycle": ["500"], "echo_auth_in_errors": True, "api_key": KEY})
    base = ["run", "--suite", str(photos), "--model", "openai:fake-vlm", "-M", f"api_key={KEY}",
            "-M", "max_retries=1", "-M", "backoff=0.01"]
    code, out1, err1 = _run([*base, "--base-url", echoing.url, "--out", str(tmp_path / "a")],
                            capsys)
    assert code == 3 and "8 errors" in err1
    errors = [json.loads(line)["error"] for line in
              (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    assert all("HTTP 500" in e and "Bearer ***" in e for e in errors)

    closed = f"http://alice:pw-31337@127.0.0.1:{_free_port()}/v1?api-key=q-4242"
    code, out2, err2 = _run([*base, "--base-url", closed, "--out", str(tmp_path / "b")], capsys)
    # Nobody listens: one message, nothing scored (every stored attempt is an error row).
    assert code == 2 and "could not be reached" in err2 and "127.0.0.1" in err2
    assert not (tmp_path / "b" / "results.json").exists()

    refusing = fake_openai({"api_key": "sk-another-key-000"})
    code, out3, err3 = _run([*base, "--base-url", refusing.url, "--out", str(tmp_path / "c")],
                            capsys)
    assert code == 2 and "refused the request (HTTP 401" in err3 and "OPENAI_API_KEY" in err3

    written = _everything(tmp_path) + _everything(whatif_home) + out1 + err1 + out2 + err2 \
        + out3 + err3
    for secret in (KEY, "pw-31337", "q-4242"):
        assert secret not in written


def test_unknown_model_is_one_clear_error(fake_openai: Any, photos: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"strict_models": True})
    code, _, err = _run(["run", "--suite", str(photos), "--model", "openai:nope",
                         "--base-url", server.url, "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "HTTP 404" in err and "model name or the base URL is wrong" in err


def test_stopping_early_cancels_the_remaining_requests(fake_openai: Any, photos: Path) -> None:
    server = fake_openai({"latency": 0.3})
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": server.url, "max_connections": 2})
    stream = backend.generate(_requests(photos, "generate"))
    assert isinstance(stream, types.GeneratorType)
    index, response = next(stream)
    stream.close()
    assert response.text and 0 <= index < 8
    assert len(server.requests()) <= 4



def test_one_shot_sends_the_demonstration_as_earlier_turns(fake_openai: Any, photos: Path,
                                                           tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    server = fake_openai()
    code, _, err = _run(["run", "--suite", str(photos), "--model", "openai:fake-vlm",
                         "--base-url", server.url, "--strategy", "one-shot-cot",
                         "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    log = server.requests()
    assert len(log) == 8
    assert all(r["roles"] == ["user", "assistant", "user"] and r["images"] == 2 for r in log)
