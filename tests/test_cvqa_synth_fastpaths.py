"""The generator's fast paths give what the slow, general paths give: batched building equals
one image at a time, the early template-5 test agrees with the programs, and flower
candidates keep the exact clearance from every polygon edge."""

from __future__ import annotations

import random

import numpy as np

from whatifbench.scenes.geometry import (
    edge_array,
    outline,
    points_in_polygon,
    segment_distances,
)
from whatifbench.scenes.opaque import opaque_naming
from whatifbench.suites.cvqa.synthetic import flowers
from whatifbench.suites.cvqa.synthetic.dots import top_right_answers
from whatifbench.suites.cvqa.synthetic.generate import plan, run_jobs, split
from whatifbench.suites.cvqa.synthetic.pair import GENERATOR, build, build_all, sample


def test_batches_match_single_builds_for_every_template() -> None:
    namer = opaque_naming("shortcut-free", None, GENERATOR, 5)[0]  # the default design's names
    jobs = [j for j in plan(3, seed=5, intervened=True, namer=namer) if j.index < 2]
    one_by_one = [build(job) for job in jobs]
    assert build_all(jobs) == one_by_one
    assert list(run_jobs(jobs, 2)) == one_by_one  # batches spread over worker processes
    assert {job.template for job in jobs} == {1, 2, 3, 4, 5, 6}
    assert all(len(b.files) == 2 for b in one_by_one)  # image and intervened image


def test_split_keeps_order_and_ends_with_small_batches() -> None:
    jobs = plan(50, seed=0)
    batches = split(jobs, 2)
    assert [j for b in batches for j in b] == jobs
    assert len(batches[0]) == 16 and len(batches[-1]) == 4
    assert [len(b) for b in split(jobs[:3], 2)] == [1, 1, 1]


def test_early_template_5_answers_agree_with_the_programs() -> None:
    for job in [j for j in plan(40, seed=3) if j.template == 5]:
        s = sample(5, random.Random(job.image_seed))
        circles = [o for o in s.scene.objects if o.shape == "circle"]
        dots = [o for o in s.scene.objects if o.shape == "dot"]
        counts = [sum((d.x - c.x) ** 2 + (d.y - c.y) ** 2 < c.size ** 2 for d in dots)
                  for c in circles]
        geometry = [(int(c.x), int(c.y), int(c.size)) for c in circles]
        assert top_right_answers(geometry, counts) == s.answers


def test_flower_candidates_keep_the_exact_edge_clearance() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(30):
        p1, p2 = flowers._polygons(rng)
        want = {"A": 4, "AB": 3, "B": 4, "0": 4}
        asked = rng.randrange(2)
        placed = flowers._place(rng, p1, p2, asked, want)
        if placed is None:
            continue
        edges = np.vstack([edge_array(p1), edge_array(p2)])
        xs = np.array([p[0] for p in placed], dtype=float)
        ys = np.array([p[1] for p in placed], dtype=float)
        radii = np.array([p[2] for p in placed])
        clearance = segment_distances(xs, ys, edges).min(axis=1)
        assert (clearance >= radii + flowers.LINE + flowers.EDGE_GAP).all()
        assert (xs >= flowers.BORDER).all() and (xs <= flowers.CANVAS - 1 - flowers.BORDER).all()
        assert (ys >= flowers.BORDER).all() and (ys <= flowers.CANVAS - 1 - flowers.BORDER).all()
        code = (points_in_polygon(xs, ys, outline(p1)).astype(int)
                + 2 * points_in_polygon(xs, ys, outline(p2)).astype(int))
        value = {"AB": 3, "0": 0, "A": 1 + asked, "B": 2 - asked}  # bit 0: p1, bit 1: p2
        assert {r: int((code == v).sum()) for r, v in value.items()} == want
        checked += 1
    assert checked >= 10
