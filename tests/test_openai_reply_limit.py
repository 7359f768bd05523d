"""Reply size (issue 23, item 2): a server answering with a huge body costs that item an error
(the body is read only up to ``-M max_reply_mb``), and ``samples.jsonl`` keeps at most
``REPLY_CHARS`` of one reply unless ``--full-replies`` asks for them whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset

from whatifbench.cli.main import main
from whatifbench.errors import WhatifError
from whatifbench.models.openai_compat.options import OpenAIOptions

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main([*args, "--no-progress"] if args[0] == "run" else args)
    return code, capsys.readouterr().err


def _samples(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(("chunked", "size_mb", "limit"), [
    (False, 3, ["-M", "max_reply_mb=1"]),  # Content-Length says it: refused unread
    (True, 3, ["-M", "max_reply_mb=1"]),   # no length: read up to the limit, then refused
    (True, 20, []),                        # the default limit
])
def test_a_reply_over_the_limit_is_that_items_error(
        fake_openai: Any, photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        chunked: bool, size_mb: int, limit: list[str]) -> None:
    server = fake_openai({"schedule": {"2": "huge"}, "huge_bytes": size_mb << 20,
                          "huge_chunked": chunked})
    out = tmp_path / "out"
    code, err = _run(["run", "--suite", str(photos), "--model", "openai:fake-vlm", "--base-url",
                      server.url, "-M", "max_connections=1", *limit, "--out", str(out)], capsys)
    assert code == 3, err
    [failed] = [s for s in _samples(out) if s["error"]]
    shown = limit[1].split("=")[1] if limit else "8"
    assert failed["error"].startswith(f"the server's reply is larger than {shown} MB")
    assert "-M max_reply_mb=" in failed["error"] and failed["response"] is None
    assert len(server.requests()) == 8  # not repeated: the same request, the same reply
    assert sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) < 2 << 20


def test_a_fleet_moves_calls_off_a_server_whose_replies_are_too_large(
        fake_openai: Any, photos: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    huge = fake_openai({"cycle": ["huge"], "huge_bytes": 3 << 20, "huge_chunked": True})
    good = fake_openai({})
    out = tmp_path / "out"
    code, err = _run(["run", "--suite", str(photos), "--model", "openai:fake-vlm", "--base-url",
                      huge.url, "--base-url", good.url, "-M", "max_reply_mb=1", "--out",
                      str(out)], capsys)
    assert code == 0, err
    assert not any(s["error"] for s in _samples(out)) and len(good.requests()) == 8
    assert huge.requests()  # it was tried, and rested


def test_max_reply_mb_must_be_a_positive_number() -> None:
    assert OpenAIOptions.from_args("openai:m", {"max_reply_mb": 0.5}).max_reply_mb == 0.5
    assert OpenAIOptions.from_args("openai:m", {}).max_reply_mb == 8
    for bad in (0, -1, "big", True):
        with pytest.raises(WhatifError, match="-M max_reply_mb must be a number > 0"):
            OpenAIOptions.from_args("openai:m", {"max_reply_mb": bad})


def test_samples_keep_a_long_reply_cut_unless_asked_for_whole(
        fake_openai: Any, photos: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from whatifbench.report import REPLY_CHARS

    long = "The answer is (B). " + "because " * 20_000  # 160,019 characters
    server = fake_openai({"rules": [{"regex": ".", "reply": long}]})
    base = ["run", "--suite", str(photos), "--model", "openai:fake-vlm", "--base-url",
            server.url, "--max-new-tokens", "1000000"]
    code, err = _run([*base, "--out", str(tmp_path / "cut")], capsys)
    assert code == 0, err
    cut = _samples(tmp_path / "cut")
    assert all(s["prediction"] is not None for s in cut)
    text = cut[0]["response"]
    assert text.startswith(long[:REPLY_CHARS]) and len(text) < REPLY_CHARS + 300
    assert f"[cut at {REPLY_CHARS:,} of {len(long):,} characters" in text
    assert "--full-replies" in text
    calls = len(server.requests())
    code, err = _run([*base, "--full-replies", "--out", str(tmp_path / "whole")], capsys)
    assert code == 0, err
    assert len(server.requests()) == calls  # from the run store
    whole = _samples(tmp_path / "whole")
    assert all(s["response"] == long for s in whole)
    assert [s["prediction"] for s in whole] == [s["prediction"] for s in cut]
    code, err = _run(["report", str(tmp_path / "whole"), "--full-replies", "--out",
                      str(tmp_path / "merged")], capsys)
    assert code == 0, err
    assert all(s["response"] == long for s in _samples(tmp_path / "merged"))
