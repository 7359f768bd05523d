"""mucr-synthetic: the mechanics on hand-built worlds, the generator (determinism, groups,
computed effects and explanations), exact perception, and ``builtin:scene-reader`` on both
image layouts."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.models.builtin.reader.pairs import read_pair
from whatifbench.models.builtin.reader.see_bodies import load_rgb, perceive_world, tiles
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder, composite_file
from whatifbench.scenes.bodies import GAP, Body, World, to_scene, world_distance
from whatifbench.scenes.mechanics import PUDDLE_HEIGHT, consequence
from whatifbench.scenes.narrate import explain
from whatifbench.scenes.render import render_png
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator

GROUND = Body("ground", "ground", "gray", 0, 200, 319, 239)
FLOOR = 200 - GAP - 1


def _on(body_id: str, kind: str, color: str, x0: int, w: int, h: int, below: int) -> Body:
    """A body of width ``w``, height ``h`` resting on a surface whose top row is ``below``."""
    y1 = below - GAP - 1
    return Body(body_id, kind, color, x0, y1 - h + 1, x0 + w - 1, y1)


def test_a_rolling_ball_topples_the_stack_in_its_way() -> None:
    a = _on("a", "block", "red", 100, 30, 20, 200)
    b = _on("b", "block", "blue", 100, 30, 24, a.y0)
    far = _on("far", "block", "green", 250, 30, 20, 200)
    ball = Body("ball", "ball", "pink", 50, FLOOR - 24, 74, FLOOR, facing=1)
    world = World(320, 240, (GROUND, a, b, far, ball))
    after, events = consequence(world, "ball")
    lying_a, lying_b = after.get("a"), after.get("b")
    # turned on their side, on the ground, bottom block nearest the stack's foot
    assert (lying_a.width, lying_a.height) == (20, 30) and lying_a.y1 == FLOOR
    assert (lying_b.width, lying_b.height) == (24, 30) and lying_b.y1 == FLOOR
    assert lying_a.x0 == a.x1 + GAP + 1 and lying_b.x0 == lying_a.x1 + GAP + 1
    assert after.get("far") == far
    stopped = after.get("ball")
    assert stopped.facing == 0 and abs(stopped.cx - a.cx) <= 1
    assert [(e.what, e.body) for e in events] == [("toppled", "a"), ("toppled", "b"),
                                                  ("stopped", "ball")]
    resting = dataclasses.replace(ball, facing=0)
    assert consequence(world.with_bodies((GROUND, a, b, far, resting)), "ball")[0].bodies == \
        (GROUND, a, b, far, resting)


def test_a_flame_melts_the_ice_and_what_it_held_drops_onto_the_puddle() -> None:
    ice = _on("ice", "ice", "cyan", 100, 30, 28, 200)
    top = _on("top", "block", "red", 102, 26, 20, ice.y0)
    flame = _on("flame", "flame", "orange", 80, 14, 22, 200)
    cold = _on("cold", "ice", "cyan", 220, 30, 28, 200)
    far_flame = _on("far-flame", "flame", "red", 290, 14, 22, 200)
    world = World(320, 240, (GROUND, ice, top, flame, cold, far_flame))
    after, events = consequence(world, "flame")
    puddle = after.get("ice")
    assert puddle.kind == "puddle" and puddle.height == PUDDLE_HEIGHT and puddle.y1 == 199
    assert after.get("top").y1 == puddle.y0 - GAP - 1
    assert after.get("cold") == cold  # no flame beside it
    assert {(e.what, e.body, e.onto) for e in events} == {("melted", "ice", None),
                                                          ("fell", "top", "ice")}
    assert consequence(world, "far-flame")[0] == world
    cause, effect, link = explain(world, "flame", after, events)
    assert "orange flame" in cause and "red block" in effect and "melts the ice" in link


def test_scissors_cut_the_rope_and_the_block_lands_on_what_is_below() -> None:
    beam = Body("beam", "beam", "brown", 8, 16, 311, 23)
    base = _on("base", "block", "blue", 90, 30, 24, 200)
    held = Body("held", "block", "red", 95, 70, 118, 93)
    rope = Body("rope", "rope", "black", 106, 27, 107, 70 - GAP - 1)
    other = Body("other", "block", "green", 195, 70, 220, 90)
    rope2 = Body("rope2", "rope", "black", 207, 27, 208, 70 - GAP - 1)
    scissors = Body("cut", "scissors", "purple", 86, 40, 103, 57)
    world = World(320, 240, (GROUND, beam, base, held, rope, other, rope2, scissors))
    after, events = consequence(world, "cut")
    assert after.get("held").y1 == base.y0 - GAP - 1 and after.get("held").x0 == held.x0
    assert after.get("other") == other and after.get("rope2") == rope2
    assert after.get("rope").height == 8
    assert [(e.what, e.body, e.onto) for e in events] == [("cut", "rope", None),
                                                          ("fell", "held", "base")]
    assert explain(world, "cut", after, events)[1] == (
        "The rope has been cut and the red block has fallen onto the blue block.")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mucr-synthetic") / "ds"
    assert main(["generate", "mucr-synthetic", "--out", str(out), "--groups", "6",
                 "--seed", "3"]) == 0
    return out


def test_generation_is_deterministic_and_seeded(dataset: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    MucrSyntheticGenerator.generate(again, groups=6, seed=3)
    for name in ("items.jsonl", "card.json"):
        assert (again / name).read_bytes() == (dataset / name).read_bytes()
    other = tmp_path / "other"
    MucrSyntheticGenerator.generate(other, groups=6, seed=4)
    assert (other / "items.jsonl").read_bytes() != (dataset / "items.jsonl").read_bytes()


def test_groups_share_kind_and_style_and_effects_are_computed(dataset: Path) -> None:
    data = load_dataset(dataset)
    assert data.card.suite == "mucr" and data.card.counts["pairs"] == 24
    cue_items = [i for i in data.items if i.group == "cue"]
    groups: dict[tuple[str, ...], list] = {}
    for item in cue_items:
        groups.setdefault(tuple(item.meta["group_of_four"]), []).append(item)
    assert len(groups) == 6 and all(len(g) == 4 for g in groups.values())
    kinds = Counter()
    for members in groups.values():
        assert len({(i.meta["category"], i.meta["style"]) for i in members}) == 1
        kinds[(members[0].meta["category"], members[0].meta["style"])] += 1
        agents = {i.target for i in members}
        assert len(agents) == 4  # a different visual cue in each pair
    assert set(kinds) == {(k, s) for k in ("topple", "melt", "cut")
                          for s in ("flat", "outline")}
    spent = data.card.generator["params"]["design"] == "shortcut-free"  # agents used up
    for item in cue_items:
        scene = item.provenance["scene"]
        cause = World.from_json(scene["cause"])
        effect, events = consequence(cause, scene["agent"], spent=spent)
        assert effect == World.from_json(scene["effect"])
        assert [e.to_json() for e in events] == scene["events"]
        assert item.target not in [c for c in item.choices if c != item.target]
        exp = next(i for i in data.items if i.pair_id == item.pair_id and i.group == "exp")
        assert exp.meta["references"] == [[t] for t in explain(cause, scene["agent"], effect,
                                                                events)]
        assert item.provenance["seed"] == 3 and item.provenance["generator"] == "mucr-synthetic"
    positions = data.card.extra["answer_positions"]
    assert all(max(v.values()) - min(v.values()) <= 1 for v in positions.values())


def test_perception_recovers_every_world_exactly(dataset: Path) -> None:
    data = load_dataset(dataset)
    for item in (i for i in data.items if i.group == "cue"):
        scene = item.provenance["scene"]
        pictures = [dataset / p for p in item.images]
        for key, path in zip(("cause", "effect"), pictures, strict=True):
            seen = perceive_world(load_rgb(path))
            assert world_distance(seen, World.from_json(scene[key])) == 0.0, (item.id, key)
        both = composite_file([str(p) for p in pictures], ["Cause", "Effect"])
        for key, tile in zip(("cause", "effect"), tiles(load_rgb(both), 2), strict=True):
            assert world_distance(perceive_world(tile), World.from_json(scene[key])) == 0.0


def test_styles_draw_the_same_world_differently() -> None:
    block = _on("a", "block", "red", 100, 30, 20, 200)
    world = World(320, 240, (GROUND, block))
    flat, line = (render_png(to_scene(world, s)) for s in ("flat", "outline"))
    assert flat != line
    with pytest.raises(ValueError, match="unknown style"):
        to_scene(world, "sketch")


@pytest.mark.parametrize("layout", ["multi", "composite"])
def test_scene_reader_meets_the_bar(dataset: Path, tmp_path: Path, layout: str) -> None:
    out = tmp_path / "run"
    assert main(["run", "--suite", str(dataset), "--model", "builtin:scene-reader", "--out",
                 str(out), "--image-layout", layout, "--no-progress"]) == 0
    run = json.loads((out / "results.json").read_text())["runs"][0]
    m = run["metrics"]
    assert min(m["c2e"], m["e2c"], m["cue"]) >= 95.0, m
    assert m["exp"] >= 9.0 and m["unparsed"] == 0.0
    assert set(m["by_category"]) == {"topple", "melt", "cut"}
    assert set(m["by_style"]) == {"flat", "outline"}


def test_scene_reader_reads_neither_target_nor_metadata(dataset: Path) -> None:
    data = load_dataset(dataset)
    backend = make_backend("builtin:scene-reader", {})
    builder = RequestBuilder(get_suite("mucr"), Protocol(), data)
    for item in data.items[::3]:
        request = builder.build(item)
        wrong = next((c for c in item.choices if c != item.target), "x")
        tampered = dataclasses.replace(item, target=wrong, meta={}, provenance={},
                                       group=None, pair_id=None, role=None)
        answer = backend.answer(tampered, dataclasses.replace(request, item=tampered))
        assert answer == backend.answer(item, request)
        if item.kind == "choice":
            assert answer == item.target, item.id


def test_reader_abstains_on_pictures_it_cannot_read(dataset: Path, tmp_path: Path) -> None:
    data = load_dataset(dataset)
    item = next(i for i in data.items if i.group == "c2e")
    blank = tmp_path / "blank.png"
    from PIL import Image

    Image.new("RGB", (64, 64), "white").save(blank)
    assert read_pair(item.question, [str(blank)] * 5, item.choices) is None
    assert read_pair(item.question, [str(blank)] * 3, item.choices) is None
    assert read_pair("How many dots are there?", [str(blank)], ()) is None


def test_bad_group_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "mucr-synthetic", "--out", str(tmp_path / "x"),
                 "--groups", "0"]) == 2
    assert "--groups must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
