"""CELLO's paper protocol per model family: the request each path of the release sends (checked
field by field on a real local server and in the text a tiny model's processor receives), the
parse of each path, and the family chosen from the backend."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from cello_fixtures import write_images

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.models.family import ModelHint
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.hf.inputs import build_prompt
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder
from whatifbench.suites.cello.families import (
    FAMILIES,
    GEMINI_SYSTEM,
    PHRASE,
    SYSTEM,
    VICUNA_SYSTEM,
    auto_family,
)
from whatifbench.suites.cello.paper import paper_prompt

TABLE = json.loads((Path(__file__).parent / "cases" / "cello_paper_parse.json").read_text())
QUESTION = "If the beach were to suddenly erode, would the women still ride the horses?"
OPTIONS = [["Yes", "No"], ["wall", "shelf", "window", "bookend"]]


def _record(k: int, options: list[str], answer: int) -> dict[str, Any]:
    return {"img_id": 7, "question": f"{QUESTION} ({k})", "graph_type": "confounding",
            "task_type": "sufficient_cause" if len(options) == 2 else "collider_bias",
            "graph": {"nodes": [[1, {"obj_name": "beach"}], [2, {"obj_name": "horse"}]],
                      "edges": [[1, 2, {"relation": "ON"}]]},
            "objs": [1, 2], "options": options, "answer_index": answer, "data_id": k}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Two release records (Yes/No, four options) imported from a JSON array."""
    write_images(tmp_path / "img", [7])
    src = tmp_path / "cello.json"
    src.write_text(json.dumps([_record(0, OPTIONS[0], 1), _record(1, OPTIONS[1], 2)]))
    assert main(["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "img"),
                 "--out", str(tmp_path / "ds")]) == 0
    return tmp_path / "ds"


def _text(k: int) -> str:
    return paper_prompt(f"{QUESTION} ({k})", OPTIONS[k])


# -- parse ---------------------------------------------------------------------------------------
def test_the_styles_cover_every_family() -> None:
    assert sorted(f for fams in TABLE["styles"].values() for f in fams) == sorted(FAMILIES)


@pytest.mark.parametrize("case", TABLE["cases"], ids=lambda c: repr(c["reply"])[:40])
def test_parse_per_family(case: dict[str, Any]) -> None:
    for style, names in TABLE["styles"].items():
        want = case["expected"][style]
        for name in names:
            found = FAMILIES[name].parse(case["reply"], case["choices"])
            assert found.value == (None if want == "!crash" else want), (name, case["reply"])
            assert (found.flag == "release-crash") == (want == "!crash"), (name, case["reply"])


@pytest.mark.parametrize(("hint", "expected"), [
    (ModelHint("openai", "gpt-4o"), "api"), (ModelHint("openai", "claude-3-opus"), "claude"),
    (ModelHint("openai", "gemini-1.5-pro"), "gemini"),
    (ModelHint("openai", "llava-hf/llava-1.5-7b-hf"), "api"),
    (ModelHint("hf", "/m", "llava", "llama"), "llava"),
    (ModelHint("hf", "/m", "llava", "mistral"), "bakllava"),
    (ModelHint("hf", "/m", "llava_next", "mistral"), "llava-mistral"),
    (ModelHint("hf", "/m", "llava_next", "llama"), "llava"),
    (ModelHint("hf", "/m", "blip-2", "opt"), "blip2"),
    (ModelHint("hf", "/m", "instructblip", "llama"), "instructblip"),
    (ModelHint("hf", "/m", "qwen2_vl", ""), "qwen"), (ModelHint("hf", "/m", "idefics3"), "other"),
    (ModelHint("builtin", "random"), "other"),
])
def test_family_chosen_from_the_backend(hint: ModelHint, expected: str) -> None:
    assert auto_family(hint) == expected


# -- API paths on a real local server ------------------------------------------------------------
@pytest.mark.parametrize(("model", "family"), [("gpt-4o", "api"), ("claude-3-opus", "claude"),
                                               ("gemini-1.5-pro", "gemini")])
