"""The HTTP server under ``whatif view`` and ``whatif human serve``, which hostile or broken
clients cannot exhaust (``Limits``): at most ``max_connections`` are served at once (one more is
closed at once), a connection idle for ``idle_s`` is closed, every connection ends ``deadline_s``
after it opened (a slow drip cannot hold a slot), and a client that goes away mid-reply is not
reported. No reply may be shown inside another site's frame (``X-Frame-Options: DENY`` and
``frame-ancestors 'none'``: no clickjacking of the annotation app's keys). An IPv6 host
(``::1``) listens on IPv6; a port or host that cannot be used is one sentence naming which."""

from __future__ import annotations

import errno
import socket
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from whatifbench.errors import WhatifError

LOOPBACK = "127.0.0.1"
"""Where the servers listen unless told otherwise."""
QUIET = (ConnectionError, TimeoutError)
"""What a client that goes away (or stalls) makes the handler raise: not worth a word."""


@dataclass(frozen=True)
class Limits:
    """What one client may take of a ``BoundedServer``."""

    max_connections: int = 32
    """Connections served at once; one more is closed at once."""
    idle_s: float = 10.0
    """Seconds a read or write may wait before the connection is closed."""
    deadline_s: float = 30.0
    """Seconds a connection may last from its opening."""


DEFAULT_LIMITS = Limits()


class BoundedServer(ThreadingHTTPServer):
    """A thread per connection, for at most ``limits.max_connections`` connections at a time."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self._slots = threading.BoundedSemaphore(limits.max_connections)
        host, port = address
        if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
            raise WhatifError(f"{port!r} is not a port: ports are 0 to 65535; leave --port out "
                              "for a free one.")
        if ":" in host:
            self.address_family = socket.AF_INET6
        try:
            super().__init__(address, handler)
        except OSError as exc:
            raise listen_error(host, port, exc) from None

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
        watchdog = threading.Timer(self.limits.deadline_s, _cut, (request,))
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


def listen_error(host: str, port: int, exc: OSError) -> WhatifError:
    """Why the server cannot listen on ``host:port``, and which option to change."""
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    why = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return WhatifError(f"Cannot listen on {shown} ({why}): another program uses that port; "
                           "pass another --port, or none for a free one.")
    if exc.errno == errno.EACCES:
        return WhatifError(f"Cannot listen on {shown} ({why}): ports below 1024 need "
                           "privileges; pass --port above 1023, or none for a free one.")
    return WhatifError(f"Cannot listen on {shown} ({why}): {host} is not an address of this "
                       "machine that can be listened on; pass --host with one of its addresses "
                       "(or leave it out for 127.0.0.1).")


def _cut(connection: socket.socket) -> None:
    """End a connection that outlived the deadline (the handler's next read or write fails)."""
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class QuietHandler(BaseHTTPRequestHandler):
    """Reads and writes bounded by the server's idle time; no request log; replies that are
    never sniffed, leak no referrer and are not cached unless asked."""

    server: BoundedServer

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.limits.idle_s)  # bounds every read and write

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal shows only the addresses."""

    def _host_ok(self) -> bool:
        """Whether the request is addressed to the loopback server by name (no DNS
        rebinding)."""
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{LOOPBACK}:{port}", f"localhost:{port}")

    def _send(self, code: int, data: bytes, kind: str, *, body: bool = True,
              cache: bool = False) -> None:
        """Reply with ``data`` (only the headers when not ``body``, for HEAD)."""
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", "frame-ancestors 'none'")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "private, max-age=3600" if cache else "no-store")
        self.end_headers()
        if body:
            self.wfile.write(data)


def start(server: BoundedServer) -> threading.Thread:
    """Serve in a background thread (tests, benches, notebooks); stop with
    ``server.shutdown()``."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread


def serve_until_interrupted(server: BoundedServer, stopped: str) -> None:
    """Serve in this thread until Ctrl-C, then say ``stopped`` and close the socket."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print(stopped, file=sys.stderr)
    finally:
        server.server_close()
