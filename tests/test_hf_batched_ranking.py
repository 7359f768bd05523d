"""Batched likelihood ranking (``-M batch_size``) on tiny models of every supported architecture:
the same scores as one item at a time and as one full forward pass per candidate."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset

from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Request
from whatifbench.models.hf import ranking
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.hf.inputs import build_prompt
from whatifbench.models.hf.positions import family
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder

ARCHS = ["llava", "llava_next", "idefics3", "paligemma", "qwen2_vl", "qwen2_5_vl", "blip2"]
WORDS = ("three cats", "4", "twenty one dots", "no")
"""Candidates of several tokens (and some of one) after an answer prefix."""


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def rank_requests(dataset_dir: Path) -> list[Request]:
    """Eight rank requests: option letters, and every other one with word candidates after an
    answer prefix (two groups that cannot share a batch)."""
    dataset = load_dataset(dataset_dir)
    protocol = Protocol(answer_mode="rank").resolved("generate")
    builder = RequestBuilder(get_suite(dataset.suite), protocol, dataset)
    requests = [builder.build(item) for item in dataset.items]
    return [dataclasses.replace(r, candidates=WORDS, answer_prefix="The best answer is: (")
            if k % 2 else r for k, r in enumerate(requests)]


def backends(tiny_models: Any, arch: str) -> tuple[HFBackend, HFBackend]:
    """The same loaded model behind ``batch_size=1`` and ``batch_size=8``. Qwen2-VL and
    Qwen2.5-VL are loaded with an image-only processor (their saved processors need torchvision
    for videos)."""
    if arch.startswith("qwen"):
        loaded = tiny_models.qwen_loaded(arch)
        folder = loaded.folder
    else:
        folder = tiny_models.path(arch)
        loaded = None
    one = HFBackend(f"hf:{folder}", {"batch_size": 1})
    eight = HFBackend(f"hf:{folder}", {"batch_size": 8})
    one._loaded = eight._loaded = loaded or one.loaded
    return one, eight


@pytest.mark.parametrize("arch", ARCHS)
def test_batched_ranking_equals_one_item_at_a_time(tiny_models: Any, photos: Path, arch: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    one, eight = backends(tiny_models, arch)
    loaded = one.loaded
    requests = rank_requests(photos)
    sizes: list[int] = []
    tensors = ranking.tensors
    monkeypatch.setattr(ranking, "tensors", lambda ld, prompts: sizes.append(len(prompts))
                        or tensors(ld, prompts))
    single = dict(one.score(requests))
    assert set(sizes) == {1}
    sizes.clear()
    batched = dict(eight.score(requests))
    assert max(sizes) == 4, "two groups of four items (by answer prefix) are ranked together"
    assert sorted(single) == sorted(batched) == list(range(len(requests)))
    lengths = {single[i].meta["prompt_tokens"] for i in range(1, len(requests), 2)}
    assert len(lengths) > 1, "prompts of one length would not exercise padding"
    assert max(n for r in single.values() for n in r.meta["candidate_tokens"]) > 1
    for i, request in enumerate(requests):
        a, b = single[i].scores, batched[i].scores
        assert a is not None and b is not None
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) <= 1e-5
        assert a.index(max(a)) == b.index(max(b))
        assert batched[i].meta == single[i].meta
        assert batched[i].mean_scores == pytest.approx(single[i].mean_scores, abs=1e-5)
        if request.candidates == WORDS:
            # An independent path (no padding, no cache): one full pass per candidate.
            prompt = build_prompt(loaded, request, one.spec)
            separate = ranking.score_separately(loaded, prompt, request).scores
            assert separate is not None
            assert max(abs(x - y) for x, y in zip(b, separate, strict=True)) <= 1e-5


def test_architectures_without_padding_rules_rank_one_item_at_a_time(
        tiny_llava: Path, photos: Path) -> None:
    backend = HFBackend(f"hf:{tiny_llava}", {"batch_size": 4})
    loaded = backend.loaded
    prompts = [build_prompt(loaded, r, backend.spec) for r in rank_requests(photos)]
    groups = list(ranking.rank_batches(loaded, prompts, 3))
    assert sorted(i for g in groups for i in g) == list(range(len(prompts)))
    assert [len(g) for g in groups] == [3, 1, 3, 1]
    for group in groups:
        assert len({prompts[i].prefix_ids for i in group}) == 1
        assert [len(prompts[i].text) for i in group] == sorted(len(prompts[i].text)
                                                               for i in group)
    other = dataclasses.replace(loaded, model_type="mllama")
    assert family("mllama", loaded.model.config) is None
    assert {len(g) for g in ranking.rank_batches(other, prompts, 4)} == {1}
    with pytest.raises(ValueError, match="not ranked in batches"):
        ranking.score_batch(other, prompts[:2], rank_requests(photos)[:2])


@pytest.mark.parametrize("arch", ARCHS)
def test_padded_candidate_rows_carry_every_per_token_input(tiny_models: Any, photos: Path,
                                                           arch: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The path for models that cannot continue from a cache (one padded pass over image + prompt
    + candidate per row) re-pads every per-token input the processor returned with the rows
    (PaliGemma's token_type_ids, Qwen's mm_token_type_ids in transformers >= 5.24): forced on
    every architecture, it gives the scores of one full pass per candidate."""
    one, eight = backends(tiny_models, arch)
    loaded = one.loaded
    requests = [r for r in rank_requests(photos) if r.candidates == WORDS]
    keys: list[list[str]] = []
    full_rows = ranking._full_rows
    monkeypatch.setattr(ranking, "cache_argument", lambda model: None)
    monkeypatch.setattr(ranking, "_full_rows", lambda ld, inputs, *rest: keys.append(
        ranking.per_token_keys(inputs)) or full_rows(ld, inputs, *rest))
    batched = dict(eight.score(requests))
    assert keys, "the padded-rows path was not taken"
    if arch == "paligemma":
        assert "token_type_ids" in keys[0]
    for i, request in enumerate(requests):
        prompt = build_prompt(loaded, request, one.spec)
        separate = ranking.score_separately(loaded, prompt, request).scores
        got = batched[i].scores
        assert got is not None and separate is not None
        assert max(abs(x - y) for x, y in zip(got, separate, strict=True)) <= 1e-5
        assert got.index(max(got)) == separate.index(max(separate))