def test_api_requests_field_by_field(dataset: Path, tmp_path: Path, fake_openai: Any,
                                     model: str, family: str) -> None:
    server = fake_openai({"record_bodies": True})
    out = tmp_path / "run"
    assert main(["run", "--suite", str(dataset), "--model", f"openai:{model}", "--base-url",
                 server.url, "--prompt", "paper", "--out", str(out), "--no-progress"]) == 0
    ds = load_dataset(dataset)
    image = base64.b64encode(ds.image_path(ds.items[0].images[0]).read_bytes()).decode()
    url = {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{image}"}}
    bodies = sorted((r["body"] for r in server.requests()),
                    key=lambda b: b["messages"][-1]["content"][-1 if family == "claude" else 0]
                    .get("text", ""))
    assert len(bodies) == 2
    for k, body in enumerate(bodies):
        text = {"type": "text", "text": _text(k) + PHRASE}
        if family == "api":  # the release's GPT path: system, then text before the image
            messages = [{"role": "system", "content": [{"type": "text", "text": SYSTEM}]},
                        {"role": "user", "content": [text, url]}]
        elif family == "claude":  # Claude path: the same system text, the image first
            messages = [{"role": "system", "content": [{"type": "text", "text": SYSTEM}]},
                        {"role": "user", "content": [url, text]}]
        else:  # Gemini path: the instruction starts the user text, the image after it
            messages = [{"role": "user", "content": [
                {"type": "text", "text": GEMINI_SYSTEM + _text(k) + PHRASE}, url]}]
        assert body == {"model": model, "messages": messages, "temperature": 0.0,
                        "max_tokens": 30}
    spec = json.loads((out / "results.json").read_text())["runs"][0]["spec"]
    assert spec["protocol"]["prompt"] == f"paper:{family}"
    assert spec["protocol"]["family"] == family
    assert spec["protocol"]["max_new_tokens"] == 30


def test_api_parse_keeps_whitespace_and_crashes_are_unparsed(dataset: Path, tmp_path: Path,
                                                             fake_openai: Any) -> None:
    """The GPT path reads the first character as returned: ' B' and '\\nB' are wrong, '(B' is
    right, a bare '(' (which crashes the release) is unparsed; ours reads them all."""
    rules = [{"contains": "(0)", "reply": " B"}, {"contains": "(1)", "reply": "("}]
    server = fake_openai({"rules": rules})
    out = tmp_path / "run"
    assert main(["run", "--suite", str(dataset), "--model", "openai:gpt-4o", "--base-url",
                 server.url, "--prompt", "paper", "--parser", "paper", "--out", str(out),
                 "--no-progress"]) == 0
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["response"] for s in samples] == [" B", "("]
    assert [s["correct"] for s in samples] == [False, False]
    assert [s["flag"] for s in samples] == ["no-letter", "release-crash"]
    assert [s["parses"]["default"] for s in samples] == ["No", None]
    second = fake_openai({"rules": [{"contains": "(0)", "reply": "(B). No"},
                                    {"contains": "(1)", "reply": "\nC"}]})
    assert main(["run", "--suite", str(dataset), "--model", "openai:gpt-4o", "--base-url",
                 second.url, "--prompt", "paper", "--parser", "paper", "--out",
                 str(tmp_path / "two"), "--no-progress"]) == 0
    samples = [json.loads(line) for line in
               (tmp_path / "two" / "samples.jsonl").read_text().splitlines()]
    assert [s["correct"] for s in samples] == [True, False]
    assert samples[1]["parses"]["default"] == "window"


