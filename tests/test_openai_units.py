"""Pieces of the openai: backend that need no server: headers, redaction, URLs, options, bodies."""

from __future__ import annotations

import email.utils
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai_model import render, token_logprobs

from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.openai_compat.backend import OpenAIBackend
from whatifbench.models.openai_compat.client import retry_after
from whatifbench.models.openai_compat.options import OpenAIOptions, Redactor, sanitize_url
from whatifbench.models.openai_compat.payloads import (
    EmptyReply,
    MalformedReply,
    RankingUnsupported,
    candidate_scores,
    chat_messages,
    generation_body,
    prompt_logprobs,
    ranking_bodies,
    reply_text,
)
from whatifbench.runner.backends import make_backend

CASES = Path(__file__).parent / "cases"


def _cases(name: str) -> list[dict]:
    return json.loads((CASES / name).read_text())["cases"]


@pytest.mark.parametrize("case", _cases("openai_retry_after.json"))
def test_retry_after_cases(case: dict) -> None:
    assert retry_after(httpx.Headers(case["headers"])) == case["expect"]


def test_retry_after_http_date() -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= (retry_after(httpx.Headers({"Retry-After": when})) or 0) <= 31


@pytest.mark.parametrize("case", _cases("openai_redaction.json"))
def test_redaction_cases(case: dict) -> None:
    out = Redactor(case["secrets"])(case["text"])
    assert out == case["expect"]
    for secret in case["secrets"]:
        if len(secret) >= 4:
            assert secret not in out


@pytest.mark.parametrize("case", _cases("openai_urls.json"))
def test_sanitized_url_cases(case: dict) -> None:
    assert sanitize_url(case["url"]) == case["expect"]


def test_options_come_from_arguments_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env-host:1/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    opts = OpenAIOptions.from_args("openai:m", {})
    assert (opts.base_url, opts.api_key, opts.max_connections) == ("http://env-host:1/v1",
                                                                  "sk-from-env", 16)
    opts = OpenAIOptions.from_args("openai:m", {"base_url": "http://x:2/v1", "api_key": "k2",
                                                "max_connections": 3, "timeout": 2})
    assert (opts.base_url, opts.api_key, opts.max_connections, opts.timeout) == \
        ("http://x:2/v1", "k2", 3, 2.0)
    assert "k2" not in repr(opts)
    assert OpenAIOptions.from_args("openai:m", {"temperature": None}).temperature is None


@pytest.mark.parametrize(("args", "message"), [
    ({"max_conections": 4}, "Unknown argument(s) max_conections"),
    ({"max_connections": 0}, "-M max_connections must be a whole number >= 1"),
    ({"max_connections": 2.5}, "-M max_connections must be a whole number"),
    ({"timeout": "soon"}, "-M timeout must be a number"),
    ({"timeout": float("nan")}, "-M timeout must be a number >= 0.001, got nan"),
    ({"backoff": float("inf")}, "-M backoff must be a number >= 0.0, got inf"),
    ({"base_url": "localhost:8000"}, "is not an http(s) URL"),
    ({"max_tokens_param": "tokens"}, "-M max_tokens_param must be one of"),
])
def test_bad_options_name_the_argument(args: dict, message: str) -> None:
    with pytest.raises(WhatifError, match=None) as info:
        OpenAIOptions.from_args("openai:m", args)
    assert message in str(info.value)


def test_model_name_is_required() -> None:
    with pytest.raises(WhatifError, match="needs a model after the colon"):
        make_backend("openai", {})


def test_describe_and_cache_identity_keep_credentials_and_execution_out() -> None:
    backend = OpenAIBackend("openai:m", {"base_url": "http://u:pw-777@h:5/v1", "api_key": "sk-1x",
                                         "max_connections": 4, "temperature": 0.5})
    described = json.dumps(backend.describe())
    assert "sk-1x" not in described and "pw-777" not in described
    assert backend.describe()["args"]["base_url"] == "http://h:5/v1"
    assert "api_key" not in backend.args
    identity = backend.cache_identity()
    assert "max_connections" not in identity["args"] and identity["args"]["temperature"] == 0.5
    other = OpenAIBackend("openai:m", {"base_url": "http://h:5/v1", "max_connections": 64,
                                       "temperature": 0.5, "api_key": "sk-2y"})
    assert other.cache_identity() == identity


