"""``whatif view`` and ``whatif human serve`` under hostile clients: connections are bounded,
idle and slow-drip ones are cut, and a client that disconnects mid-reply leaves no
traceback."""

from __future__ import annotations

import socket
import struct
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from util import make_choice_dataset

from whatifbench.core.dataset import load_dataset
from whatifbench.human.records import Settings
from whatifbench.human.server import AnnotationServer
from whatifbench.human.store import HumanStore
from whatifbench.report.bounded_server import BoundedServer, Limits, start
from whatifbench.report.serve import ExplorerServer

pytestmark = pytest.mark.timeout(60)


LIMITS = Limits(max_connections=4, idle_s=0.5, deadline_s=1.5)


@pytest.fixture(params=["view", "human"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BoundedServer]:
    """The explorer's server, or the annotation app's, with small limits."""
    if request.param == "view":
        srv: BoundedServer = ExplorerServer(b"<html>page</html>", [], 0, LIMITS)
    else:
        dataset = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=2))
        srv = AnnotationServer(HumanStore(dataset, Settings(), None), None, 0, LIMITS)
    start(srv)
    yield srv
    srv.shutdown()
    srv.server_close()


def _page(srv: BoundedServer) -> bytes:
    """The page at the server's root."""
    url = srv.url() if isinstance(srv, AnnotationServer) else cast(ExplorerServer, srv).url
    return bytes(urllib.request.urlopen(url, timeout=5).read())


def _connect(srv: BoundedServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=10)


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes the connection within ``within`` seconds."""
    sock.settimeout(within)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_connections_are_bounded_and_the_extra_one_is_closed(server: BoundedServer) -> None:
    before = threading.active_count()
    idle = [_connect(server) for _ in range(4)]
    time.sleep(0.2)
    extra = _connect(server)
    assert _closed_by_server(extra, 0.3)  # closed at once, not left waiting in a thread
    assert threading.active_count() <= before + 2 * 4  # a handler and a watchdog per slot
    for sock in idle:
        sock.close()


def test_idle_connections_time_out_and_free_their_slot(server: BoundedServer) -> None:
    idle = [_connect(server) for _ in range(4)]
    started = time.monotonic()
    assert all(_closed_by_server(sock, 5) for sock in idle)
    assert time.monotonic() - started < 3
    page = _page(server)
    if isinstance(server, ExplorerServer):
        assert page == b"<html>page</html>"
    else:
        assert b"whatif-config" in page


def test_a_slow_drip_request_is_cut_at_the_deadline(server: BoundedServer) -> None:
    sock = _connect(server)
    started = time.monotonic()
    port = server.server_address[1]
    request = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Pad: {'a' * 200}\r\n\r\n"
    closed = False
    for byte in request.encode():
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(0.1)  # under the idle timeout, so only the deadline can stop it
        if time.monotonic() - started > 6:
            break
    assert closed or _closed_by_server(sock, 1)
    assert time.monotonic() - started < 4


def test_a_client_that_disconnects_mid_reply_leaves_no_traceback(
        capfd: pytest.CaptureFixture[str]) -> None:
    srv = ExplorerServer(b"x" * 32_000_000, [], 0)
    start(srv)
    try:
        for _ in range(3):
            sock = _connect(srv)
            sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{srv.server_address[1]}\r\n\r\n"
                         .encode())
            sock.recv(1024)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()  # a reset while the server is still writing
        time.sleep(0.5)
        assert urllib.request.urlopen(srv.url, timeout=10).read(10) == b"x" * 10
    finally:
        srv.shutdown()
        srv.server_close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err