def test_local_families_need_a_local_model_and_zero_shot(dataset: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    base = ["run", "--suite", str(dataset), "--out", str(tmp_path / "x"), "--no-progress"]
    assert main([*base, "--model", "openai:gpt-4o", "--base-url", "http://127.0.0.1:9/v1",
                 "--prompt", "paper:llava"]) == 2
    assert "--prompt paper:llava is the raw text the release gives a local model" in \
        capsys.readouterr().err
    assert main([*base, "--model", "builtin:random", "--prompt", "paper:vicuna"]) == 2
    assert "no paper protocol for the model family 'vicuna'" in capsys.readouterr().err
    assert main([*base, "--model", "builtin:random", "--prompt", "paper", "--strategy",
                 "cot"]) == 2
    assert "CELLO's paper protocol is zero-shot" in capsys.readouterr().err
    assert main([*base, "--model", "builtin:random", "--prompt", "papers"]) == 2
    assert "has no prompt 'papers'" in capsys.readouterr().err


# -- local paths: the text the processor receives ------------------------------------------------
class Recorder:
    """A processor that records the text it is given and delegates everything."""

    def __init__(self, processor: Any) -> None:
        self.processor = processor
        self.texts: list[str] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.texts += list(kwargs["text"])
        return self.processor(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.processor, name)


def _local(dataset: Path, path: Path, prompt: str = "paper") -> tuple[HFBackend, list[Any]]:
    backend = HFBackend(f"hf:{path}", {})
    ds = load_dataset(dataset)
    suite = get_suite("cello")
    protocol = suite.bind(Protocol(prompt=prompt), backend).resolved("generate")
    builder = RequestBuilder(suite, protocol, ds)
    return backend, [builder.build(item) for item in ds.items]


def test_llava_gets_the_releases_own_text(dataset: Path, tiny_llava: Path) -> None:
    backend, requests = _local(dataset, tiny_llava)
    assert all(r.plain and r.max_new_tokens == 30 and r.answer_prefix == "" for r in requests)
    expected = [f"{VICUNA_SYSTEM} USER: <image>\n{_text(k)}\nASSISTANT:\n{PHRASE}"
                for k in range(2)]
    assert [build_prompt(backend.loaded, r, backend.spec).text for r in requests] == expected
    recorder = Recorder(backend.loaded.processor)
    backend._loaded = dataclasses.replace(backend.loaded, processor=recorder)
    replies = dict(backend.generate(requests))
    assert sorted(recorder.texts) == expected and len(replies) == 2


def test_llava_run_records_the_family_and_ranks_after_the_bracket(
        dataset: Path, tiny_llava: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", "--suite", str(dataset), "--model", f"hf:{tiny_llava}", "--prompt",
                 "paper", "--parser", "paper", "--out", str(out), "--no-progress"]) == 0
    spec = json.loads((out / "results.json").read_text())["runs"][0]["spec"]
    assert (spec["protocol"]["prompt"], spec["protocol"]["family"]) == ("paper:llava", "llava")
    assert f"hf:{tiny_llava} \\[paper:llava\\]" in (out / "report.md").read_text()  # escaped
    backend, requests = _local(dataset, tiny_llava)
    ranked = [dataclasses.replace(r, candidates=("A", "B")) for r in requests]
    prompt = build_prompt(backend.loaded, ranked[0], backend.spec)
    assert prompt.text.endswith(PHRASE) and prompt.candidate_lead == ""


def test_blip2_gets_the_question_and_phrase(dataset: Path, tiny_models: Any) -> None:
    backend, requests = _local(dataset, tiny_models.path("blip2"))
    texts = [build_prompt(backend.loaded, r, backend.spec).text for r in requests]
    assert texts == [_text(k) + PHRASE for k in range(2)]
    assert requests[0].images and requests[0].plain


def test_forced_family_on_another_local_model(dataset: Path, tiny_llava: Path) -> None:
    """``--prompt paper:bakllava`` overrides the automatic choice."""
    backend, requests = _local(dataset, tiny_llava, "paper:bakllava")
    text = build_prompt(backend.loaded, requests[0], backend.spec).text
    assert text == f"USER: <image>\n{_text(0)}\nASSISTANT:\n{PHRASE}"
