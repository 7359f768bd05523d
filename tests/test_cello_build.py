"""``whatif build cello``: determinism, the items it writes, LLM rewriting, stats, bad inputs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from cello_fixtures import BEACH, SCENES, write_input

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.models.base import Backend
from whatifbench.suites.cello.build import build_cello
from whatifbench.suites.cello.causal.tasks import TASKS


@register("backend", "test:cello-scripted")
class ScriptedBackend(Backend):
    """Rewrites in turn: a good paraphrase, one that names a forbidden object, a non-question."""

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            prompt = request.prompt
            template = re.search(r'Keep exactly the meaning of: "(.*)"', prompt).group(1)
            forbidden = re.findall(r'"([^"]+)"', prompt.split("Do not include", 1)[1]
                                   .split("\n")[0]) if "Do not include" in prompt else []
            mode = ("good", "leak", "nonq")[i % 3]
            if mode == "good":
                text = "Looking at the picture: " + template[0].lower() + template[1:]
            elif mode == "leak" and forbidden:
                text = template[:-1] + f", with the {forbidden[0]} in view?"
            else:
                text = "Tell me about " + template.rstrip("?") + "."
            yield i, Response(text=f"Question: {text}\n")


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    return write_input(tmp_path / "in")


def test_build_is_deterministic(tmp_path: Path, inputs: tuple) -> None:
    sg, data, images = inputs
    for name in ("a", "b"):
        build_cello(sg, images, tmp_path / name, image_data=data, per_task=3, seed=5,
                    design="paper")
    for rel in ("items.jsonl", "card.json", "images/1001.jpg"):
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    build_cello(sg, images, tmp_path / "c", per_task=3, seed=5, design="paper")  # sizes: files
    assert (tmp_path / "c" / "items.jsonl").read_bytes() == \
        (tmp_path / "a" / "items.jsonl").read_bytes()


def test_build_is_byte_identical_across_processes(tmp_path: Path, inputs: tuple) -> None:
    sg, data, images = inputs
    src = Path(__file__).resolve().parents[1] / "src"
    for k, hash_seed in enumerate(("1", "2")):
        subprocess.run(
            [sys.executable, "-m", "whatifbench", "build", "cello", "--scene-graphs", str(sg),
             "--images", str(images), "--image-data", str(data), "--out", str(tmp_path / str(k)),
             "--per-task", "3", "--design", "paper"],
            env={**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": hash_seed},
            check=True, capture_output=True)
    for name in ("items.jsonl", "card.json"):
        assert (tmp_path / "0" / name).read_bytes() == (tmp_path / "1" / name).read_bytes()


def test_built_items(tmp_path: Path, inputs: tuple) -> None:
    sg, data, images = inputs
    card = build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=3, seed=0,
                       design="paper")
    ds = load_dataset(tmp_path / "ds")
    assert card.suite == "cello" and card.seed == 0
    assert set(card.counts["by_task"]) == set(TASKS)
    assert card.counts["by_rung"] == {"discovery": 7, "association": 2, "intervention": 5,
                                      "counterfactual": 15}
    for k, item in enumerate(ds.items):
        m = item.meta
        assert item.kind == "choice" and item.group == m["task_type"]
        assert m["data_id"] == k and item.images == (f"images/{m['img_id']}.jpg",)
        assert m["rung"] == TASKS[m["task_type"]].rung
        assert item.choices[m["answer_index"]] == item.target
        assert [n[0] for n in m["graph"]["nodes"]] == m["objs"]
        assert len(m["graph"]["edges"]) == {"direct": 1, "chain": 2, "confounding": 3,
                                            "collision": 2}[m["graph_type"]]
        node = m["graph"]["nodes"][0][1]
        assert set(node) == {"obj_name", "obj_synsets", "boxes", "position"}
        if m["format"] == "binary":
            assert item.choices == ("Yes", "No") and m["option_kinds"] is None
        else:
            assert len(item.choices) == 4 and m["option_kinds"][m["answer_index"]] == "correct"
        prov = item.provenance
        assert prov["seed"] == 0 and prov["rule"] == TASKS[m["task_type"]].rule
        assert prov["explanation"].endswith(f"So the answer is {item.target}.")
    beach = next(i for i in ds.items if i.meta["img_id"] == 1001)
    assert beach.meta["graph"]["nodes"][0][1]["position"] == "right_down"
    assert beach.meta["graph"]["edges"][0][2] == {"relation": "ON"}


def test_rewrite_accepted_or_fallback(tmp_path: Path, inputs: tuple) -> None:
    sg, data, images = inputs
    backend = ScriptedBackend("test:cello-scripted", {"api_key": "sk-secret", "temperature": 0})
    build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=3, seed=0,
                rewriter=backend, design="paper")
    ds = load_dataset(tmp_path / "ds")
    verdicts = []
    for k, item in enumerate(ds.items):
        record = item.provenance["rewrite"]
        template = item.provenance["template_question"]
        assert record["model"]["args"] == {"temperature": 0}          # no credentials kept
        if k % 3 == 0:
            assert record["accepted"] and item.question.startswith("Looking at the picture")
        elif k % 3 == 2:
            assert not record["accepted"] and item.question == template
            assert "it does not end with a question mark" in record["problems"]
        elif "Do not include" in record["prompt"]:
            assert not record["accepted"] and item.question == template
            assert any("would leak the answer" in p for p in record["problems"])
        verdicts.append(record["accepted"])
    assert any(not v for k, v in enumerate(verdicts) if k % 3 == 1)    # a leak was caught
    card = json.loads((tmp_path / "ds" / "card.json").read_text())
    assert card["extra"]["rewrites"] == {"accepted": sum(verdicts),
                                         "rejected": len(verdicts) - sum(verdicts)}
    assert "sk-secret" not in (tmp_path / "ds" / "items.jsonl").read_text()
    assert "sk-secret" not in (tmp_path / "ds" / "card.json").read_text()


def test_cli_build_with_registered_model(tmp_path: Path, inputs: tuple,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    sg, _, images = inputs
    code = main(["build", "cello", "--scene-graphs", str(sg), "--images", str(images),
                 "--out", str(tmp_path / "ds"), "--per-task", "2", "--seed", "1",
                 "--task", "sufficient_cause", "--task", "collider_bias", "--design", "paper",
                 "--model", "test:cello-scripted", "-M", "temperature=0"])
    assert code == 0
    ds = load_dataset(tmp_path / "ds")
    assert [i.group for i in ds.items] == ["collider_bias"] * 2 + ["sufficient_cause"] * 2
    assert "Wrote 4 items" in capsys.readouterr().out


def test_stats_on_dataset_and_input(tmp_path: Path, inputs: tuple,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    sg, data, images = inputs
    build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=3, seed=0,
                design="paper")
    assert main(["stats", str(tmp_path / "ds")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"counterfactual\s+15", out)
    assert re.search(r"collider_bias\s+0\s+0\s+0\s+2\s+2", out)
    assert re.search(r"multiple_choice\s+11", out)
    for args in ([str(sg)], ["--scene-graphs", str(sg)]):
        assert main(["stats", *args]) == 0
        out = capsys.readouterr().out
        assert re.search(r"next to\s+2", out) and re.search(r"behind\s+1", out)
        assert re.search(r"on\s+object->subject\s+4", out)
        assert re.search(r"confounding\s+1\s+1", out)


def test_stats_needs_a_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert "needs a DATASET folder or --scene-graphs FILE" in _fails(["stats"], capsys)


def test_scene_graphs_without_image_are_skipped(tmp_path: Path, inputs: tuple) -> None:
    sg, data, images = inputs
    (images / "1005.jpg").unlink()
    card = build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=2,
                       design="paper")
    assert card.counts["scene_graphs"]["without_image"] == 1
    assert 1005 not in {i.meta["img_id"] for i in load_dataset(tmp_path / "ds").items}


def _fails(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("whatif: error:")
    return err


def test_bad_build_inputs(tmp_path: Path, inputs: tuple,
                          capsys: pytest.CaptureFixture[str]) -> None:
    sg, _, images = inputs
    out = tmp_path / "ds"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([BEACH, {"objects": []}]))
    base = ["build", "cello", "--design", "paper", "--images", str(images), "--out", str(out)]
    err = _fails([*base, "--scene-graphs", str(bad)], capsys)
    assert "bad.json: record 1 has no integer 'image_id'" in err
    err = _fails(["build", "cello", "--scene-graphs", str(sg), "--images",
                  str(tmp_path / "nope"), "--out", str(out)], capsys)
    assert "image folder" in err and "does not exist" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    err = _fails(["build", "cello", "--scene-graphs", str(sg), "--images", str(empty),
                  "--out", str(out)], capsys)
    assert "None of the 5 scene graphs" in err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    err = _fails([*base[:-1], str(blocker / "ds"), "--scene-graphs", str(sg)], capsys)
    assert "Cannot create the folder" in err
    (images / "1001.jpg").write_bytes(b"not a jpeg")
    err = _fails([*base, "--scene-graphs", str(sg)], capsys)
    assert "1 image(s) cannot be read (first: 1001.jpg" in err
    err = _fails([*base, "--scene-graphs", str(sg), "--per-task", "0"], capsys)
    assert "--per-task must be at least 1, got 0." in err
    assert not out.exists()
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    err = _fails([*base, "--scene-graphs", str(sg), "--model", "test:cello-scripted"], capsys)
    assert "already exists and is not empty" in err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert json.loads(sg.read_text()) == SCENES            # the input is untouched


class FlakyBackend(Backend):
    """Fails the first call it is given, answers the others with the template unchanged."""

    calls = 0

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            FlakyBackend.calls += 1
            if FlakyBackend.calls == 1:
                yield i, Response(error="HTTP 503 after 5 attempts")
                continue
            template = re.search(r'Keep exactly the meaning of: "(.*)"', request.prompt).group(1)
            yield i, Response(text=template)


def test_rewrite_failures_write_nothing_and_rerun_retries_only_them(
        tmp_path: Path, inputs: tuple) -> None:
    from whatifbench.errors import WhatifError
    from whatifbench.runner.store import RunStore

    sg, data, images = inputs
    store = RunStore(tmp_path / "store.sqlite")
    backend = FlakyBackend("test:flaky", {})
    with pytest.raises(WhatifError, match="1 of .* rewrite calls .* failed"):
        build_cello(sg, images, tmp_path / "out", image_data=data, per_task=2, seed=1,
                    rewriter=backend, store=store, design="paper")
    assert not (tmp_path / "out").exists()
    first = FlakyBackend.calls
    build_cello(sg, images, tmp_path / "out", image_data=data, per_task=2, seed=1,
                rewriter=backend, store=store, design="paper")
    assert FlakyBackend.calls == first + 1          # only the failed call was made again
    build_cello(sg, images, tmp_path / "again", image_data=data, per_task=2, seed=1,
                rewriter=backend, store=store, design="paper")
    assert FlakyBackend.calls == first + 1          # a repeat is served from the store
    assert (tmp_path / "out" / "items.jsonl").read_bytes() == \
        (tmp_path / "again" / "items.jsonl").read_bytes()
