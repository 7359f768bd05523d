"""``builtin:scene-reader``: perception, question parsing (case table) and accuracy."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from scene_builders import DOTS_PER_CIRCLE, dot_scene, flower_scene

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.models.builtin.reader.perceive import TOLERANCE, perceive, tint_table, trace
from whatifbench.models.builtin.reader.questions import ParseError, parse
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.store import RunStore
from whatifbench.scenes import Count, Where
from whatifbench.scenes.palette import RELEASE_COLORS
from whatifbench.scenes.render import render_png
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator

CASES = json.loads((Path(__file__).parent / "cases" / "cvqa_synthetic_questions.json")
                   .read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["question"][:60] for c in CASES])
def test_question_parsing_case_table(case: dict) -> None:  # type: ignore[type-arg]
    if "error" in case:
        with pytest.raises(ParseError, match=case["error"]):
            parse(case["question"])
        return
    query = parse(case["question"])
    assert query.program.to_json() == case["program"]
    assert [i.to_json() for i in query.interventions] == case["interventions"]
    assert list(query.options) == case["options"]


def test_every_release_sample_question_parses(shared_dir: Path) -> None:
    import csv

    with open(shared_dir / "data/cvqa/C-VQA-Synthetic_questions_sample.csv",
              encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            for question in (row["query"], row["new query"]):
                assert len(parse(question).options) == 4


def d2(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))


def test_tints_are_distinguishable() -> None:
    """Single tints are far apart and from every overlap; for each pair of polygon colours the
    tints it can show are far apart, so a small colour error cannot change a region."""
    singles = tint_table(pairs=False)
    everything = tint_table()
    for a in singles:
        assert d2(a, (255, 255, 255)) > 4 * TOLERANCE
        for b in everything:
            if b != a:
                assert d2(a, b) > TOLERANCE
        for b in singles:
            if b != a:
                assert d2(a, b) > 4 * TOLERANCE
    for pair in combinations(RELEASE_COLORS, 2):
        table = tint_table(pair)
        for a, names_a in table.items():
            for b, names_b in table.items():
                if set(names_a) != set(names_b):  # the overlap's order does not matter
                    assert d2(a, b) > 4 * TOLERANCE, pair


def test_trace_follows_a_mask_outline() -> None:
    import numpy as np

    mask = np.zeros((6, 7), dtype=bool)
    mask[1:4, 1:5] = True
    assert trace(mask) == [(1, 1), (2, 1), (3, 1), (4, 1), (4, 2), (4, 3), (3, 3), (2, 3),
                           (1, 3), (1, 2)]


def test_perceives_a_hand_built_flower_scene(tmp_path: Path) -> None:
    scene = flower_scene()
    path = tmp_path / "f.png"
    path.write_bytes(render_png(scene))
    seen = perceive(path)
    shapes = Counter(o.shape for o in seen.objects)
    assert shapes == {"polygon": 2, "flower": 8}
    assert sorted(o.color for o in seen.objects if o.shape == "polygon") == ["blue", "red"]
    for color, n in (("red", 3), ("blue", 3)):
        program = Count(Where(shape="flower", within=Where(shape="polygon", color=color)))
        assert program.execute(seen) == program.execute(scene) == n


def test_perceives_a_hand_built_dot_scene(tmp_path: Path) -> None:
    path = tmp_path / "d.png"
    path.write_bytes(render_png(dot_scene()))
    seen = perceive(path)
    circles = sorted((o for o in seen.objects if o.shape == "circle"), key=lambda c: (c.y, c.x))
    assert len(circles) == 6 and all(abs(c.size - 40) <= 1 for c in circles)
    from whatifbench.scenes.geometry import within

    dots = [o for o in seen.objects if o.shape == "dot"]
    by_row = [sum(within(d, c) for d in dots) for c in circles]
    assert sorted(by_row) == sorted(DOTS_PER_CIRCLE)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reader") / "suite"
    CvqaSyntheticGenerator.generate(out, per_template=20, seed=11, workers=2)
    return out


def test_scene_reader_is_at_least_99_percent_right(suite: Path, tmp_path: Path) -> None:
    store = RunStore(tmp_path / "store.sqlite")
    try:
        [run] = api.run_all([suite], ["builtin:scene-reader"], store=store,
                            options=RunOptions(progress=False))
    finally:
        store.close()
    m = run.metrics
    assert m["original_accuracy"] >= 99.0 and m["counterfactual_accuracy"] >= 99.0, m
    for group, gm in m["by_group"].items():
        assert gm["original_accuracy"] >= 95.0 and gm["counterfactual_accuracy"] >= 95.0, group


def test_scene_reader_reads_neither_target_nor_metadata(suite: Path) -> None:
    data = load_dataset(suite)
    backend = make_backend("builtin:scene-reader", {})
    for item in data.items[::7]:
        request = Request(item.id, (Turn("user", (Part(image=str(suite / item.images[0])),
                                                  Part(text=item.question))),), item=item)
        wrong = next(c for c in item.choices if c != item.target)
        tampered = dataclasses.replace(item, target=wrong, meta={}, provenance={},
                                       group=None, pair_id=None, role=None)
        request_t = dataclasses.replace(request, item=tampered)
        assert backend.answer(tampered, request_t) == backend.answer(item, request)
        assert backend.answer(item, request) == item.target


def test_scene_reader_abstains_when_it_cannot_read(suite: Path, tmp_path: Path) -> None:
    data = load_dataset(suite)
    backend = make_backend("builtin:scene-reader", {})
    item = data.items[0]
    odd = dataclasses.replace(item, question="How many cats are there? Select the correct "
                              "answer:A:1  B:2  C:3  D:4")
    request = Request(item.id, (Turn("user", (Part(image=str(suite / item.images[0])),
                                              Part(text=odd.question))),), item=odd)
    assert backend.answer(odd, request) is None
    blank = tmp_path / "blank.png"
    from PIL import Image

    Image.new("RGB", (64, 64), "white").save(blank)
    request = Request(item.id, (Turn("user", (Part(image=str(blank)),
                                              Part(text=item.question))),), item=item)
    assert backend.answer(item, request) is None  # 0 flowers is not among the options
