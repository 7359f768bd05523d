"""``whatif view`` and ``whatif human serve``: options and replies (issue 32, low items). A
hostile image address is a 404 without a traceback; no reply can be framed by another site;
``--port`` outside 0-65535 is a usage error; ``--host ::1`` listens on IPv6, and an address that
is not this machine's says so (not "another port"); both commands take ``--no-browser`` and
``--no-open``."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from util import make_choice_dataset, png, whatif

from whatifbench.cli.main import build_parser
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.errors import WhatifError
from whatifbench.human import api
from whatifbench.human.records import Settings
from whatifbench.report.bounded_server import start
from whatifbench.report.serve import ExplorerServer

pytestmark = pytest.mark.timeout(120)


@pytest.fixture()
def dataset(tmp_path: Path) -> Dataset:
    return load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=2))


@pytest.fixture()
def explorer(tmp_path: Path) -> Iterator[ExplorerServer]:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(png((1, 2, 3)))
    server = ExplorerServer(b"<html>page</html>", [(tmp_path / "img", {"a.png"})], 0)
    start(server)
    yield server
    server.shutdown()
    server.server_close()


def _status(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=10) as reply:
            return reply.status, dict(reply.headers)
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers)


def test_hostile_image_addresses_are_404_without_a_traceback(
        explorer: ExplorerServer, capfd: pytest.CaptureFixture[str]) -> None:
    for head in ("9" * 5000, "%C2%B2", "%D9%A3", "-1", "1"):  # 5,000 digits, ², ٣ ...
        assert _status(f"{explorer.url}image/{head}/a.png")[0] == 404
    assert _status(f"{explorer.url}image/0/a.png")[0] == 200
    assert "Traceback" not in capfd.readouterr().err


def test_no_reply_can_be_framed_by_another_site(explorer: ExplorerServer,
                                                 dataset: Dataset, tmp_path: Path) -> None:
    human = api.serve(dataset, Settings(), store=tmp_path / "store.sqlite")
    start(human)
    try:
        for url in (explorer.url, f"{explorer.url}nothing", human.url("a1"),
                    human.url().rstrip("/") + "/api/state?annotator=a1"):
            _, headers = _status(url)
            assert headers["X-Frame-Options"] == "DENY", url
            assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], url
    finally:
        human.shutdown()
        human.server_close()


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_port_out_of_range_is_a_usage_error(port: str, dataset: Dataset, tmp_path: Path,
                                              whatif_home: Path) -> None:
    for args in (["view", str(tmp_path)], ["human", "serve", str(dataset.root)]):
        done = whatif([*args, "--port", port, "--no-browser"], home=whatif_home)
        assert done.returncode == 2 and "internal error" not in done.stderr
        assert "--port" in done.stderr and ("not a port" in done.stderr)
    with pytest.raises(WhatifError, match="ports are 0 to 65535"):
        ExplorerServer(b"", [], 70000)


def _ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


def test_an_ipv6_host_listens_and_a_foreign_address_is_said(dataset: Dataset,
                                                            tmp_path: Path) -> None:
    if _ipv6_loopback():
        server = api.serve(dataset, Settings(), host="::1", store=tmp_path / "store.sqlite")
        start(server)
        try:
            assert server.url("a1").startswith("http://[::1]:")
            assert _status(server.url("a1"))[0] == 200
        finally:
            server.shutdown()
            server.server_close()
    with pytest.raises(WhatifError) as err:  # TEST-NET-3: never an address of this machine
        api.serve(dataset, Settings(), host="203.0.113.7", store=tmp_path / "store.sqlite")
    assert "--host" in str(err.value) and "another --port" not in str(err.value)
    with socket.socket() as taken:  # a port in use still advises another port
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(WhatifError, match="another --port"):
            api.serve(dataset, Settings(), port=taken.getsockname()[1],
                      store=tmp_path / "store.sqlite")


@pytest.mark.parametrize("spelling", ["--no-browser", "--no-open"])
def test_both_commands_take_both_spellings(spelling: str, tmp_path: Path) -> None:
    for args in (["view", str(tmp_path)], ["human", "serve", str(tmp_path)]):
        parser = build_parser(args)
        assert parser.parse_args([*args, spelling]).no_browser is True
        assert parser.parse_args(args).no_browser is False
        sub = parser._subparsers._group_actions[0].choices[args[0]]  # type: ignore[union-attr]
        if args[0] == "human":
            sub = sub._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
        shown = sub.format_help()
        assert "--no-browser" in shown and "--no-open" not in shown  # one documented
