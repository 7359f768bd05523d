"""``builtin:pixel-match`` (issue 41, item 2): the option picture most like the question's, pixel
by pixel; on mucr-synthetic's paper design it finds nearly every C2E/E2C answer (the right
candidate is the only one drawn in the question's scene), on the shortcut-free design (four
ways of the question's own scene) it is near chance."""

from __future__ import annotations

from pathlib import Path

from util import png

from whatifbench import api
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.runner.evaluate import RunOptions
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator


def _picture_items(root: Path) -> Path:
    with DatasetWriter(root) as w:
        q = w.add_image("q.png", png((200, 10, 10)))
        far = [w.add_image(f"o{k}.png", png((10, 10 + 60 * k, 200))) for k in range(3)]
        near = w.add_image("near.png", png((190, 20, 10)))
        labels = ["Cause", "A", "B", "C", "D"]
        w.add_item(Item("x", (q, far[0], near, far[1], far[2]), "Which?", "choice", "B",
                        ("A", "B", "C", "D"), meta={"image_labels": labels}))
        w.add_item(Item("y", (q, near, far[0], far[1], far[2]), "Which?", "choice", "A",
                        ("A", "B", "C", "D"), meta={"image_labels": labels}))
        w.add_item(Item("z", (q, near), "Which?", "choice", "A", ("A", "B"),
                        meta={"image_labels": ["Cause", "Effect"]}))  # no picture options
        w.finish(name="pictures", suite="mucr", version="t", generator={}, seed=None)
    return root


def test_it_picks_the_most_similar_picture_and_abstains_without_picture_options(
        tmp_path: Path) -> None:
    ds = _picture_items(tmp_path / "ds")
    for layout in ("multi", "composite"):
        [run] = api.run_all([ds], ["builtin:pixel-match"], protocol=Protocol(
            image_layout=layout), options=RunOptions(progress=False))
        right = {s.item_id: bool(s.correct) for s in run.samples}
        assert right["x"] and right["y"], layout
        assert not right["z"] and next(s for s in run.samples if s.item_id == "z").unparsed


def _accuracy(path: Path) -> float:
    [run] = api.run_all([path], ["builtin:pixel-match"], options=RunOptions(progress=False))
    shown = [s for s in run.samples if s.group in ("c2e", "e2c")]
    return 100.0 * sum(bool(s.correct) for s in shown) / len(shown)


def test_similarity_sorts_the_paper_mucr_candidates_and_not_the_shortcut_free_ones(
        tmp_path: Path) -> None:
    MucrSyntheticGenerator.generate(tmp_path / "p", groups=12, seed=9, design="paper")
    MucrSyntheticGenerator.generate(tmp_path / "f", groups=12, seed=9)
    assert len(load_dataset(tmp_path / "f").items) == 4 * 48
    assert _accuracy(tmp_path / "p") >= 90.0
    assert _accuracy(tmp_path / "f") <= 40.0  # chance 25 (96 items: 40 is 3.4 sd above)
