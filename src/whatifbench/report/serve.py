"""``whatif view``: the explorer page served on 127.0.0.1, with every image at full size read
from the dataset folders (only the images the runs' items name, and only inside their folder).

Hostile or broken clients cost little: at most ``max_connections`` are served at once (one
more is closed at once), a connection idle for ``idle_s`` is closed, every connection ends
``deadline_s`` after it opened (a slow drip cannot hold a slot), and a client that goes away
mid-reply is not reported."""

from __future__ import annotations

import mimetypes
import socket
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from whatifbench.errors import WhatifError
from whatifbench.report.page import page_html
from whatifbench.report.payload import Options, Source
from whatifbench.report.render import explorer_payload
from whatifbench.secrets import redact

HOST = "127.0.0.1"
QUIET = (ConnectionError, TimeoutError)
"""What a client that goes away (or stalls) makes the handler raise: not worth a word."""


class ExplorerServer(ThreadingHTTPServer):
    """An HTTP server for one page and the images of its datasets, with bounded connections."""

    daemon_threads = True

    def __init__(self, page: bytes, images: list[tuple[Path | None, set[str]]],
                 port: int, max_connections: int = 32, idle_s: float = 10.0,
                 deadline_s: float = 30.0) -> None:
        self.page = page
        self.images = images
        self.idle_s = idle_s
        self.deadline_s = deadline_s
        self._slots = threading.BoundedSemaphore(max_connections)
        try:
            super().__init__((HOST, port), _Handler)
        except OSError as exc:
            raise WhatifError(f"Cannot listen on {HOST}:{port} ({exc.strerror or exc}); pass "
                              "another --port, or none for a free one.") from None

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve in a thread while a slot is free; close the connection otherwise."""
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Handle one connection, cut at the deadline, then free its slot."""
        watchdog = threading.Timer(self.deadline_s, _cut, (request,))
        watchdog.daemon = True
        watchdog.start()
        try:
            super().process_request_thread(request, client_address)
        finally:
            watchdog.cancel()
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet when the client went away or stalled; the usual report otherwise."""
        if not isinstance(sys.exc_info()[1], QUIET):
            super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        """The page's address."""
        return f"http://{HOST}:{self.server_address[1]}/"

    def image(self, path: str) -> Path | None:
        """The file for ``/image/<dataset>/<relative path>``, if it is one of that dataset's
        images and lies inside its folder."""
        head, _, rel = path.removeprefix("/image/").partition("/")
        if not head.isdigit() or int(head) >= len(self.images):
            return None
        root, listed = self.images[int(head)]
        rel = unquote(rel)
        if root is None or rel not in listed:
            return None
        target = (root / rel).resolve()
        return target if target.is_relative_to(root.resolve()) and target.is_file() else None


def _cut(connection: socket.socket) -> None:
    """End a connection that outlived the deadline (the handler's next read or write fails)."""
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class _Handler(BaseHTTPRequestHandler):
    server: ExplorerServer

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_s)  # bounds every read and write

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal shows only the address."""

    def _host_ok(self) -> bool:
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

    def do_HEAD(self) -> None:
        self.do_GET(body=False)

    def do_GET(self, body: bool = True) -> None:
        path = urlsplit(self.path).path
        if not self._host_ok():
            return self._send(403, b"Forbidden host.\n", "text/plain", body)
        if path in ("/", "/index.html"):
            return self._send(200, self.server.page, "text/html; charset=utf-8", body)
        if path.startswith("/image/"):
            target = self.server.image(path)
            if target is not None:
                kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
                return self._send(200, target.read_bytes(), kind, body)
        self._send(404, b"Not found.\n", "text/plain", body)

    def _send(self, code: int, data: bytes, kind: str, body: bool) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            self.wfile.write(data)


def make_server(sources: Sequence[Source], options: Options | None = None, port: int = 0
                ) -> ExplorerServer:
    """A server for the runs (not yet serving: call ``serve_forever`` or ``start``)."""
    payload = explorer_payload(sources, replace(options or Options(), images="serve",
                                                clip=None))
    images = [(Path(d["found"]) if d["found"] else None, set(d["images"]))
              for d in payload["datasets"]]
    return ExplorerServer(redact(page_html(payload)).encode("utf-8"), images, port)


def start(server: ExplorerServer) -> threading.Thread:
    """Serve in a background thread (for tests and notebooks); stop with ``server.shutdown()``."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread
