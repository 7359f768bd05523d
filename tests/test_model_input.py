"""The prompt as sent: each sample records the exact input its model received (``hf:`` the text
the processor was given, ``openai:`` the messages the server was sent, images as placeholders),
and the report shows it."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset
from util import page_data

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Request
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.openai_compat import client
from whatifbench.models.openai_compat.backend import OpenAIBackend
from whatifbench.models.openai_compat.payloads import placeholder
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder, choose_demos

PREFIX = "The best answer is: ("


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def _requests(dataset_dir: Path, mode: str, strategy: str = "zero-shot") -> list[Request]:
    dataset = load_dataset(dataset_dir)
    suite = get_suite(dataset.suite)
    protocol = Protocol(answer_mode=mode, strategy=strategy).resolved("generate")
    demos = choose_demos(dataset, dataset.items, 0, suite) if strategy == "one-shot" else None
    builder = RequestBuilder(suite, protocol, dataset, demos)
    return [dataclasses.replace(builder.build(item), max_new_tokens=4)
            for item in dataset.items]


class RecordingProcessor:
    """A processor that notes the texts it is called with, then does its job."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts: list[str] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.texts += list(kwargs["text"])
        return self.inner(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _recording(backend: HFBackend) -> RecordingProcessor:
    processor = RecordingProcessor(backend.loaded.processor)
    backend._loaded = dataclasses.replace(backend.loaded, processor=processor)
    return processor


@pytest.mark.parametrize("arch", ["llava", "paligemma"])
def test_hf_records_the_text_its_processor_received(tiny_models: Any, photos: Path,
                                                    arch: str) -> None:
    backend = HFBackend(f"hf:{tiny_models.path(arch)}", {"batch_size": 3})
    processor = _recording(backend)
    for mode in ("generate", "rank"):
        requests = _requests(photos, mode)
        requests[1] = dataclasses.replace(requests[1], answer_prefix=PREFIX)
        processor.texts.clear()
        stream = backend.generate(requests) if mode == "generate" else backend.score(requests)
        replies = dict(stream)
        sent = processor.texts
        assert len(sent) == len(requests) and len(set(sent)) == len(sent)
        for i, request in enumerate(requests):
            recorded = replies[i].meta["model_input"]
            assert recorded.endswith(request.answer_prefix)
            assert recorded[:len(recorded) - len(request.answer_prefix)] in sent
            assert request.prompt in recorded
        if arch == "llava":
            assert all(t.startswith("<s>USER: <image>\n") and t.endswith("ASSISTANT:")
                       for t in sent)


def test_samples_and_the_report_show_the_model_input(tiny_llava: Path, photos: Path,
                                                     tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from whatifbench.models.hf import backend as hf_backend

    processors: list[RecordingProcessor] = []
    real_load = hf_backend.load

    def load(*args: Any) -> Any:
        loaded = real_load(*args)
        processors.append(RecordingProcessor(loaded.processor))
        return dataclasses.replace(loaded, processor=processors[-1])

    monkeypatch.setattr(hf_backend, "load", load)
    out = tmp_path / "out"
    code = main(["run", "--suite", str(photos), "--model", f"hf:{tiny_llava}", "--strategy",
                 "one-shot", "--answer-mode", "rank", "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert sorted(s["model_input"] for s in samples) == sorted(processors[0].texts)
    assert all(s["model_input"].count("<image>") == 2 for s in samples)  # demonstration + item
    data = page_data((out / "report.html").read_text())  # the explorer's data block
    shown = data["runs"][0]["samples"]["input"]
    assert sorted(data["strings"][i] for i in shown) == sorted(s["model_input"] for s in samples)


def _expected_messages(body: dict[str, Any], request: Request) -> list[dict[str, Any]]:
    """The body's messages with each image's base64 data URL replaced by its placeholder,
    after checking that the data URL holds exactly that image's bytes."""
    images = iter(request.images)
    messages = json.loads(json.dumps(body["messages"]))
    for message in messages:
        if not isinstance(message["content"], list):
            continue
        for part in message["content"]:
            if part["type"] == "image_url":
                path = next(images)
                data = part["image_url"]["url"].split("base64,", 1)[1]
                assert base64.b64decode(data) == Path(path).read_bytes()
                part["image_url"]["url"] = placeholder(path)
    assert next(images, None) is None
    return messages


@pytest.mark.parametrize("mode", ["generate", "rank"])
def test_openai_records_the_messages_it_sent_with_image_placeholders(
        fake_openai: Any, photos: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_openai({})
    bodies: list[dict[str, Any]] = []
    real_post = client.RetryingClient.post

    async def post(self: Any, path: str, body: dict[str, Any], *args: Any) -> Any:
        bodies.append(body)
        return await real_post(self, path, body, *args)

    monkeypatch.setattr(client.RetryingClient, "post", post)
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": server.url})
    requests = _requests(photos, mode, strategy="one-shot")
    requests[0] = dataclasses.replace(requests[0], answer_prefix=PREFIX)
    for request in requests:
        bodies.clear()
        stream = backend.generate([request]) if mode == "generate" else backend.score([request])
        (_, response), = list(stream)
        assert response.error is None
        # Generation: one body; ranking: the prompt's body first, then one per candidate.
        assert len(bodies) == 1 + len(request.candidates)
        first = bodies[0]
        recorded = json.loads(response.meta["model_input"])
        assert recorded == _expected_messages(first, request)
        assert "base64" not in response.meta["model_input"]
        assert response.meta["model_input"].count("<image ") == 2
