"""A real OpenAI-compatible HTTP server for tests: a subprocess on 127.0.0.1 with scripted
replies, latency and fault injection.

Use it from a test through the ``fake_openai`` fixture (or ``FakeOpenAIServer`` directly)::

    server = fake_openai({"latency": 0.05, "schedule": {"2": "429", "5": "drop"},
                          "rules": [{"contains": "rewrite", "reply": "A rewritten question"}]})
    ... --model openai:fake-vlm --base-url {server.url} ...
    server.requests()          # what the server saw, one dict per request

Endpoints (all under ``/v1``):

- ``POST /chat/completions``: the reply is the first rule whose ``contains`` substring (or
  ``regex``) occurs in the text of the last user message, else
  ``"The answer is (X)."`` with X in A-D derived from a hash of the whole conversation (images
  included), so answers are deterministic and change with the image. With
  ``"prompt_logprobs": <int>`` in the body (vLLM's extension) it also returns the log-probability
  of every prompt token (see ``render``/``token_logprobs``); ``add_generation_prompt`` and
  ``continue_final_message`` are honoured as vLLM does.
- ``POST /completions``: text completion (rules applied to the prompt); ``echo`` + ``logprobs``
  return the prompt tokens with their log-probabilities.
- ``POST /images/generations``: deterministic PNGs (``b64_json``, or ``url`` served by
  ``GET /files/<name>.png``) drawn from a hash of the prompt.
- ``GET /models``: the configured model names.

Tokens are single characters; an image is one token ``<image:HASH>``. Each token's
log-probability is a deterministic function of everything before it (``fake_openai_model``).

Configuration (a dict, written to a JSON file for the subprocess):

``latency`` seconds before each answer; ``schedule`` request number (1-based, counted over all
POSTs) → fault; ``cycle`` a list of faults applied to requests by number modulo its length;
faults are ``ok``, ``429`` (with ``Retry-After: retry_after``), ``500``, ``503``, ``400``,
``401``, ``malformed`` (a 200 whose body is not JSON), ``nested`` (a 200 whose body is
JSON nested 100,000 levels deep), ``drop`` (the connection is closed without
an answer), ``timeout`` (the answer comes after ``hang`` seconds) and ``drip`` (the answer's
headers at once, then its body one byte every ``drip`` seconds, so no single read ever waits
long); ``307`` (a temporary redirect to ``redirect_to``, by default a port where nothing
listens); ``huge`` (a 200 whose chat reply is ``huge_bytes`` long, written in 1 MiB pieces as
it goes, with its ``Content-Length`` unless ``huge_chunked``, then in chunked encoding);
``null_content`` answers chat with ``"content": null``; ``rules`` reply rules;
``models`` names served (any name is accepted unless ``strict_models``); ``api_key`` when set,
requests without ``Authorization: Bearer <api_key>`` get 401; ``echo_auth_in_errors`` puts the
request's Authorization header into error bodies and ``echo_auth_in_replies`` into successful
chat replies (to test that clients redact it);
``prompt_logprobs`` false makes the server ignore that parameter, like servers that cannot rank;
``reject_params`` lists body fields answered with HTTP 400 "Unrecognized request argument"
(as OpenAI does for vLLM's extensions); ``record_bodies`` true adds each request's whole JSON
body to its log entry (``body``), for tests that check payloads field by field.

Each POST is logged (``FakeOpenAIServer.requests()``) with its number, path, fault, model,
whether it was authorised, a hash of its body (a retry has the same hash), its arrival time and,
for chat requests, the roles of its messages and its number of images.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

import pytest
from fake_openai_model import (
    content_tokens,
    digest,
    png,
    render,
    reply_for,
    token_id,
    token_logprobs,
)

DEFAULTS: dict[str, Any] = {
    "latency": 0.0, "schedule": {}, "cycle": [], "retry_after": 1, "hang": 30.0, "rules": [],
    "models": ["fake-vlm"], "strict_models": False, "api_key": None,
    "echo_auth_in_errors": False, "echo_auth_in_replies": False, "prompt_logprobs": True,
    "reject_params": [], "drip": 0.5, "record_bodies": False, "huge_bytes": 200 << 20,
    "huge_chunked": False, "redirect_to": "http://127.0.0.1:9/v1/chat/completions",
}


# -- the HTTP server -----------------------------------------------------------------------------
class State:
    """Shared state of the server threads."""

    def __init__(self, config: dict[str, Any], log: Path | None) -> None:
        self.config = {**DEFAULTS, **config}
        self.log = log
        self.count = 0
        self.lock = threading.Lock()
        self.files: dict[str, bytes] = {}

    def next_number(self) -> int:
        with self.lock:
            self.count += 1
            return self.count

    def fault(self, number: int) -> str:
        schedule = {str(k): v for k, v in self.config["schedule"].items()}
        if str(number) in schedule:
            return str(schedule[str(number)])
        cycle = self.config["cycle"]
        return str(cycle[(number - 1) % len(cycle)]) if cycle else "ok"

    def record(self, entry: dict[str, Any]) -> None:
        if self.log is None:
            return
        with self.lock, open(self.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    """One request: faults first, then the endpoint."""

    protocol_version = "HTTP/1.1"
    fault = "ok"
    """The fault of the request being answered."""
    disable_nagle_algorithm = True  # answers are not held back waiting for TCP acknowledgements
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        return

    @property
    def state(self) -> State:
        state: State = self.server.state
        return state

    def _send(self, status: int, body: bytes, kind: str = "application/json",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        if self.fault == "drip":
            return self._drip(status, json.dumps(obj).encode())
        self._send(status, json.dumps(obj).encode(), headers=headers)

    def _drip(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        for k in range(len(body)):
            self.wfile.write(body[k:k + 1])
            self.wfile.flush()
            time.sleep(self.state.config["drip"])

    def _huge(self) -> None:
        """A valid chat reply of ``huge_bytes``, never held in memory whole."""
        head = (b'{"choices": [{"index": 0, "finish_reason": "stop", "message": '
                b'{"role": "assistant", "content": "')
        tail = b'"}}]}'
        size = max(int(self.state.config["huge_bytes"]), len(head) + len(tail))
        chunked = bool(self.state.config["huge_chunked"])
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()

        def write(part: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)

        write(head)
        piece, left = b"x" * (1 << 20), size - len(head) - len(tail)
        while left > 0:
            write(piece if left >= len(piece) else piece[:left])
            left -= len(piece)
        write(tail)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        if self.state.config["echo_auth_in_errors"]:
            message += f" (received Authorization: {self.headers.get('Authorization')})"
        self._json(status, {"error": {"message": message, "code": status}}, headers)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self._json(200, {"object": "list", "data": [
                {"id": m, "object": "model"} for m in self.state.config["models"]]})
        elif self.path.startswith("/files/") and self.path[7:] in self.state.files:
            self._send(200, self.state.files[self.path[7:]], "image/png")
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        number = self.state.next_number()
        fault = self.fault = self.state.fault(number)
        config = self.state.config
        key = config["api_key"]
        authorised = key is None or self.headers.get("Authorization") == f"Bearer {key}"
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        messages = body.get("messages") if isinstance(body, dict) else None
        self.state.record({
            "n": number, "path": self.path.split("?", 1)[0], "fault": fault,
            "query": self.path.partition("?")[2],
            "model": body.get("model") if isinstance(body, dict) else None,
            "authorised": authorised, "time": time.time(),
            "body_sha": hashlib.sha256(raw).hexdigest()[:16],
            "roles": [m.get("role") for m in messages] if isinstance(messages, list) else None,
            "images": sum(t.startswith("<image:") for t in render(messages))
            if isinstance(messages, list) else 0,
            **({"body": body} if config["record_bodies"] else {})})
        if fault == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        time.sleep(config["hang"] if fault == "timeout" else config["latency"])
        if fault == "429":
            return self._error(429, "rate limited", {"Retry-After": str(config["retry_after"])})
        if fault in ("500", "503", "400", "401"):
            return self._error(int(fault), f"injected {fault}")
        if fault == "307":
            return self._error(307, "moved", {"Location": config["redirect_to"]})
        if fault == "nested":
            return self._send(200, b"[" * 100_000 + b"]" * 100_000)
        if fault == "malformed":
            return self._send(200, b'{"choices": [ {"message": ')
        if fault == "huge":
            return self._huge()
        if not authorised:
            return self._error(401, "invalid api key")
        if not isinstance(body, dict):
            return self._error(400, "the body is not JSON")
        rejected = [p for p in config["reject_params"] if p in body]
        if rejected:
            return self._error(400, f"Unrecognized request argument supplied: {rejected[0]}")
        if config["strict_models"] and body.get("model") not in config["models"]:
            return self._error(404, f"model {body.get('model')!r} does not exist")
        route = {"/v1/chat/completions": self._chat, "/v1/completions": self._completions,
                 "/v1/images/generations": self._images}.get(
                     self.path.split("?", 1)[0].rstrip("/"))  # query parameters are ignored
        if route is None:
            return self._error(404, f"no route {self.path}")
        route(body)

    def _chat(self, body: dict[str, Any]) -> None:
        messages = body.get("messages") or []
        config = self.state.config
        continue_final = bool(body.get("continue_final_message"))
        tokens = render(messages, bool(body.get("add_generation_prompt", True)), continue_final)
        users = [m for m in messages if m.get("role") == "user"]
        text = "".join(t for t in content_tokens(users[-1].get("content")) if len(t) == 1) \
            if users else ""
        reply = reply_for(text, config["rules"], "".join(tokens))
        if config["echo_auth_in_replies"]:
            reply = f"You sent {self.headers.get('Authorization')}. {reply}"
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        finish = "stop"
        if isinstance(limit, int) and len(reply) > limit:
            reply, finish = reply[:limit], "length"
        answer: dict[str, Any] = {
            "id": f"chatcmpl-{digest(''.join(tokens)) % 10**12}", "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": 0, "message": {
                "role": "assistant", "content": None if self.fault == "null_content" else reply},
                "finish_reason": finish}],
            "usage": {"prompt_tokens": len(tokens), "completion_tokens": len(reply),
                      "total_tokens": len(tokens) + len(reply)},
        }
        if body.get("prompt_logprobs") is not None and config["prompt_logprobs"]:
            answer["prompt_logprobs"] = [
                None if lp is None else
                {str(token_id(tok)): {"logprob": lp, "rank": 1, "decoded_token": tok}}
                for tok, lp in zip(tokens, token_logprobs(tokens), strict=True)]
        self._json(200, answer)

    def _completions(self, body: dict[str, Any]) -> None:
        prompt = str(body.get("prompt", ""))
        reply = reply_for(prompt, self.state.config["rules"], prompt)
        limit = body.get("max_tokens")
        if isinstance(limit, int):
            reply = reply[:limit]
        text = (prompt + reply) if body.get("echo") else reply
        choice: dict[str, Any] = {"index": 0, "text": text, "finish_reason": "stop"}
        if body.get("logprobs") is not None:
            tokens = list(text)
            values = token_logprobs(tokens)
            choice["logprobs"] = {"tokens": tokens, "token_logprobs": values,
                                  "text_offset": list(range(len(tokens))),
                                  "top_logprobs": [None if v is None else {t: v}
                                                   for t, v in zip(tokens, values, strict=True)]}
        self._json(200, {"object": "text_completion", "model": body.get("model"),
                         "choices": [choice],
                         "usage": {"prompt_tokens": len(prompt), "completion_tokens": len(reply)}})

    def _images(self, body: dict[str, Any]) -> None:
        prompt = str(body.get("prompt", ""))
        width, _, height = str(body.get("size") or "64x64").partition("x")
        data = []
        for k in range(int(body.get("n") or 1)):
            image = png(f"{prompt}#{k}", (int(width), int(height or width)))
            if body.get("response_format") == "url":
                name = f"{hashlib.sha256(image).hexdigest()[:16]}.png"
                self.state.files[name] = image
                host, port = self.server.server_address[:2]
                data.append({"url": f"http://{host}:{port}/files/{name}"})
            else:
                data.append({"b64_json": base64.b64encode(image).decode("ascii")})
        self._json(200, {"created": 0, "data": data})


class QuietServer(ThreadingHTTPServer):
    """Threads per connection; clients that went away (timeouts, drops) are not reported."""

    daemon_threads = True
    request_queue_size = 256  # the default of 5 drops simultaneous connects (1 s SYN retry)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, OSError)):
            super().handle_error(request, client_address)


def serve(config: dict[str, Any], log: Path | None) -> None:
    """Serve forever on a free port of 127.0.0.1; print ``PORT <n>`` first."""
    server = QuietServer(("127.0.0.1", 0), Handler)
    server.state = State(config, log)  # type: ignore[attr-defined]
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


# -- the test-side handle ------------------------------------------------------------------------
class FakeOpenAIServer:
    """Starts the server in a subprocess; ``url`` ends with ``/v1``."""

    def __init__(self, folder: Path, config: dict[str, Any] | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.config_path = folder / "fake_openai.json"
        self.log_path = folder / "fake_openai.log.jsonl"
        self.config_path.write_text(json.dumps(config or {}), encoding="utf-8")
        self.log_path.write_text("", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--config", str(self.config_path), "--log",
             str(self.log_path)], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"the fake OpenAI server did not start: {line!r}")
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def requests(self) -> list[dict[str, Any]]:
        """One record per POST the server received: number, path, fault, model, authorised."""
        text = self.log_path.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def stop(self) -> None:
        """Terminate the subprocess."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def fake_openai(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Factory fixture: ``fake_openai(config)`` starts a server, stopped after the test."""
    servers: list[FakeOpenAIServer] = []

    def start(config: dict[str, Any] | None = None) -> FakeOpenAIServer:
        server = FakeOpenAIServer(tmp_path_factory.mktemp("fake_openai"), config)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path)
    parser.add_argument("--log", type=Path)
    opts = parser.parse_args()
    cfg = json.loads(opts.config.read_text(encoding="utf-8")) if opts.config else {}
    try:
        serve(cfg, opts.log)
    except KeyboardInterrupt:
        pass