@pytest.mark.slow
def test_batched_ranking_at_bench_size_chooses_the_same_options(tmp_path: Path) -> None:
    """The claim of docs/backends.md at the size of the rank benches (a 55M LLaVA with 256 image
    tokens): batch 8 and one item at a time choose the same option for every item, their scores
    differing by float32 rounding only (at most 1e-4; bench/bench_rank_batch.py measured
    2.4e-6 over 98 items)."""
    from tiny_models import build_bench_llava

    from whatifbench.core.registry import lookup

    folder = build_bench_llava(tmp_path / "llava")
    one = HFBackend(f"hf:{folder}", {"device": "cpu", "batch_size": 1})
    eight = HFBackend(f"hf:{folder}", {"device": "cpu", "batch_size": 8})
    eight._loaded = one.loaded
    checked = 0
    for name, params in (("cvqa-synthetic", {"per_template": 2}),
                         ("cfmm-synthetic", {"per_category": 2})):
        lookup("generator", name).obj.generate(tmp_path / name, seed=0, workers=1, **params)
        dataset = load_dataset(tmp_path / name)
        protocol = Protocol(answer_mode="rank").resolved("generate")
        builder = RequestBuilder(get_suite(dataset.suite), protocol, dataset)
        requests = [builder.build(item) for item in dataset.items]
        single, batched = dict(one.score(requests)), dict(eight.score(requests))
        for i in range(len(requests)):
            a, b = single[i].scores, batched[i].scores
            assert a is not None and b is not None
            assert a.index(max(a)) == b.index(max(b)), requests[i].item_id
            assert max(abs(x - y) for x, y in zip(a, b, strict=True)) <= 1e-4
            checked += 1
    assert checked >= 40
