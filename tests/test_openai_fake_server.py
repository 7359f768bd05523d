"""The fake OpenAI server itself: scripted replies, images, completions, faults, keys."""

from __future__ import annotations

import base64
import io
from typing import Any

import httpx
from fake_openai_model import png, render, token_logprobs
from PIL import Image


def test_rules_models_and_the_default_answer(fake_openai: Any) -> None:
    server = fake_openai({"rules": [{"contains": "Rewrite", "reply": "What if it rained?"},
                                    {"regex": r"judge \d+", "reply": "yes"}],
                          "models": ["a", "b"]})
    with httpx.Client(base_url=server.url) as client:
        def chat(text: str) -> str:
            body = {"model": "a", "messages": [{"role": "user", "content": text}]}
            answer = client.post("/chat/completions", json=body).json()
            return str(answer["choices"][0]["message"]["content"])

        assert chat("Rewrite this question") == "What if it rained?"
        assert chat("please judge 12 items") == "yes"
        default = chat("How many cats?")
        assert default.startswith("The answer is (") and default == chat("How many cats?")
        models = client.get("/models").json()
        assert [m["id"] for m in models["data"]] == ["a", "b"]


def test_images_are_deterministic_pngs_as_base64_or_url(fake_openai: Any) -> None:
    server = fake_openai()
    with httpx.Client(base_url=server.url) as client:
        body = {"prompt": "a red ball falls", "n": 2, "size": "32x16"}
        first = client.post("/images/generations", json=body).json()["data"]
        again = client.post("/images/generations", json=body).json()["data"]
        assert first == again and len(first) == 2 and first[0] != first[1]
        data = base64.b64decode(first[0]["b64_json"])
        assert data == png("a red ball falls#0", (32, 16))
        with Image.open(io.BytesIO(data)) as img:
            assert img.size == (32, 16) and img.mode == "RGB"
        url = client.post("/images/generations",
                          json={**body, "response_format": "url"}).json()["data"][0]["url"]
        assert httpx.get(url).content == data


def test_completions_echo_prompt_log_probabilities(fake_openai: Any) -> None:
    server = fake_openai()
    with httpx.Client(base_url=server.url) as client:
        answer = client.post("/completions", json={"model": "m", "prompt": "Q: 2+2? A:",
                                                   "max_tokens": 0, "echo": True,
                                                   "logprobs": 0}).json()
    choice = answer["choices"][0]
    assert choice["text"] == "Q: 2+2? A:"
    assert choice["logprobs"]["token_logprobs"] == token_logprobs(list("Q: 2+2? A:"))


def test_chat_prompt_logprobs_follow_the_rendered_conversation(fake_openai: Any) -> None:
    server = fake_openai()
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                {"role": "assistant", "content": "B"}]
    body = {"model": "m", "messages": messages, "prompt_logprobs": 0,
            "continue_final_message": True, "add_generation_prompt": False}
    answer = httpx.post(f"{server.url}/chat/completions", json=body).json()
    tokens = render(messages, False, True)
    assert tokens[-2:] == ["<assistant>", "B"]
    assert answer["usage"]["prompt_tokens"] == len(tokens)
    got = [None if e is None else next(iter(e.values()))["logprob"]
           for e in answer["prompt_logprobs"]]
    assert got == token_logprobs(tokens)


def test_faults_follow_the_schedule_and_cycle(fake_openai: Any) -> None:
    server = fake_openai({"schedule": {"1": "429"}, "cycle": ["ok", "500"], "retry_after": 7,
                          "api_key": "k-123"})
    url = f"{server.url}/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    auth = {"Authorization": "Bearer k-123"}
    first = httpx.post(url, json=body, headers=auth)
    assert first.status_code == 429 and first.headers["Retry-After"] == "7"
    assert httpx.post(url, json=body, headers=auth).status_code == 500  # 2: cycle[1]
    assert httpx.post(url, json=body, headers=auth).status_code == 200  # 3: cycle[0]
    assert httpx.post(url, json=body).status_code == 500  # 4: the fault comes first
    assert httpx.post(url, json=body).status_code == 401  # 5: no key
    log = server.requests()
    assert [r["fault"] for r in log] == ["429", "500", "ok", "500", "ok"]
    assert [r["authorised"] for r in log] == [True, True, True, False, False]
