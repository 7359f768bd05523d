"""``whatif human serve``: the annotation app over HTTP.

It listens on 127.0.0.1 unless a host is named, and then every address needs the store's random
access token (``?token=`` in the link). Pages are served only to the expected ``Host`` on
127.0.0.1 (no DNS rebinding); every API call and image needs the token, which the page carries
(a cross-site page cannot read it, and a cross-site request cannot send its header without a
preflight we never answer). The answer key never leaves the server: the API sends what a model
is sent (prompt text, images) and the annotator's own progress. Connections are bounded, idle
and slow ones cut, as for ``whatif view`` (``report.bounded_server``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import mimetypes
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from whatifbench.core.jsonfile import loads, lone_surrogate
from whatifbench.core.readfile import read_bytes
from whatifbench.errors import WhatifError
from whatifbench.human.page import app_html
from whatifbench.human.present import Presenter, Shown, explanation_reply
from whatifbench.human.records import NAME, shown
from whatifbench.human.store import MAX_POSITION, HumanStore
from whatifbench.report.bounded_server import (
    DEFAULT_LIMITS,
    LOOPBACK,
    BoundedServer,
    Limits,
    QuietHandler,
)
from whatifbench.report.bounded_server import start as start

HOST = LOOPBACK
MAX_BODY = 256 * 1024
"""Largest request body accepted (an explanation is a few hundred bytes)."""



class AnnotationServer(BoundedServer):
    """One dataset's annotation app; several annotators at once (one thread per request)."""

    def __init__(self, store: HumanStore, host: str | None = None, port: int = 0,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.store = store
        self.presenter = Presenter(store.dataset)
        self.local = host is None
        self.host = HOST if host is None else host
        self.token = store.token
        self.images: dict[str, Path] = {}
        self.shown: dict[str, Shown] = {}
        self.lock = threading.Lock()
        super().__init__((self.host, port), _Handler, limits)

    def url(self, annotator: str | None = None) -> str:
        """The app's address for ``annotator`` (with the token when a host was named)."""
        host = self.host if ":" not in self.host else f"[{self.host}]"
        query = [f"annotator={quote(annotator)}"] if annotator else []
        if not self.local:
            query.append(f"token={self.token}")
        return f"http://{host}:{self.server_address[1]}/" + (f"?{'&'.join(query)}"
                                                             if query else "")

    def show(self, item_id: str) -> Shown:
        """The item as posed (built once per server)."""
        found = self.shown.get(item_id)
        if found is None:
            with self.lock:
                found = self.shown.get(item_id) or self.presenter.show(item_id)
                self.shown[item_id] = found
                for path in found.images:
                    self.images[image_key(path)] = Path(path)
        return found

    def _item(self, item_id: str) -> dict[str, Any]:
        token = quote(self.token)
        return self.show(item_id).to_json(lambda p: f"/image/{image_key(p)}?token={token}")

    def state(self, annotator: str, revisit: int | None = None) -> dict[str, Any]:
        """What the page needs next: the annotator's progress and the item to answer; with
        ``revisit``, the item they answered at that position and their answer, to change it
        (``{}`` when that position is not one they answered). ``previous`` is the position
        the Back action shows."""
        progress = self.store.progress(annotator)
        base = {"annotator": annotator, "answered": progress.answered, "left": progress.left,
                "total": progress.answered + progress.left}
        if revisit is not None:
            given = self.store.given(annotator, revisit)
            if given is None:
                return {}
            posed = self.show(given.item_id)
            parts = split_reply(given.reply) if posed.form == "explain" else []
            return {**base, "position": revisit, "item": self._item(given.item_id),
                    "revising": True, "previous": self.store.previous(annotator, revisit),
                    "given": {"reply": given.reply, "unsure": given.unsure, "parts": parts}}
        item = None if progress.item_id is None else self._item(progress.item_id)
        return {**base, "position": progress.position, "item": item, "revising": False,
                "previous": self.store.previous(annotator, progress.position)}

    def submit(self, annotator: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Record an answer (``revise``: change the one given at ``position``); the next
        state, or an error the page shows."""
        position = body.get("position")
        if not isinstance(position, int) or isinstance(position, bool) \
                or not 0 <= position < MAX_POSITION:
            return 400, {"error": "The answer names no position."}
        revise = body.get("revise") is True
        unsure = body.get("unsure") is True
        parts = body.get("parts")
        if isinstance(parts, list) and all(isinstance(p, str) for p in parts) and parts:
            if not unsure and not all(p.strip() for p in parts):
                return 422, {"error": "Please fill in all three fields (or press Unsure)."}
            reply = explanation_reply(parts)
        else:
            given = body.get("reply")
            if not isinstance(given, str):
                return 400, {"error": "The answer holds no reply."}
            reply = given
        seconds = body.get("seconds")
        if seconds is not None and not page_seconds(seconds):
            return 400, {"error": "The answer's seconds are not a number of seconds."}
        if revise:
            before = self.store.given(annotator, position)
            if before is None:
                return 409, {"error": "That item was not answered yet; answer it first."}
            item_id = before.item_id
        else:
            progress = self.store.progress(annotator)
            if position != progress.position:  # answered already (a resend) or a stale page
                return 200, self.state(annotator)
            item_id = str(progress.item_id)
        if not unsure and not self.presenter.readable(item_id, reply.strip()):
            return 422, {"error": f"{shown(reply.strip())} cannot be read as an answer to this "
                                  "question; choose an option, or press Unsure."}
        self.store.answer(annotator, position, reply.strip(), unsure, seconds, revise=revise)
        return 200, self.state(annotator)


def page_seconds(value: Any) -> bool:
    """Whether the page's ``seconds`` is a usable number (finite, not negative; the store
    keeps at most ``MAX_SECONDS``)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value)) and value >= 0
    except OverflowError:  # an integer of hundreds of digits
        return False


