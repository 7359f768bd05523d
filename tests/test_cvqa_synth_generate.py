"""The C-VQA-Synthetic generator: format, determinism, balance, ranges, geometry."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.scenes.geometry import edge_array, footprint, segment_distances
from whatifbench.scenes.render import render_png
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator, plan
from whatifbench.suites.cvqa.synthetic.options import balanced_letters
from whatifbench.suites.cvqa.synthetic.pair import sample
from whatifbench.suites.cvqa.synthetic.templates import RANGES, dot_counts

SUFFIX = re.compile(r" Select the correct answer:A:(\d+)  B:(\d+)  C:(\d+)  D:(\d+)\Z")
PER = 12


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "suite"
    CvqaSyntheticGenerator.generate(out, per_template=PER, seed=0, workers=2, design="paper")
    return out


def files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): sha256_file(p)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_items_follow_the_release_format(suite: Path) -> None:
    data = load_dataset(suite)
    assert len(data.items) == 2 * 6 * PER
    assert data.card.generator["params"]["per_template"] == PER
    for number, pair in enumerate(data.pairs().values(), start=1):
        orig, cf = pair
        template = (number - 1) // PER + 1
        name = f"abs_counting_{number:06d}.png"
        assert (orig.role, cf.role) == ("original", "counterfactual")
        assert orig.images == cf.images == (f"images/{name}",)
        assert orig.id == f"abs_counting_{number:06d}:original" and orig.pair_id == name[:-4]
        assert orig.group == cf.group == f"abs_counting_{template}"
        assert orig.meta == {"template": template, "image": name}
        for item in pair:
            options = SUFFIX.search(item.question)
            assert options, item.question
            assert item.kind == "choice" and item.choices == options.groups()
            values = [int(v) for v in item.choices]
            value = int(item.target)
            assert len(set(values)) == 4 and min(values) >= 0
            assert all(-5 <= v - value <= 6 for v in values)
            prov = item.provenance
            assert prov["seed"] == 0 and prov["template"] == template
            assert prov["answer"] == value and prov["program"]["program"]
            assert prov["explanation"].endswith(".") and str(value) in prov["explanation"]
        assert "interventions" in cf.provenance and "premise" in cf.provenance
        assert cf.question.startswith(cf.question.split(" if ")[0])
        assert cf.provenance["premise"] in cf.question
        assert orig.target != cf.target  # every premise changes the answer


def test_answers_are_in_the_release_ranges(suite: Path) -> None:
    for item in load_dataset(suite).items:
        template = item.meta["template"]
        low, high = RANGES[template][item.role == "counterfactual"]
        assert low <= int(item.target) <= high, (item.id, item.target)
    card = json.loads((suite / "card.json").read_text())
    ranges = card["extra"]["balance"]["answer_ranges"]
    assert set(ranges) == {f"abs_counting_{k}" for k in range(1, 7)}


def test_same_seed_is_byte_identical_across_worker_counts(suite: Path, tmp_path: Path) -> None:
    CvqaSyntheticGenerator.generate(tmp_path / "one", per_template=PER, seed=0, workers=1,
                                    design="paper")
    assert files(tmp_path / "one") == files(suite)


def test_another_seed_gives_another_dataset(suite: Path, tmp_path: Path) -> None:
    CvqaSyntheticGenerator.generate(tmp_path / "s1", per_template=PER, seed=1, workers=1,
                                    design="paper")
    other = files(tmp_path / "s1")
    mine = files(suite)
    assert other["items.jsonl"] != mine["items.jsonl"]
    assert all(other[k] != mine[k] for k in mine if k.startswith("images/"))


def test_letters_are_balanced_per_role_and_template() -> None:
    jobs = plan(100, seed=5)
    for role in (0, 1):
        for template in range(1, 7):
            shares = Counter(j.letters[role] for j in jobs if j.template == template)
            assert shares == {0: 25, 1: 25, 2: 25, 3: 25}
    counts = Counter(balanced_letters(10, random.Random(0)))
    assert sorted(counts.values()) == [2, 2, 3, 3]


def test_card_records_balance(suite: Path) -> None:
    card = json.loads((suite / "card.json").read_text())
    shares = card["extra"]["balance"]["letter_share_percent"]
    for role in ("original", "counterfactual"):
        assert sum(shares[role].values()) == pytest.approx(100)
        assert all(22 <= v <= 28 for v in shares[role].values())
    assert card["seed"] == 0 and card["generator"]["name"] == "cvqa-synthetic"
    assert set(card["extra"]["balance"]["n_ranges"]) == {"abs_counting_2", "abs_counting_4"}


def test_scene_geometry_of_every_generated_image(suite: Path) -> None:
    """Re-draw each image's scene from its seed; it must be the image on disk, and valid."""
    for job in plan(PER, seed=0, design="paper"):
        s = sample(job.template, random.Random(job.image_seed))
        assert render_png(s.scene, canonical=job.design != "paper") == (  # paper: as drawn
            suite / "images" / job.name).read_bytes()
        objects = s.scene.objects
        if job.template <= 3:
            polygons = [o for o in objects if o.shape == "polygon"]
            flowers = [o for o in objects if o.shape == "flower"]
            assert len(polygons) == 2 and polygons[0].color != polygons[1].color
            for f in flowers:  # never on a polygon's line
                for p in polygons:
                    d = segment_distances(np.array([f.x]), np.array([f.y]), edge_array(p)).min()
                    assert d > footprint(f) + p.line_width
            for i, a in enumerate(flowers):  # never on another flower
                for b in flowers[i + 1:]:
                    assert (a.x - b.x) ** 2 + (a.y - b.y) ** 2 > (a.size + b.size) ** 2
        else:
            circles = [o for o in objects if o.shape == "circle"]
            dots = [o for o in objects if o.shape == "dot"]
            assert len(circles) == 6
            for d in dots:  # fully inside exactly one circle, clear of its line
                holders = [c for c in circles
                           if ((d.x - c.x) ** 2 + (d.y - c.y) ** 2) ** 0.5 + d.size
                           < c.size - c.line_width]
                assert len(holders) == 1
            for i, a in enumerate(dots):
                for b in dots[i + 1:]:
                    assert (a.x - b.x) ** 2 + (a.y - b.y) ** 2 > (a.size + b.size) ** 2
            if job.template == 6:
                counts = sorted(dot_counts(s.scene), reverse=True)
                assert counts[0] > counts[1]  # the maximum is unique


