"""Several OpenAI-compatible servers behind one ``openai:`` backend: least outstanding
requests, ``max_connections`` per server, a failing server backed off while the others work."""

from __future__ import annotations

import json
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from util import make_choice_dataset, run_outputs

from whatifbench.cli.main import main
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.openai_compat.backend import OpenAIBackend
from whatifbench.models.openai_compat.options import OpenAIOptions
from whatifbench.runner.backends import parse_model_args


def _requests(n: int) -> list[Request]:
    return [Request(f"q{k}", (Turn("user", (Part(text=f"Question {k}?"),)),)) for k in range(n)]


def _answer_all(urls: list[str], n: int, **args: Any) -> tuple[dict[int, Any], float]:
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": urls, "backoff": 0.5, **args})
    start = time.monotonic()
    got = dict(backend.generate(_requests(n)))
    return got, time.monotonic() - start


def _max_in_flight(records: list[dict[str, Any]], latency: float) -> int:
    """Most requests a server was answering at once (each takes ``latency``)."""
    times = sorted(r["time"] for r in records)
    return max((sum(1 for u in times if t <= u < t + latency * 0.9) for t in times), default=0)


def test_load_is_shared_by_least_outstanding_requests(fake_openai: Any) -> None:
    fast = fake_openai({"latency": 0.02})
    slow = fake_openai({"latency": 0.25})
    got, _ = _answer_all([fast.url, slow.url], 60, max_connections=2)
    assert len(got) == 60 and all(r.error is None for r in got.values())
    served = (len(fast.requests()), len(slow.requests()))
    assert sum(served) == 60
    assert served[1] >= 2 and served[0] >= 4 * served[1]  # the quick one takes most calls
    assert _max_in_flight(slow.requests(), 0.25) <= 2  # max_connections per server


def test_equal_servers_share_evenly(fake_openai: Any) -> None:
    """(Their throughput is measured by bench/bench_openai_servers.py.)"""
    one, two = fake_openai({"latency": 0.1}), fake_openai({"latency": 0.1})
    got, _ = _answer_all([one.url, two.url], 40, max_connections=4)
    assert all(r.error is None for r in got.values())
    assert 15 <= len(one.requests()) <= 25 and len(one.requests()) + len(two.requests()) == 40
    assert max(_max_in_flight(s.requests(), 0.1) for s in (one, two)) <= 4


@pytest.mark.parametrize("fault", ["500", "refused"])
def test_a_failing_server_is_backed_off_while_the_other_answers(fake_openai: Any,
                                                                fault: str) -> None:
    good = fake_openai({"latency": 0.02})
    if fault == "refused":
        with socket.socket() as probe:  # a port where nothing listens
            probe.bind(("127.0.0.1", 0))
            bad_url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
        bad = None
    else:
        bad = fake_openai({"latency": 0.02, "cycle": [fault]})
        bad_url = bad.url
    # a call that waited out its own backoff would wait at least 30 s
    got, seconds = _answer_all([bad_url, good.url], 50, max_connections=2, max_retries=3,
                               backoff=60, backoff_max=60)
    assert len(got) == 50 and all(r.error is None for r in got.values())
    assert len(good.requests()) == 50
    assert all(r.meta["attempts"] <= 2 for r in got.values())
    if bad is not None:
        # after its first failures the bad server rests (30 s or more): few calls
        assert 1 <= len(bad.requests()) <= 4, len(bad.requests())
    assert seconds < 25  # no call waited out its backoff while the other server was fine


def test_a_slow_drip_server_is_bypassed_by_the_fleet(fake_openai: Any) -> None:
    """A server that answers one byte every 0.2 s (a minute per reply, within the timeout):
    its calls are sent again to the healthy server once they take far longer than the fleet's
    usual call, and it rests; the run takes seconds, not minutes."""
    drip = fake_openai({"cycle": ["drip"], "drip": 0.2})
    good = fake_openai({"latency": 0.02})
    got, seconds = _answer_all([drip.url, good.url], 16, max_connections=2, timeout=90)
    assert len(got) == 16 and all(r.error is None for r in got.values())
    assert len(good.requests()) == 16  # every answer came from the healthy server
    assert 1 <= len(drip.requests()) <= 6
    hedged = [r for r in got.values() if r.meta["attempts"] == 2]
    assert len(hedged) == len(drip.requests())  # each call sent to both servers counts twice
    assert seconds < 12, seconds