def split_reply(reply: str) -> list[str]:
    """The three fields of an explanation reply (``explanation_reply`` undone)."""
    parts = ["", "", ""]
    for line in reply.split("\n"):
        number, _, text = line.partition(". ")
        if number in ("1", "2", "3"):
            parts[int(number) - 1] = text
    return parts


def image_key(path: str) -> str:
    """The opaque address of an image file (its path's hash: no path is shown)."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()[:32]


class _Handler(QuietHandler):
    server: AnnotationServer

    # -- checks --------------------------------------------------------------------------------
    def _host_ok(self) -> bool:
        return not self.server.local or super()._host_ok()

    def _token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.server.token.encode())

    def _query(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}

    def _annotator(self, name: str | None) -> str | None:
        return name if isinstance(name, str) and NAME.fullmatch(name) else None

    # -- routes --------------------------------------------------------------------------------
    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        query = self._query()
        if not self._host_ok():
            return self._send(403, b"Forbidden host.\n", "text/plain")
        if path in ("/", "/index.html"):
            if not self.server.local and not self._token_ok(query.get("token")):
                return self._send(403, b"This app needs the link with its access token "
                                       b"(printed by 'whatif human serve').\n", "text/plain")
            page = app_html({"token": self.server.token,
                             "dataset": self.server.store.dataset.card.name,
                             "annotator": self._annotator(query.get("annotator"))})
            return self._send(200, page.encode("utf-8"), "text/html; charset=utf-8")
        if path.startswith("/image/"):
            target = self.server.images.get(path.removeprefix("/image/"))
            if target is None or not self._token_ok(query.get("token")):
                return self._send(404, b"Not found.\n", "text/plain")
            kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            try:
                data = read_bytes(target)
            except OSError:  # gone, or no longer a regular file
                return self._send(404, b"Not found.\n", "text/plain")
            return self._send(200, data, kind, cache=True)
        if path == "/api/state":
            if not self._token_ok(self.headers.get("X-Whatif-Token")):
                return self._json(403, {"error": "Missing or wrong access token."})
            name = self._annotator(query.get("annotator"))
            if name is None:
                return self._json(400, {"error": "No valid annotator name."})
            revisit = query.get("position")
            if revisit is None:
                return self._store_call(lambda: (200, self.server.state(name)))
            if not (revisit.isascii() and revisit.isdecimal() and len(revisit) < 10):
                return self._json(400, {"error": "The position is not a number."})
            return self._store_call(lambda: self._revisit(name, int(revisit)))
        self._send(404, b"Not found.\n", "text/plain")

    def _revisit(self, name: str, position: int) -> tuple[int, dict[str, Any]]:
        found = self.server.state(name, position)
        return (200, found) if found else (404, {"error": "You have not answered that item."})

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if not self._host_ok():
            return self._send(403, b"Forbidden host.\n", "text/plain")
        if path != "/api/answer":
            return self._send(404, b"Not found.\n", "text/plain")
        if not self._token_ok(self.headers.get("X-Whatif-Token")):
            return self._json(403, {"error": "Missing or wrong access token."})
        given = (self.headers.get("Content-Length") or "0").strip()
        if not (given.isascii() and given.isdecimal()):
            return self._json(400, {"error": "The request's Content-Length is not a number."})
        length = int(given) if len(given) < 10 else MAX_BODY + 1
        if length <= 0 or length > MAX_BODY:
            return self._json(413, {"error": "The answer is empty or too long."})
        try:
            text = self.rfile.read(length).decode("utf-8")
            body = loads(text)
        except ValueError:  # not UTF-8, not JSON, nested too deeply, a 5000-digit number
            return self._json(400, {"error": "The answer is not JSON."})
        if lone_surrogate(text, body):
            return self._json(400, {"error": "The answer holds a lone surrogate (such as "
                                             "\\ud800), which is not text."})
        name = self._annotator(body.get("annotator") if isinstance(body, dict) else None)
        if name is None:
            return self._json(400, {"error": "No valid annotator name."})
        self._store_call(lambda: self.server.submit(name, body))

    def _store_call(self, call: Callable[[], tuple[int, dict[str, Any]]]) -> None:
        """Reply with ``call()``'s code and data; a store that fails (a full disk, a lock)
        gives a 503 whose message says why (the page shows it and keeps the answer)."""
        try:
            code, data = call()
        except WhatifError as exc:
            return self._json(503, {"error": str(exc)})
        self._json(code, data)

    # -- replies -------------------------------------------------------------------------------
    def _json(self, code: int, data: dict[str, Any]) -> None:
        self._send(code, json.dumps(data, ensure_ascii=False).encode("utf-8"),
                   "application/json; charset=utf-8")

