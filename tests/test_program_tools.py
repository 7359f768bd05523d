"""The program backends' tools: a tiny random OWL-ViT detector, a tiny DPT depth model, VQA and
LLM through a local OpenAI-compatible server, a tiny causal LM as the code LLM, and oracle
perception over the three procedural suites."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cvqa_real_helpers import sample_csv, sample_images

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.registry import lookup
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.program.tools.base import ItemContext, ToolProblem
from whatifbench.models.program.tools.calls import ModelCalls
from whatifbench.models.program.tools.detector import DetectorPerception
from whatifbench.models.program.tools.oracle import OraclePerception
from whatifbench.suites.cvqa.real.importer import import_release

pytestmark = pytest.mark.timeout(600)

REAL_VIPER = '''```python
def execute_command(image, options, images, question):
    people = image.find("person")
    reply = image.simple_query("How many people are there?")
    known = llm_query("Is two a number?")
    n = coerce_to_numeric(reply)
    if "how many" in question.lower():
        return int(n) if n is not None else len(people)
    return bool_to_yesno(len(people) > 0 or known == "2")
```'''
REAL_STEPS = '''```
BOX0=LOC(image=IMAGE,object='person')
ANSWER0=COUNT(box=BOX0)
ANSWER1=VQA(image=IMAGE,question='How many people are there?')
ANSWER2=EVAL(expr="{ANSWER0} + 0")
FINAL=RESULT(var=ANSWER1)
```'''


@pytest.fixture()
def real(tmp_path: Path, shared_dir: Path) -> Path:
    sample_images(shared_dir, tmp_path / "coco")
    import_release(sample_csv(shared_dir), tmp_path / "coco", tmp_path / "real")
    return tmp_path / "real"


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main([*argv, "--no-progress"])
    return code, capsys.readouterr().err


def samples_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(("family", "reply"), [("viper", REAL_VIPER), ("visprog", REAL_STEPS)])
def test_cvqa_real_with_detector_vqa_and_llm(
        tmp_path: Path, real: Path, tiny_owlvit: Path, fake_openai: Any, family: str,
        reply: str, capsys: pytest.CaptureFixture[str], whatif_home: Path) -> None:
    server = fake_openai({"rules": [{"contains": "Question: ", "reply": reply},
                                    {"contains": "single word or phrase", "reply": "2"}]})
    out = tmp_path / "run"
    argv = ["run", "--suite", str(real), "--model", f"{family}:openai:coder",
            "-M", f"detector={tiny_owlvit}", "-M", "detector_threshold=0.0",
            "-M", "vqa=openai:fake-vlm", "--base-url", server.url, "--limit", "8",
            "--out", str(out)]
    code, err = run_cli(argv, capsys)
    assert code == 0, err
    samples = samples_of(out)
    assert len(samples) == 8 and not any(s["error"] for s in samples)
    for s in samples:
        calls = s["trace"]["calls"]
        tools = [c["tool"] for c in calls]
        assert s["trace"]["failure"] is None, s["trace"]["failure"]
        if family == "viper":
            assert tools == ["find", "simple_query", "llm_query"]
            assert calls[1]["result"] == "2" and calls[2]["result"] == "2"
            boxes = calls[0]["result"]
            assert boxes and all(b["left"] <= b["right"] and b["lower"] <= b["upper"]
                                 for b in boxes)
        else:
            assert tools == ["LOC", "COUNT", "VQA", "EVAL", "RESULT"]
            assert s["trace"]["value"] == "2" and s["response"] == "2"
    number = [s for s in samples if s["group"] in ("direct", "indirect")]
    assert all(s["prediction"] == "2" for s in number)
    backend = json.loads((out / "results.json").read_text())["runs"][0]["spec"]["backend"]
    assert backend["tools"]["perception"]["name"] == "detector"
    assert backend["tools"]["vqa"]["spec"] == "openai:fake-vlm"
    db = sqlite3.connect(whatif_home / "store.sqlite")
    stored = dict(db.execute("SELECT substr(backend, 1, 9), COUNT(*) FROM responses "
                             "GROUP BY substr(backend, 1, 9)").fetchall())
    assert stored.get("detector:", 0) >= 1  # detector calls are cached like model calls
    requests = len(server.requests())
    assert run_cli([*argv[:-1], str(tmp_path / "again")], capsys)[0] == 0
    assert len(server.requests()) == requests


def test_detector_tool_mechanics(tmp_path: Path, real: Path, tiny_owlvit: Path) -> None:
    item = load_dataset(real).items[0]
    path = str(real / item.images[0])
    ctx = ItemContext(item, (path,))
    calls = ModelCalls()
    eyes = DetectorPerception(str(tiny_owlvit), calls, threshold=0.0)
    found = eyes.find(ctx, ctx.full(0), "dog")
    width, height = ctx.size(0)
    assert found and all(0 <= v.box[0] <= v.box[2] <= width and 0 <= v.box[1] <= v.box[3]
                         <= height for v in found)
    assert eyes.find(ctx, ctx.full(0), "dog") == found  # deterministic
    inner = eyes.find(ctx, found[0], "cat") if found[0].box[2] - found[0].box[0] >= 2 else []
    assert all(found[0].box[0] <= v.box[0] for v in inner)
    assert eyes.best_text_match(ctx, ctx.full(0), ["a dog", "a cat"]) in ("a dog", "a cat")
    assert isinstance(eyes.verify_property(ctx, ctx.full(0), "dog", "red"), bool)
    raw = eyes._call(ctx, ctx.full(0), ["dog"]).meta
    assert len(raw["query_scores"]) == 1
    highest = max(d[4] for d in raw["detections"])
    assert raw["query_scores"][0] == pytest.approx(highest, abs=1e-3)
    half = DetectorPerception(str(tiny_owlvit), calls, threshold=highest)
    assert 1 <= len(half.find(ctx, ctx.full(0), "dog")) <= len(found)
    if highest < 0.999:
        above = DetectorPerception(str(tiny_owlvit), calls, threshold=highest + 0.001)
        assert above.find(ctx, ctx.full(0), "dog") == []
    with pytest.raises(ToolProblem, match="non-empty list"):
        eyes.best_text_match(ctx, ctx.full(0), [])


def test_a_folder_that_is_not_a_detector(tmp_path: Path, tiny_causal_lm: Path) -> None:
    eyes = DetectorPerception(str(tiny_causal_lm), ModelCalls())
    with pytest.raises(WhatifError, match="is not a zero-shot object detector"):
        eyes.model.load()


def test_depth_and_text_only_code_llm(tmp_path: Path, tiny_dpt: Path, tiny_causal_lm: Path,
                                      fake_openai: Any,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    syn = tmp_path / "syn"
    lookup("generator", "cvqa-synthetic").obj.generate(syn, per_template=1, seed=1, workers=1)
    server = fake_openai({"rules": [{"contains": "Question: ", "reply":
                                     "```python\nreturn image.compute_depth()\n```"}]})
    out = tmp_path / "depth"
    code, err = run_cli(["run", "--suite", str(syn), "--model", "viper:openai:coder",
                         "-M", "detector=oracle", "-M", f"depth={tiny_dpt}", "--base-url",
                         server.url, "--limit", "2", "--out", str(out)], capsys)
    assert code == 0, err
    for s in samples_of(out):
        assert s["trace"]["failure"] is None and isinstance(s["trace"]["value"], float)
        assert s["trace"]["calls"][0]["tool"] == "compute_depth"

    out = tmp_path / "hf"
    code, err = run_cli(["run", "--suite", str(syn), "--model", f"viper:hf:{tiny_causal_lm}",
                         "-M", "detector=oracle", "-M", "code_max_tokens=12", "--limit", "4",
                         "--out", str(out)], capsys)
    assert code == 0, err
    samples = samples_of(out)
    assert len(samples) == 4 and not any(s["error"] for s in samples)
    assert all(isinstance(s["trace"]["reply"], str) for s in samples)
    spec = json.loads((out / "results.json").read_text())["runs"][0]["spec"]["backend"]
    assert spec["code_llm"]["spec"] == f"hf:{tiny_causal_lm}"
    assert spec["code_llm"]["version"]  # the checkpoint fingerprint is part of the identity


def test_text_only_hf_backend(tiny_causal_lm: Path, tmp_path: Path) -> None:
    backend = HFBackend(f"hf:{tiny_causal_lm}", {"batch_size": 2})
    assert backend.text_only and not backend.capabilities.multi_image
    ask = Request("a", (Turn("user", (Part(text="def execute_command(image"),)),),
                  max_new_tokens=5)
    replies = dict(backend.generate([ask, ask, ask]))
    assert len(replies) == 3 and replies[0].text == replies[2].text
    assert replies[0].meta["new_tokens"] <= 5
    ranked = dict(backend.score([Request("b", (Turn("user", (Part(text="Pick"),)),),
                                         candidates=("A", "B"))]))
    assert ranked[0].scores is not None and len(ranked[0].scores) == 2
    image = tmp_path / "x.png"
    image.write_bytes(b"")
    with pytest.raises(WhatifError, match="text-only language model and cannot read images"):
        list(backend.generate([Request("c", (Turn("user", (Part(image=str(image)),
                                                            Part(text="?"))),))]))
    backend.close()


def test_oracle_refuses_items_without_scenes(real: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_cli(["run", "--suite", str(real), "--model", "viper:openai:coder",
                         "--base-url", "http://127.0.0.1:9/v1", "-M", "detector=oracle",
                         "--out", str(tmp_path / "out")], capsys)
    # Refused before any work: the dataset was not drawn by our scene generators.
    assert code == 2 and "does not apply to the dataset" in err and "Traceback" not in err
    assert "with -M detector=oracle it reads only pictures drawn by" in err


def test_oracle_sees_cfmm_and_mucr_synthetic_scenes(tmp_path: Path) -> None:
    lookup("generator", "cfmm-synthetic").obj.generate(tmp_path / "cfmm", per_category=3,
                                                      seed=0, workers=1)
    lookup("generator", "mucr-synthetic").obj.generate(tmp_path / "mucr", groups=1, seed=0)
    eyes = OraclePerception()
    cfmm = load_dataset(tmp_path / "cfmm").items
    eyes.prepare(cfmm)
    checked = 0
    for item in cfmm:
        ctx = ItemContext(item, tuple(str(tmp_path / "cfmm" / p) for p in item.images))
        count = re.fullmatch(r"How many (\w+) (\w+ )?are there\?", item.question)
        if item.role == "basic" and count:
            color, noun = (count.group(1), count.group(2)) if count.group(2) else \
                (None, count.group(1))
            name = f"{color} {noun}".strip() if color else noun
            assert str(len(eyes.find(ctx, ctx.full(0), name))) == item.target, item.question
            checked += 1
    assert checked >= 2
    mucr = load_dataset(tmp_path / "mucr").items
    eyes.prepare(mucr)
    for item in mucr:
        scenes = eyes.scenes(item)
        assert len(scenes) == len(item.images) and all(scenes)
        agent = item.provenance["scene"]["agent"]
        assert any(t.id == agent for t in scenes[0])  # the first image is its own cause
    alone = OraclePerception()  # a shortcut-free item carries every world it shows
    alone.prepare([mucr[0]])
    assert len(alone.scenes(mucr[0])) == len(mucr[0].images)
    lookup("generator", "mucr-synthetic").obj.generate(tmp_path / "paper", groups=1, seed=0,
                                                      design="paper")
    paper = load_dataset(tmp_path / "paper").items  # found by name: needs the whole group
    with pytest.raises(WhatifError, match="evaluate whole groups"):
        OraclePerception().prepare([paper[0]])


def test_text_only_hf_backend_records_the_answer_prefix_it_appends(tiny_causal_lm: Path
                                                                     ) -> None:
    backend = HFBackend(f"hf:{tiny_causal_lm}", {})
    ask = Request("a", (Turn("user", (Part(text="Count the dots."),)),), max_new_tokens=2,
                  answer_prefix="Answer:")
    [(_, reply)] = list(backend.generate([ask]))
    sent = reply.meta["model_input"]
    assert "Count the dots." in sent and sent.endswith("Answer:")


def test_shared_arguments_reach_each_inner_model_that_takes_them(
        tiny_causal_lm: Path, fake_openai: Any) -> None:
    """An hf: code LLM and an openai: VQA model share -M: each takes its own arguments
    (docs/program-backends.md); a prefixed one goes to its model only; a typo is refused."""
    from whatifbench.runner.backends import make_backend

    server = fake_openai({})
    backend = make_backend(f"viper:hf:{tiny_causal_lm}", {
        "detector": "oracle", "vqa": "openai:fake-vlm", "batch_size": 2,
        "base_url": server.url, "vqa.max_connections": 3})
    try:
        assert backend.code_llm.args == {"batch_size": 2}
        vqa = backend.toolbox.vqa.backend
        assert vqa.args == {"base_url": server.url, "max_connections": 3}
    finally:
        backend.close()
    with pytest.raises(WhatifError, match="Unknown argument"):
        make_backend(f"viper:hf:{tiny_causal_lm}", {
            "detector": "oracle", "vqa": "openai:fake-vlm", "batch_sise": 2,
            "base_url": server.url})