def test_cli_generate_and_bad_parameters(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    out = tmp_path / "d"
    assert main(["generate", "cvqa-synthetic", "--out", str(out), "--per-template", "1",
                 "--seed", "3", "--workers", "1"]) == 0
    assert len(load_dataset(out).items) == 12
    assert main(["generate", "cvqa-synthetic", "--out", str(out), "--per-template", "1"]) == 2
    assert "already exists" in capsys.readouterr().err
    bad = tmp_path / "bad"
    assert main(["generate", "cvqa-synthetic", "--out", str(bad), "--per-template", "0"]) == 2
    assert "--per-template must be at least 1" in capsys.readouterr().err
    assert not bad.exists()


def test_release_like_options_favour_the_second_smallest_value(suite: Path) -> None:
    card = json.loads((suite / "card.json").read_text())
    ranks = card["extra"]["balance"]["value_rank_share_percent"]["original"]
    assert ranks["1"] > 30  # the release's text-only shortcut, reproduced and reported


def test_balanced_values_remove_the_rank_shortcut(tmp_path: Path) -> None:
    card = CvqaSyntheticGenerator.generate(tmp_path / "b", per_template=40, seed=2, workers=1,
                                           balanced_values=True, design="paper")
    ranks = card.extra["balance"]["value_rank_share_percent"]["original"]
    assert all(15 <= share <= 35 for share in ranks.values()), ranks
    assert card.generator["params"]["balanced_values"] is True
    for item in load_dataset(tmp_path / "b").items:
        values = [int(c) for c in item.choices]
        assert all(-5 <= v - int(item.target) <= 6 for v in values)


def test_intervened_scenes_are_rendered_on_request(tmp_path: Path) -> None:
    CvqaSyntheticGenerator.generate(tmp_path / "i", per_template=1, seed=0, workers=1,
                                    intervened=True, design="paper")
    data = load_dataset(tmp_path / "i")
    for orig, cf in data.pairs().values():
        path = cf.provenance["intervened_image"]
        assert path == f"images/intervened/{orig.meta['image']}"
        assert (tmp_path / "i" / path).read_bytes() != (tmp_path / "i" / orig.images[0]
                                                        ).read_bytes()
        assert "intervened_image" not in orig.provenance
