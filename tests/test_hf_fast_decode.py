"""The fast decoding path of hf: generation (``models.hf.fast_decode``) on tiny models: greedy
token ids equal eager ``generate``'s, the static caches are reused, and ``-M fast_decode`` /
``-M batch_size=auto`` behave as documented.

The decode step is compiled only on CUDA by default; on this CPU the tests run the static-cache
path uncompiled (``fast_decode=true``): compiling even a tiny model takes 10-40 s here, and the
compiled step's equality is checked by ``bench/bench_gpu.py`` (``--fast-decode compile`` on a
CPU, and by default on a GPU)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset

from whatifbench.core.dataset import load_dataset
from whatifbench.core.decoding import Decoding
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Request
from whatifbench.errors import WhatifError
from whatifbench.models.hf import fast_decode, generation
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.hf.loading import DEFAULT_BATCH, HFOptions
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder

ARCHS = ["llava", "llava_next", "idefics3", "paligemma", "qwen2_vl"]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def _requests(dataset_dir: Path, tokens: int = 10) -> list[Request]:
    dataset = load_dataset(dataset_dir)
    protocol = Protocol(answer_mode="generate").resolved("generate")
    builder = RequestBuilder(get_suite(dataset.suite), protocol, dataset)
    return [dataclasses.replace(builder.build(item), max_new_tokens=tokens)
            for item in dataset.items]


def _backends(tiny_models: Any, arch: str, **args: Any) -> tuple[HFBackend, HFBackend]:
    """Eager and fast backends over one loaded model (Qwen2-VL with its image-only
    processor, which needs no torchvision)."""
    loaded = tiny_models.qwen_loaded(arch) if arch.startswith("qwen") else None
    folder = loaded.folder if loaded is not None else tiny_models.path(arch)
    eager = HFBackend(f"hf:{folder}", {"fast_decode": False, **args})
    fast = HFBackend(f"hf:{folder}", {"fast_decode": True, **args})
    eager._loaded = fast._loaded = loaded or eager.loaded
    return eager, fast


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, dict[str, Any]]]:
    """Every ``model.generate`` call: (its output token ids, its arguments)."""
    calls: list[tuple[Any, dict[str, Any]]] = []
    run = generation._run

    def spied(loaded: Any, inputs: Any, kwargs: dict[str, Any], *rest: Any) -> Any:
        out = run(loaded, inputs, kwargs, *rest)
        calls.append((out, dict(kwargs)))
        return out

    monkeypatch.setattr(generation, "_run", spied)
    return calls


@pytest.mark.parametrize("arch", ARCHS)
def test_greedy_token_ids_from_the_static_cache_equal_eager_generate(
        tiny_models: Any, photos: Path, arch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from transformers import StaticCache

    eager, fast = _backends(tiny_models, arch, batch_size=3)
    requests = _requests(photos)
    calls = _spy(monkeypatch)
    plain = dict(eager.generate(requests))
    eager_calls = list(calls)
    calls.clear()
    quick = dict(fast.generate(requests))
    assert len(eager_calls) == len(calls) >= 3
    for (a, eager_kwargs), (b, kwargs) in zip(eager_calls, calls, strict=True):
        assert not any(isinstance(v, StaticCache) for v in eager_kwargs.values())
        assert any(isinstance(v, StaticCache) for v in kwargs.values()), "not the fast path"
        assert kwargs.get("disable_compile") is True  # a CPU: the static cache, uncompiled
        assert a.tolist() == b.tolist()
    lengths = {r.meta["prompt_tokens"] for r in plain.values()}
    assert len(lengths) > 1, "prompts of one length would not exercise left padding"
    assert sorted(quick) == sorted(plain) == list(range(len(requests)))
    for i, response in plain.items():
        assert (quick[i].text, quick[i].meta) == (response.text, response.meta)


def test_caches_are_kept_per_row_count_and_reused(tiny_models: Any, photos: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _, fast = _backends(tiny_models, "llava", batch_size=3)
    requests = _requests(photos)
    calls = _spy(monkeypatch)
    list(fast.generate(requests))
    list(fast.generate(requests))
    caches = [next(v for k, v in kwargs.items() if k in ("cache", "past_key_values"))
              for _, kwargs in calls]
    rows = [out.shape[0] for out, _ in calls]
    by_rows: dict[int, set[int]] = {}
    for n, cache in zip(rows, caches, strict=True):
        by_rows.setdefault(n, set()).add(id(cache))
    assert all(len(ids) == 1 for ids in by_rows.values()), "a cache was allocated twice"
    assert {c.layers[0].max_cache_len for c in caches} == {fast_decode.CACHE_BUCKET}
    model = fast.loaded.model
    assert model in fast_decode._DECODERS
    fast.close()
    assert model not in fast_decode._DECODERS, "closing the backend drops its caches"


def test_seeded_sampling_and_beam_search_give_eager_replies(
        tiny_models: Any, photos: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    eager, fast = _backends(tiny_models, "llava")
    base = _requests(photos, 12)[:3]
    sampled = [dataclasses.replace(r, decoding=Decoding(do_sample=True, temperature=0.7,
                                                        seed=11 + k))
               for k, r in enumerate(base)]
    beams = [dataclasses.replace(r, decoding=Decoding(num_beams=2)) for r in base]
    calls = _spy(monkeypatch)
    for requests in (sampled, beams):
        a, b = dict(eager.generate(requests)), dict(fast.generate(requests))
        assert {i: r.text for i, r in a.items()} == {i: r.text for i, r in b.items()}
    beam_kwargs = [kw for _, kw in calls if kw.get("num_beams") == 2]
    assert beam_kwargs and not any("disable_compile" in kw for kw in beam_kwargs), \
        "beam search is decoded eagerly"


def test_the_option_says_what_it_takes_and_when_it_cannot_apply(tiny_models: Any,
                                                                tiny_llava: Path,
                                                                photos: Path) -> None:
    with pytest.raises(WhatifError, match="fast_decode=maybe is not supported; use one of"):
        HFBackend(f"hf:{tiny_llava}", {"fast_decode": "maybe"})
    assert "fast_decode" in HFBackend.arg_names
    assert HFOptions.from_args("hf:x", {"fast_decode": False}).fast_decode == "false"
    assert HFOptions.from_args("hf:x", {"batch_size": "auto"}).batch_size is None
    with pytest.raises(WhatifError, match="batch_size must be a positive integer or auto"):
        HFOptions.from_args("hf:x", {"batch_size": 0})
    auto = HFBackend(f"hf:{tiny_llava}", {})
    assert fast_decode.fast_mode(auto.loaded, auto.options, auto.spec) is None  # a CPU
    forced = HFBackend(f"hf:{tiny_llava}", {"fast_decode": "compile"})
    assert fast_decode.fast_mode(auto.loaded, forced.options, forced.spec) == "compiled"
    blip = HFBackend(f"hf:{tiny_models.path('blip2')}", {"fast_decode": True})
    with pytest.raises(WhatifError, match="fast_decode=true cannot be used: a blip-2 model's "
                                          "forward pass takes no KV cache"):
        list(blip.generate(_requests(photos)[:1]))


def test_an_automatic_batch_fills_the_free_gpu_memory(tiny_llava: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    loaded = HFBackend(f"hf:{tiny_llava}", {}).loaded
    assert fast_decode.auto_batch_size(loaded, 100, 16) == DEFAULT_BATCH  # not a GPU
    gpu = dataclasses.replace(loaded, device=torch.device("cuda"))
    free = {"bytes": 0}
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (free["bytes"], 0))
    text = loaded.model.config.get_text_config(decoder=True)
    heads = text.num_attention_heads
    per_token = (2 * text.num_hidden_layers * text.num_key_value_heads
                 * (text.hidden_size // heads) * 4)
    sizes = []
    for gib in (0, 0.001, 0.01, 0.1, 1, 100):
        free["bytes"] = int(gib * 2**30)
        sizes.append(fast_decode.auto_batch_size(gpu, 100, 16))
    assert sizes[0] == 1 and sizes[-1] == fast_decode.MAX_AUTO_BATCH
    assert sizes == sorted(sizes) and all(n & (n - 1) == 0 for n in sizes)
    # Each row's cache (bucketed) fits in the share of memory the batch fills.
    for gib, n in zip((0.001, 0.01, 0.1), sizes[1:4], strict=True):
        assert n * per_token * fast_decode.CACHE_BUCKET <= fast_decode.MEMORY_SHARE * gib * 2**30


def test_a_models_decoder_does_not_keep_the_model_alive(tiny_llava: Path) -> None:
    import gc
    import weakref

    loaded = HFBackend(f"hf:{tiny_llava}", {}).loaded  # a model of its own
    fast_decode.decoder(loaded, compiled=False).cache(2, 40)
    assert loaded.model in fast_decode._DECODERS
    gone = weakref.ref(loaded.model)
    del loaded
    gc.collect()
    assert gone() is None