def test_a_redirecting_server_is_retried_elsewhere(fake_openai: Any) -> None:
    moved = fake_openai({"cycle": ["307"]})
    good = fake_openai({"latency": 0.01})
    got, seconds = _answer_all([moved.url, good.url], 12, max_connections=2, max_retries=3,
                               backoff=60, backoff_max=60)
    assert all(r.error is None for r in got.values())
    assert len(good.requests()) == 12 and 1 <= len(moved.requests()) <= 4
    assert seconds < 25  # no call waited out its backoff


def test_a_single_server_redirecting_is_one_clear_item_error(fake_openai: Any) -> None:
    moved = fake_openai({"cycle": ["307"], "redirect_to": "http://u:hunter22@127.0.0.1:9/v1"})
    got, _ = _answer_all([moved.url], 2, max_retries=3, backoff=30)
    for response in got.values():
        assert response.error and "HTTP 307" in response.error, response.error
        assert "redirects to http://127.0.0.1:9/v1" in response.error
        assert "--base-url" in response.error and "hunter22" not in response.error
    assert len(moved.requests()) == 2  # not retried: the same server would redirect again


def test_every_server_failing_is_an_item_error_naming_the_server(fake_openai: Any) -> None:
    bad = [fake_openai({"cycle": ["503"]}) for _ in range(2)]
    got, _ = _answer_all([s.url for s in bad], 3, max_retries=1, backoff=0.01,
                         backoff_max=0.05)
    for response in got.values():
        assert response.error and "HTTP 503" in response.error
        assert any(s.url in response.error for s in bad)


def test_cli_spreads_a_run_and_records_the_servers(fake_openai: Any, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    servers = [fake_openai({"latency": 0.01}) for _ in range(2)]
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=10)
    base = ["run", "--suite", str(ds), "--model", "openai:fake-vlm", "--no-progress",
            "-M", "max_connections=2"]
    assert main([*base, "--base-url", servers[1].url, "--base-url", servers[0].url,
                 "--out", str(tmp_path / "two")]) == 0
    hits = Counter(len(s.requests()) for s in servers)
    assert sum(n * k for n, k in hits.items()) == 20 and min(hits) >= 4
    assert main([*base, "--base-url", servers[0].url, "--out", str(tmp_path / "one"),
                 "--store", str(tmp_path / "other.sqlite")]) == 0
    capsys.readouterr()
    assert run_outputs(tmp_path / "two")[1] == run_outputs(tmp_path / "one")[1]
    spec = json.loads((tmp_path / "two" / "results.json").read_text())["runs"][0]["spec"]
    assert spec["backend"]["args"]["base_url"] == sorted(s.url for s in servers)
    # the same servers in another order, through -M: served from the store
    assert main([*base, "-M", f"base_url={servers[0].url}", "-M", f"base_url={servers[1].url}",
                 "--out", str(tmp_path / "again")]) == 0
    assert "20 from the store, 0 computed" in capsys.readouterr().err
    third = fake_openai({})  # a fleet is one model: another set of servers resumes it
    assert main([*base, "--base-url", third.url, "--base-url", servers[0].url,
                 "--out", str(tmp_path / "more")]) == 0
    assert "20 from the store, 0 computed" in capsys.readouterr().err and not third.requests()


def test_base_url_arguments() -> None:
    args = parse_model_args(["base_url=http://a:1/v1", "max_connections=2",
                             "base_url=http://b:2/v1", "base_url=http://a:1/v1"])
    assert args == {"base_url": ["http://a:1/v1", "http://b:2/v1"], "max_connections": 2}
    assert parse_model_args(["seed=1", "seed=2"]) == {"seed": 2}  # others: the last wins
    options = OpenAIOptions.from_args("openai:m", {"base_url": ["http://u:pw@b:2/v1/",
                                                                "http://a:1/v1"]})
    assert options.base_urls == ("http://u:pw@b:2/v1", "http://a:1/v1")
    assert options.base_url == "http://u:pw@b:2/v1"
    assert options.public_servers() == ["http://a:1/v1", "http://b:2/v1"]
    assert "pw" in options.secrets()
    with pytest.raises(WhatifError, match="not an http"):
        OpenAIOptions.from_args("openai:m", {"base_url": ["http://a:1/v1", "b:2"]})
    with pytest.raises(WhatifError, match="twice"):
        OpenAIOptions.from_args("openai:m", {"base_url": ["http://a:1/v1", "http://a:1/v1/"]})
