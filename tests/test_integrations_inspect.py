"""inspect_ai tasks: an eval with inspect's mockllm model completes on every suite and its
scorer's metrics equal whatifbench's own metrics on the same replies; the tasks are registered
with inspect (CLI, through the entry point); defaults and bad inputs."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from interop_util import kind_datasets  # noqa: F401  (session fixture)

from whatifbench.core.dataset import load_dataset
from whatifbench.errors import WhatifError
from whatifbench.integrations.common import prompts
from whatifbench.integrations.replay import ReplayBackend, replay

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai.log import resolve_sample_attachments  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from whatifbench.core.suite import suite_for  # noqa: E402
from whatifbench.integrations.inspect import (  # noqa: E402
    cello,
    cfmm,
    cvqa_real,
    cvqa_synthetic,
    mucr,
)

REPLIES = ("A", "(B)", "The answer is C.", "D: 7", "3", "There would be 12.", "yes",
           "No, it would not.", "I cannot tell.", "Yes", "No",
           "1. A ball rolls.\n2. The stack falls.\n3. The ball hits the stack, so it topples.")
"""Replies the scripted model picks from by a hash of the prompt (some right, many wrong)."""


def scripted(messages: list[Any], *_: Any) -> ModelOutput:
    """A deterministic reply per conversation (usage given: no token counting, no network)."""
    text = json.dumps([m.text for m in messages])
    reply = REPLIES[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(REPLIES)]
    output = ModelOutput.from_content(model="mockllm/model", content=reply)
    output.usage = ModelUsage(input_tokens=10, output_tokens=len(reply),
                              total_tokens=10 + len(reply))
    return output


def run_eval(task: Any, tmp_path: Path, **kwargs: Any) -> Any:
    model = get_model("mockllm/model", custom_outputs=scripted)
    (log,) = inspect_ai.eval(task, model=model, log_dir=str(tmp_path / "logs"),
                             display="none", **kwargs)
    assert log.status == "success", log.error
    return log


TASKS = {"choice": (cvqa_synthetic, "cvqa-synthetic"), "number-yes-no": (cvqa_real, "cvqa-real"),
         "cfmm": (cfmm, "cfmm"), "cello": (cello, "cello"), "multi-image": (mucr, "mucr")}


@pytest.mark.parametrize("kind", sorted(TASKS))
def test_metrics_equal_ours_on_the_same_replies(kind: str, kind_datasets,  # noqa: F811
                                                tmp_path: Path) -> None:
    factory, suite = TASKS[kind]
    folder = kind_datasets(kind)
    log = run_eval(factory(dataset=str(folder)), tmp_path)
    data = load_dataset(folder)
    assert sorted(str(s.id) for s in log.samples) == sorted(item.id for item in data.items)
    theirs = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert set(theirs) == set(suite_for(suite).reported_metrics(data.items))

    replies = {str(s.id): s.output.completion for s in log.samples}
    assert len(set(replies.values())) > 2
    run = replay(data, ReplayBackend("inspect:mockllm", {}, replies, "test"),
                 {"tool": "inspect"})
    ours, ours_samples = run.metrics, {s.item_id: s for s in run.samples}
    for name, value in theirs.items():
        if ours[name] is None:
            assert math.isnan(value), name
        else:
            assert value == pytest.approx(ours[name]), name
    # Each sample's score is whatifbench's verdict; the prompt is ours, images included.
    posed = prompts(data)
    items = {item.id: item for item in data.items}
    for sample in map(resolve_sample_attachments, log.samples):
        item = items[str(sample.id)]
        content = sample.input[-1].content
        assert content[-1].text == posed[item.id]
        images = [c for c in content if c.type == "image"]
        assert [base64.b64decode(c.image.split("base64,", 1)[1]) for c in images] == [
            (folder / rel).read_bytes() for rel in item.images]
        assert sample.scores["whatif_answer"].answer == ours_samples[item.id].prediction


def test_default_suite_and_limits(tmp_path: Path) -> None:
    log = run_eval(cvqa_synthetic(), tmp_path, limit=4)  # no dataset: the small default suite
    assert len(log.samples) == 4 and log.eval.dataset.samples == 600
    with pytest.raises(WhatifError, match="-T dataset=DIR"):
        cvqa_real()


def test_wrong_suite_and_prompt(kind_datasets) -> None:  # noqa: F811
    with pytest.raises(WhatifError, match="whatifbench/cvqa_synthetic"):
        cello(dataset=str(kind_datasets("choice")))
    with pytest.raises(WhatifError, match="chat server"):
        cello(dataset=str(kind_datasets("cello")), prompt="paper:llava")  # raw local template
    with pytest.raises(WhatifError, match="no prompt 'nonsense'"):
        cvqa_synthetic(dataset=str(kind_datasets("choice")), prompt="nonsense")


def test_inspect_cli_runs_the_registered_task(kind_datasets, fake_openai,  # noqa: F811
                                              tmp_path: Path) -> None:
    pytest.importorskip("openai")  # inspect's OpenAI-compatible provider needs it
    server = fake_openai({})
    folder = kind_datasets("choice")
    env = {**os.environ, "FAKE_BASE_URL": server.url, "FAKE_API_KEY": "test-key"}
    done = subprocess.run(
        [Path(sys.executable).with_name("inspect"), "eval", "whatifbench/cvqa_synthetic",
         "-T", f"dataset={folder}", "--model", "openai-api/fake/vlm", "--log-dir",
         str(tmp_path / "logs"), "--display", "none"],
        capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = (tmp_path / "logs").glob("*.eval")
    log = inspect_ai.log.read_eval_log(str(path))
    assert log.status == "success" and len(log.samples) == len(load_dataset(folder).items)
    assert {r["images"] for r in server.requests()} == {1}
    assert log.results.scores[0].metrics["pair_accuracy"].value >= 0


def test_cello_paper_prompt_is_the_release_api_request(kind_datasets) -> None:  # noqa: F811
    """``prompt=paper`` poses CELLO as the release asks API models (an inspect model is a chat
    API): the system message, one user text ending in the answer phrase, then the image."""
    task = cello(dataset=str(kind_datasets("cello")), prompt="paper")
    sample = task.dataset[0]
    system, user = sample.input
    assert system.role == "system" and system.text.startswith("Output your choice")
    assert [part.type for part in user.content] == ["text", "image"]
    assert user.content[0].text.endswith("The best answer is: (")
