"""Batched building (``build_all``) gives the same images and items as one image at a time."""

from __future__ import annotations

from whatifbench.suites.cvqa_synthetic.generate import plan, run_jobs
from whatifbench.suites.cvqa_synthetic.pair import build, build_all


def test_batches_match_single_builds_for_every_template() -> None:
    jobs = [j for j in plan(3, seed=5, intervened=True) if j.index < 2]
    one_by_one = [build(job) for job in jobs]
    assert build_all(jobs) == one_by_one
    assert list(run_jobs(jobs, 2)) == one_by_one  # batches spread over worker processes
    assert {job.template for job in jobs} == {1, 2, 3, 4, 5, 6}
    assert all(len(b.files) == 2 for b in one_by_one)  # image and intervened image
