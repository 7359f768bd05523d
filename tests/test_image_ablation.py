"""``whatif run --image-ablation blank|shuffled|none``: a transform of requests that no backend
knows about; cache keys change with it; refusals; the spec and the row label record it; and the
scene reader, which reads every answer from the picture, falls below chance without it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from PIL import Image
from util import make_choice_dataset, png

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.report.labels import run_labels
from whatifbench.runner.ablation import GREY, ImageAblation, ablate, shuffle_donors
from whatifbench.runner.evaluate import RunOptions, evaluate, get_suite
from whatifbench.runner.requests import ImageHasher, RequestBuilder, request_key
from whatifbench.runner.store import RunStore
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.options import window_ambiguous as options_ambiguous


class Recorder(Backend):
    """Answers "A" and keeps every request it was sent."""

    capabilities = Capabilities(generate=True, multi_image=True)

    def __init__(self, spec: str = "test:recorder", args: dict | None = None) -> None:
        super().__init__(spec, args or {})
        self.seen: list[Request] = []

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            self.seen.append(request)
            yield i, Response(text="A")


class NeedsImage(Recorder):
    """A model that cannot be asked without a picture."""

    def needs_image(self) -> str | None:
        return "it sees nothing without one"


def _run(ds: Path, backend: Backend, ablation: str | None, store: RunStore | None = None,
         protocol: Protocol | None = None, seed: int = 0) -> list[Request]:
    """The requests ``backend`` is sent (a fresh store unless one is given)."""
    backend.seen = []  # type: ignore[attr-defined]
    own = store or RunStore(ds.parent / f"store-{len(list(ds.parent.glob('store-*')))}.sqlite")
    evaluate(load_dataset(ds), backend, protocol or Protocol(), own,
             RunOptions(progress=False, seed=seed, image_ablation=ablation))
    if store is None:
        own.close()
    return list(backend.seen)  # type: ignore[attr-defined]


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return make_choice_dataset(tmp_path / "ds", n_pairs=8)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A C-VQA-Synthetic suite of the paper design (100 images per template; its release
    names say the template and number)."""
    out = tmp_path_factory.mktemp("syn") / "syn"
    CvqaSyntheticGenerator.generate(out, per_template=100, seed=0, workers=1, design="paper")
    return out


