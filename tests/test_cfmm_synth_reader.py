"""``builtin:scene-reader`` on CFMM-Synthetic (solid-shape perception, question parsing,
accuracy) and CFMM runs of generated data end to end (scene reader, tiny LLaVA ranking)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.models.builtin.reader.questions import ParseError, parse
from whatifbench.models.builtin.reader.shapes import perceive_shapes
from whatifbench.runner.backends import make_backend
from whatifbench.scenes.geometry import area
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.render import render_png
from whatifbench.scenes.verbal import pointing, seen_shape
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator

CASES = json.loads((Path(__file__).parent / "cases" / "cfmm_synthetic_questions.json")
                   .read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["question"][:60] for c in CASES])
def test_question_parsing_case_table(case: dict) -> None:  # type: ignore[type-arg]
    if "error" in case:
        with pytest.raises(ParseError, match=case["error"]):
            parse(case["question"])
        return
    query = parse(case["question"])
    assert query.scene_kind == "shapes" and query.options == ()
    assert query.program.to_json() == case["program"]
    assert [i.to_json() for i in query.interventions] == case["interventions"]


def _every_shape() -> Scene:
    specs = [("circle", 0, 1, 1), ("circle", 0, 1, 0.5), ("square", 0, 1, 1),
             ("rectangle", 0, 1, 1), ("rectangle", 0, 0.5, 2), ("triangle", 0, 1, 1),
             ("triangle", 90, 1, 1), ("triangle", 180, 1, 1), ("triangle", 270, 1, 1),
             ("diamond", 0, 1, 1), ("hexagon", 0, 1, 1), ("star", 0, 1, 1), ("cross", 0, 1, 1)]
    colors = ["red", "green", "blue", "yellow", "purple", "orange", "pink", "black", "gray",
              "brown", "cyan", "red", "green"]
    objects = []
    for i, ((shape, angle, sx, sy), color) in enumerate(zip(specs, colors, strict=True)):
        x, y = 60 + 110 * (i % 4), 60 + 110 * (i // 4)
        objects.append(SceneObject(f"o{i}", shape, color, x + 0.3 * i, y - 0.2 * i,
                                   16 + 1.5 * i, angle, sx, sy))
    return Scene(448, 448, tuple(objects))


def _name(obj: SceneObject) -> str | None:
    return seen_shape(obj)


def test_perceives_every_shape_of_a_hand_built_scene(tmp_path: Path) -> None:
    scene = _every_shape()
    path = tmp_path / "shapes.png"
    path.write_bytes(render_png(scene))
    seen = perceive_shapes(path)
    assert len(seen.objects) == len(scene.objects)
    for obj in scene.objects:
        got = min(seen.objects, key=lambda o: math.hypot(o.x - obj.x, o.y - obj.y))
        assert math.hypot(got.x - obj.x, got.y - obj.y) < 1.5, obj
        assert (_name(got), got.color) == (_name(obj), obj.color), obj
        assert abs(area(got) / area(obj) - 1) < 0.1, obj
        if obj.shape == "triangle":
            assert pointing(got)[0] == pointing(obj)[0]
    assert sorted(o.id for o in seen.objects)[:3] == ["circle-1", "circle-2", "cross-1"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cfmm-reader") / "suite"
    CfmmSyntheticGenerator.generate(out, per_category=40, seed=11, workers=2)
    return out


def test_every_generated_question_parses(suite: Path) -> None:
    for item in load_dataset(suite).items:
        assert parse(item.question).scene_kind == "shapes", item.question
    assert parse("How many dots are there in all the circles together? Select the correct "
                 "answer:A:1  B:2  C:3  D:4").scene_kind == "counting"


def test_scene_reader_run_gives_the_cfmm_tables(suite: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--suite", str(suite), "--model", "builtin:scene-reader", "--out",
                 str(out), "--no-progress"]) == 0
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    assert m["acc_b"] >= 99.0 and m["acc_c"] >= 99.0, (m["acc_b"], m["acc_c"])
    assert set(m["by_category"]) == {"count", "color", "size", "shape", "direction"}
    for category, cm in m["by_category"].items():
        assert cm["acc_b"] >= 95.0 and cm["acc_c"] >= 95.0, category
    report = (out / "report.md").read_text()
    assert "CFMM (Table 2 layout)" in report and "CFMM (Table 3 layout)" in report
    assert "| builtin:scene-reader | 0-shot |" in report
    assert "CFMM (Table 2 layout)" in capsys.readouterr().out


def test_scene_reader_reads_neither_target_nor_metadata(suite: Path) -> None:
    backend = make_backend("builtin:scene-reader", {})
    for item in load_dataset(suite).items[::9]:
        request = Request(item.id, (Turn("user", (Part(image=str(suite / item.images[0])),
                                                  Part(text=item.question))),), item=item)
        wrong = next(c for c in item.choices if c != item.target)
        tampered = dataclasses.replace(item, target=wrong, meta={}, provenance={}, group=None,
                                       pair_id=None, role=None)
        request_t = dataclasses.replace(request, item=tampered)
        assert backend.answer(tampered, request_t) == backend.answer(item, request)
        assert backend.answer(item, request) == item.target


def test_tiny_llava_ranks_the_options_of_a_generated_suite(
        tiny_llava: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "small"
    CfmmSyntheticGenerator.generate(data, per_category=2, seed=3, workers=1)
    out = tmp_path / "run"
    code = main(["run", "--suite", str(data), "--model", f"hf:{tiny_llava}", "--answer-mode",
                 "rank", "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    run = json.loads((out / "results.json").read_text())["runs"][0]
    assert run["spec"]["protocol"]["answer_mode"] == "rank" and run["n_items"] == 20
    assert run["metrics"]["n_pairs"] == 10 and run["metrics"]["by_category"]["count"]["n_pairs"]
    choices = {i.id: i.choices for i in load_dataset(data).items}
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    for s in samples:  # each option text scored as the reply (no text generated)
        assert len(s["scores"]) == 2 and s["response"] is None
        assert s["prediction"] in choices[s["item_id"]]
    report = (out / "report.md").read_text()
    assert "CFMM (Table 2 layout)" in report and "CFMM (Table 3 layout)" in report
