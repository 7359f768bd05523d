"""LLM-assisted pipelines and judges end to end through the real ``openai:`` backend against the
local fake server, with injected faults: C-VQA-Real construction, CELLO rewriting, MuCR judging.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cello_fixtures import write_input
from mucr_util import ScriptedModel, write_release
from test_cvqa_real_build import REPLIES, vqa_files

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.runner.results import load_runs
from whatifbench.suites.mucr.importer import import_mucr

KEY = "sk-test-never-logged-4242"
FAULTS = {"2": "500", "3": "429", "5": "drop", "7": "malformed"}


def _server(fake_openai: Any, rules: list[dict[str, str]]) -> Any:
    return fake_openai({"rules": rules, "schedule": FAULTS, "retry_after": 0, "api_key": KEY})


def _no_key_anywhere(*folders: Path) -> None:
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                assert KEY.encode() not in path.read_bytes(), path


def test_cvqa_real_build_through_openai(tmp_path: Path, fake_openai: Any,
                                        monkeypatch: pytest.MonkeyPatch,
                                        whatif_home: Path) -> None:
    rules = [{"regex": re.escape(f"Original question:{q}\nOriginal answer:") + r"[^\n]*\n?$",
              "reply": reply} for q, reply in REPLIES.items()]
    server = _server(fake_openai, rules)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    q, a, coco = vqa_files(tmp_path)
    argv = ["build", "cvqa-real", "--vqa-questions", str(q), "--vqa-annotations", str(a),
            "--images", str(coco), "--model", "openai:fake-vlm", "--base-url", server.url,
            "--out", str(tmp_path / "built")]
    assert main(argv) == 0
    card = load_dataset(tmp_path / "built").card
    assert card.counts["outcomes"] == {"auto-verified": 2, "flagged": 4, "malformed": 1}
    seen = server.requests()
    assert {r["fault"] for r in seen} >= {"500", "429", "drop", "malformed"}
    calls = len(seen)
    argv[-1] = str(tmp_path / "again")
    assert main(argv) == 0  # served from the store: no new calls
    assert len(server.requests()) == calls
    _no_key_anywhere(tmp_path, whatif_home)


def test_cello_rewrites_through_openai(tmp_path: Path, fake_openai: Any,
                                       monkeypatch: pytest.MonkeyPatch, whatif_home: Path) -> None:
    server = _server(fake_openai, [
        {"contains": "Keep exactly the meaning", "reply": "Question: What happens then?"}])
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    sg, data, images = write_input(tmp_path / "in")
    assert main(["build", "cello", "--scene-graphs", str(sg), "--image-data", str(data),
                 "--images", str(images), "--per-task", "2", "--design", "paper",
                 "--model", "openai:fake-vlm", "--base-url", server.url,
                 "--out", str(tmp_path / "ds")]) == 0
    ds = load_dataset(tmp_path / "ds")
    rewrites = [i.provenance["rewrite"] for i in ds.items]
    # The reply names none of the required entities: every rewrite is rejected, the template
    # question is kept, and the exchange is recorded.
    assert rewrites and not any(r["accepted"] for r in rewrites)
    assert all(r["reply"] == "Question: What happens then?" and r["problems"] for r in rewrites)
    assert all(i.question != "What happens then?" for i in ds.items)
    assert ds.card.extra["rewrites"] == {"accepted": 0, "rejected": len(ds.items)}
    _no_key_anywhere(tmp_path, whatif_home)


def test_mucr_openai_judge(tmp_path: Path, fake_openai: Any, monkeypatch: pytest.MonkeyPatch,
                           whatif_home: Path) -> None:
    server = _server(fake_openai, [{"contains": "Score from 0", "reply": "7"}])
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    release = write_release(tmp_path / "release")
    import_mucr(release.jsonl, release.images, tmp_path / "ds", causal_reason="parts")
    items = load_dataset(tmp_path / "ds").items
    ScriptedModel.replies = {i.id: "1. A cause.\n2. An effect.\n3. A link." for i in items
                             if i.role == "exp"}
    assert main(["run", "--suite", str(tmp_path / "ds"), "--model", "test:mucr-script",
                 "--judge", "openai:fake-vlm", "--judge-arg", f"base_url={server.url}",
                 "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    run = load_runs(tmp_path / "out")[0]
    assert run.metrics["exp"] == pytest.approx(7.0)
    assert run.metrics["n_judge_failures"] == 0
    assert run.spec.judge.backend.spec == "openai:fake-vlm"
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert KEY not in json.dumps(results)
    _no_key_anywhere(tmp_path, whatif_home)