@pytest.fixture(scope="module")
def small(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve pairs of the generated suite (two per template), as a dataset of their own."""
    return subset(generated, tmp_path_factory.mktemp("small") / "small",
                  lambda items: {i.pair_id for i in items if i.pair_id and
                                 int(i.pair_id[-6:]) % 100 < 2})


def subset(source: Path, out: Path, choose: Callable[[list[Item]], set[str | None]]) -> Path:
    """The pairs ``choose`` names, with their images, as a new dataset made by the same
    generator (so that the scene reader applies)."""
    ds = load_dataset(source)
    keep = choose(list(ds.items))
    with DatasetWriter(out) as writer:
        for item in ds.items:
            if item.pair_id in keep:
                for rel in item.images:
                    if not (writer.stage / rel).exists():
                        writer.add_image(rel.removeprefix("images/"),
                                         ds.image_path(rel).read_bytes())
                writer.add_item(item)
        writer.finish(name=out.name, suite=ds.suite, version=ds.card.version,
                      generator=ds.card.generator, seed=ds.card.seed)
    return out


def window_ambiguous(item: Item) -> bool:
    """A counterfactual whose options leave the release's distractor rule nothing to go by
    (``suites.cvqa_synthetic.options.window_ambiguous``)."""
    return item.role == "counterfactual" and options_ambiguous([int(c) for c in item.choices])


def test_blank_sends_a_mid_grey_image_of_the_same_size_and_changes_the_cache_key(
        dataset: Path, tmp_path: Path) -> None:
    store = RunStore(tmp_path / "store.sqlite")
    full = _run(dataset, Recorder(), None, store)
    blank = _run(dataset, Recorder(), "blank", store)
    assert [r.item_id for r in blank] == [r.item_id for r in full]
    for before, after in zip(full, blank, strict=True):
        (original,), (grey,) = before.images, after.images
        with Image.open(original) as a, Image.open(grey) as b:
            assert b.size == a.size
            assert b.convert("RGB").getcolors() == [(a.width * a.height, GREY)]
        assert before.prompt == after.prompt  # only the picture changed
    hasher = ImageHasher()
    backend = Recorder()
    keys = {request_key(backend, "generate", r, hasher) for r in full}
    assert not keys & {request_key(backend, "generate", r, hasher) for r in blank}
    # the ablated answers are stored under their own keys: a repeat is served from the store
    result = evaluate(load_dataset(dataset), Recorder(), Protocol(), store,
                      RunOptions(progress=False, image_ablation="blank"))
    assert result.execution.from_store == len(blank) and result.execution.computed == 0
    assert result.spec.to_json()["image_ablation"] == {"kind": "blank", "checked": True}
    store.close()


def test_shuffled_gives_each_item_another_pairs_image_seeded_and_same_role(
        dataset: Path, tmp_path: Path) -> None:
    own = {r.item_id: r.images for r in _run(dataset, Recorder(), None)}
    first = _run(dataset, Recorder(), "shuffled", seed=0)
    again = _run(dataset, Recorder(), "shuffled", seed=0)
    other = _run(dataset, Recorder(), "shuffled", seed=1)
    assert [r.images for r in first] == [r.images for r in again]  # seeded
    assert [r.images for r in first] != [r.images for r in other]
    image_of_pair = {r.item_id.split("-")[0]: own[r.item_id] for r in first}
    for r in first:
        pair = r.item_id.split("-")[0]
        assert r.images != own[r.item_id]  # never its own pair's image
        donor = next(p for p, imgs in image_of_pair.items() if imgs == r.images)
        assert donor != pair
    by_pair: dict[str, set[tuple[str, ...]]] = {}
    for r in first:  # both questions of a pair see the same other pair
        by_pair.setdefault(r.item_id.split("-")[0], set()).add(r.images)
    assert all(len(v) == 1 for v in by_pair.values())


def test_shuffle_donors_never_give_a_pair_a_picture_it_shows() -> None:
    units = [f"p{k}" for k in range(6)]
    shared = [frozenset({"a.png"}), frozenset({"a.png"}), frozenset({"b.png"}),
              frozenset({"c.png"}), frozenset({"d.png"}), frozenset({"e.png"})]
    for seed in range(30):
        donors = shuffle_donors(units, shared, seed)
        assert sorted(donors.values()) == units  # a permutation
        for unit, images in zip(units, shared, strict=True):
            assert donors[unit] != unit
            assert not images & shared[units.index(donors[unit])]
    with pytest.raises(WhatifError, match="at least two pairs"):
        shuffle_donors(["p0", "p0"], [frozenset({"a"})] * 2, 0)
    with pytest.raises(WhatifError, match="no other pair whose images differ"):
        shuffle_donors(["p0", "p1"], [frozenset({"a"})] * 2, 0)


def test_none_sends_no_image_and_is_refused_for_a_model_that_needs_one(
        dataset: Path, tmp_path: Path) -> None:
    sent = _run(dataset, Recorder(), "none")
    assert sent and all(r.images == () for r in sent)
    assert all("Select the correct answer" in r.prompt for r in sent)
    with pytest.raises(WhatifError, match="cannot be used with the model test:recorder: it "
                                          "sees nothing without one"):
        _run(dataset, NeedsImage(), "none")
    assert _run(dataset, NeedsImage(), "blank")  # a picture is still sent


def test_a_demonstration_keeps_its_image_and_the_describe_stage_is_ablated(
        dataset: Path, tmp_path: Path) -> None:
    one_shot = _run(dataset, Recorder(), "blank", protocol=Protocol(strategy="one-shot"))
    for r in one_shot:
        demo, question = r.turns[0].images, r.turns[-1].images
        assert "ablation" not in demo[0] and "ablation" in question[0]
    ccot = _run(dataset, Recorder(), "none", protocol=Protocol(strategy="ccot"))
    assert len(ccot) == 2 * 16 and all(r.images == () for r in ccot)


def test_composite_images_are_blanked_whole(tmp_path: Path) -> None:
    with DatasetWriter(tmp_path / "multi") as writer:
        for k in range(3):
            a = writer.add_image(f"{k}a.png", png((10 * k, 0, 0), 40))
            b = writer.add_image(f"{k}b.png", png((0, 10 * k, 0), 40))
            writer.add_item(Item(id=f"i{k}", images=(a, b), question="Which?", kind="choice",
                                 target="x", choices=("x", "y"), pair_id=f"p{k}", role="original",
                                 group="g"))
        writer.finish(name="multi", suite="cvqa-synthetic", version="t", generator={"name": "h"},
                      seed=0)
    ds = load_dataset(tmp_path / "multi")
    protocol = Protocol(image_layout="composite").resolved("generate")
    builder = RequestBuilder(get_suite(ds.suite), protocol, ds)
    requests = [builder.build(i) for i in ds.items]
    blank = ablate(requests, ImageAblation("blank"))
    for before, after in zip(requests, blank, strict=True):
        (composite,), (grey,) = before.images, after.images
        with Image.open(composite) as a, Image.open(grey) as b:
            assert a.size == b.size
    shuffled = ablate(requests, ImageAblation("shuffled", 3))
    assert {r.images for r in shuffled} == {r.images for r in requests}
    assert all(a.images != b.images for a, b in zip(requests, shuffled, strict=True))


def test_models_that_never_read_the_image_are_refused_or_left_out(small: Path) -> None:
    with pytest.raises(WhatifError, match="never depend on the image"):
        api.run_all([small], ["builtin:random"],
                    options=RunOptions(progress=False, image_ablation="blank"))
    skipped: list[str] = []
    runs = api.run_all([small], ["builtin:random", "builtin:scene-reader"], defaults=True,
                       on_skip=skipped.append,
                       options=RunOptions(progress=False, image_ablation="blank"))
    assert [r.model for r in runs] == ["builtin:scene-reader"]
    assert any("builtin:random is left out: --image-ablation blank" in s for s in skipped)
    with pytest.raises(WhatifError, match="scene-reader: it reads every answer from the "
                                          "picture"):
        api.run_all([small], ["builtin:scene-reader"],
                    options=RunOptions(progress=False, image_ablation="none"))


def test_the_cli_records_the_ablation_and_labels_the_row(small: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    dataset = small
    out = tmp_path / "run"
    assert main(["run", "--suite", str(dataset), "--model", "builtin:scene-reader",
                 "--image-ablation", "shuffled", "--seed", "4", "--out", str(out),
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "builtin:scene-reader [image: shuffled]" in printed
    results = json.loads((out / "results.json").read_text())
    assert results["runs"][0]["spec"]["image_ablation"] == {"kind": "shuffled", "checked": True,
                                                           "seed": 4}
    assert "builtin:scene-reader \\[image: shuffled\\]" in (out / "report.md").read_text()
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--suite", str(dataset), "--image-ablation", "sideways"])
    assert stopped.value.code == 2
    assert "invalid choice: 'sideways'" in capsys.readouterr().err


def test_labels_always_name_the_ablation() -> None:
    from whatifbench.runner.results import RunResult

    def run(spec: dict) -> RunResult:
        return RunResult("cvqa-synthetic", "d", "hf:/m/llava", 1, {}, spec)

    full, blank = run({}), run({"image_ablation": {"kind": "blank", "checked": True}})
    cot = run({"image_ablation": {"kind": "blank", "checked": True},
               "protocol": {"strategy": "cot"}})
    assert run_labels([full, blank]) == ["hf:/m/llava", "hf:/m/llava [image: blank]"]
    assert run_labels([blank]) == ["hf:/m/llava [image: blank]"]
    assert run_labels([blank, cot]) == ["hf:/m/llava [image: blank, strategy=zero-shot]",
                                        "hf:/m/llava [image: blank, strategy=cot]"]


def test_the_scene_reader_falls_below_chance_without_its_image(generated: Path,
                                                              tmp_path: Path) -> None:
    """On the counterfactuals of a suite that is not answerable blind (cvqa-synthetic's
    ``shortcut-free`` design) and on those of the ``paper`` design whose options leave the
    release's window rule nothing to go by (``window_ambiguous``; a text-only model is near
    chance there, far from the ~61 % it gets on all paper counterfactuals), the scene reader is
    right on ≥ 99 % with the image and on ≤ 45 % with it blanked or shuffled (it abstains when
    the picture cannot give one of the options)."""
    free = tmp_path / "free"
    CvqaSyntheticGenerator.generate(free, per_template=20, seed=1, workers=1,
                                    design="shortcut-free")
    ambiguous = subset(generated, tmp_path / "slice",
                       lambda items: {i.pair_id for i in items if window_ambiguous(i)})
    for ds, keep in ((free, lambda i: i.role == "counterfactual"), (ambiguous, window_ambiguous)):
        chosen = [i for i in load_dataset(ds).items if keep(i)]
        assert len(chosen) >= 40
        letters = Counter(i.target_index for i in chosen)
        assert len(letters) == 4 and max(letters.values()) < 0.4 * len(chosen)
        accuracy = {}
        for ablation in (None, "blank", "shuffled"):
            runs = api.run_all([ds], ["builtin:scene-reader"],
                               options=RunOptions(progress=False, image_ablation=ablation))
            cf = [s for s in runs[0].samples if s.role == "counterfactual"]
            accuracy[ablation] = 100 * sum(s.correct for s in cf) / len(cf)
        assert accuracy[None] >= 99, (ds.name, accuracy)
        assert accuracy["blank"] <= 45 and accuracy["shuffled"] <= 45, (ds.name, accuracy)


def test_hf_checkpoints_that_compute_from_image_features_refuse_none(
        tiny_paligemma: Path, tiny_llava: Path) -> None:
    from whatifbench.models.hf.backend import HFBackend

    paligemma = HFBackend(f"hf:{tiny_paligemma}", {})
    assert "paligemma checkpoint computes every answer from image features" in str(
        paligemma.ablation_refusal("none"))
    assert paligemma.ablation_refusal("blank") is None
    assert HFBackend(f"hf:{tiny_llava}", {}).ablation_refusal("none") is None