def _request(tmp_path: Path, prefix: str = "") -> Request:
    image = tmp_path / "x.png"
    image.write_bytes(b"\x89PNG fake bytes")
    demo = Turn("user", (Part(image=str(image)), Part(text="How many?")))
    return Request("i1", (demo, Turn("assistant", (Part(text="B"),)),
                          Turn("user", (Part(text="Image 1:"), Part(image=str(image)),
                                        Part(text="And now?")))),
                   candidates=("A", "B"), answer_prefix=prefix, max_new_tokens=7)


def test_messages_keep_part_order_and_send_images_as_data_urls(tmp_path: Path) -> None:
    messages = chat_messages(_request(tmp_path, prefix="Answer: ("))
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == "B"
    last = messages[2]["content"]
    assert [p["type"] for p in last] == ["text", "image_url", "text", "text"]
    assert last[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert last[3] == {"type": "text", "text": "Answer: ("}


def test_ranking_sums_the_candidate_tokens_after_the_prompt(tmp_path: Path) -> None:
    for prefix in ("", "Answer: ("):
        request = _request(tmp_path, prefix)
        first, *rest = ranking_bodies("m", request)
        start = len(render(first["messages"], first.get("add_generation_prompt", True),
                           first.get("continue_final_message", False)))
        values = [token_logprobs(render(b["messages"], False, True)) for b in rest]
        sums, counts = candidate_scores(start, values)
        assert counts == [1, 1]
        assert sums == [values[0][-1], values[1][-1]]


def test_reply_parsing_rejects_malformed_answers() -> None:
    text, meta = reply_text({"choices": [{"message": {"content": "B"}, "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 3, "completion_tokens": 1}})
    assert (text, meta["finish_reason"], meta["usage"]["prompt_tokens"]) == ("B", "stop", 3)
    assert reply_text({"choices": [{"message": {"content": ""}}]})[0] == ""
    with pytest.raises(EmptyReply, match="content is null"):  # a failed call, not an answer
        reply_text({"choices": [{"message": {"content": None}, "finish_reason": "length"}]})
    bad: Any
    for bad in ({}, {"choices": []}, {"choices": [{"message": {"content": 3}}]}, []):
        with pytest.raises(MalformedReply):
            reply_text(bad)
    with pytest.raises(RankingUnsupported):
        prompt_logprobs({"choices": []})
    # The prompt's own token is listed with the top alternatives; it has the largest rank.
    assert prompt_logprobs({"prompt_logprobs": [None, {"5": {"logprob": -0.5, "rank": 1},
                                                      "9": {"logprob": -2.0, "rank": 3}}]}) \
        == [None, -2.0]


def test_arguments_of_the_other_backends_in_one_run_are_left_to_them() -> None:
    """``--model hf:DIR --model openai:NAME`` share their -M arguments."""
    backend = make_backend("openai:m", {"base_url": "http://h:5/v1", "batch_size": 4,
                                        "dtype": "bf16", "max_connections": 3, "api_key": "k"},
                           shared=True)
    assert backend.args == {"base_url": "http://h:5/v1", "max_connections": 3}
    with pytest.raises(WhatifError, match="Unknown argument"):
        make_backend("openai:m", {"base_url": "http://h:5/v1", "batch_sise": 4, "api_key": "k"},
                     shared=True)


def test_generation_body_sends_the_budget_under_the_chosen_name(tmp_path: Path) -> None:
    request = _request(tmp_path)
    body = generation_body("m", request, OpenAIOptions())
    assert (body["temperature"], body["max_tokens"]) == (0.0, 7)
    body = generation_body("m", request, OpenAIOptions.from_args(
        "openai:m", {"temperature": None, "max_tokens_param": "max_completion_tokens"}))
    assert "temperature" not in body and "max_tokens" not in body
    assert body["max_completion_tokens"] == 7
