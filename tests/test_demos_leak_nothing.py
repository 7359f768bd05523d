"""Few-shot demonstrations never come from the question's own pair, set or scene (issue 41,
item 3): a demonstration is shown with its answer, so one of the question's own pair (C-VQA,
CFMM), contrast set or other question about the same picture (CELLO), or group of four
(MuCR's paper design, whose pictures are each other's distractors) would hand the model the
answer or a picture it is asked about."""

from __future__ import annotations

from pathlib import Path

import pytest
from cello_world import write_world

from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item
from whatifbench.core.suite import suite_for
from whatifbench.runner.requests import choose_demos
from whatifbench.suites.cello.build import build_cello
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator


def _datasets(root: Path) -> dict[str, Path]:
    out = {name: root / name for name in ("cvqa", "cfmm", "mucr", "mucr-paper", "cello")}
    CvqaSyntheticGenerator.generate(out["cvqa"], per_template=4, seed=3, workers=1,
                                    design="shortcut-free")
    CfmmSyntheticGenerator.generate(out["cfmm"], per_category=6, seed=3, workers=1)
    MucrSyntheticGenerator.generate(out["mucr"], groups=3, seed=3)
    MucrSyntheticGenerator.generate(out["mucr-paper"], groups=3, seed=3, design="paper")
    graphs, data, images = write_world(root / "world", 120, 3)
    build_cello(graphs, images, out["cello"], image_data=data, per_task=6, seed=3)
    return out


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _datasets(tmp_path_factory.mktemp("demos"))


def _linked(demo: Item, item: Item) -> list[str]:
    why = []
    if demo.pair_id is not None and demo.pair_id == item.pair_id:
        why.append("same pair or set")
    if set(demo.images) & set(item.images):
        why.append("a shared picture (the same scene)")
    if set(demo.meta.get("group_of_four", ())) & set(item.meta.get("group_of_four", ())):
        why.append("the same group of four")
    return why


@pytest.mark.parametrize("name", ["cvqa", "cfmm", "mucr", "mucr-paper", "cello"])
def test_no_demonstration_from_the_items_own_pair_set_or_scene(
        datasets: dict[str, Path], name: str) -> None:
    ds = load_dataset(datasets[name], check_images=False)
    suite = suite_for(ds.suite)
    chosen = [i for i in ds.items if i.kind != "text"]
    for evaluated in (chosen, chosen[: len(chosen) // 3]):  # all evaluated, and a subset
        demos = choose_demos(ds, evaluated, seed=5, suite=suite)
        assert set(demos) == {i.id for i in evaluated}
        for item in evaluated:
            demo = demos[item.id]
            assert demo.group == item.group and demo.role == item.role
            assert not _linked(demo, item), (name, item.id, demo.id, _linked(demo, item))


def test_cello_has_other_questions_about_the_same_picture(datasets: dict[str, Path]) -> None:
    """What the test above guards against exists: CELLO asks several questions about one
    picture outside any contrast set (before demonstrations checked pictures, such a question
    could be a demonstration with its answer)."""
    items = load_dataset(datasets["cello"], check_images=False).items
    shared = [(a, b) for a in items for b in items if a.id < b.id and a.group == b.group
              and a.role == b.role and a.images == b.images
              and (a.pair_id is None or a.pair_id != b.pair_id)]
    assert shared
