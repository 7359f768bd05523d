"""C-VQA's paper request per model family: the family, template and decoding chosen for a
backend, and — on tiny random models — the exact token ids the release's script would send
(built here from the templates' documented strings, the way each script tokenizes them) and the
settings passed to ``generate``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cvqa_real_helpers import one_pair

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.decoding import request_seed
from whatifbench.core.protocol import Protocol
from whatifbench.errors import WhatifError
from whatifbench.models.hf.backend import HFBackend
from whatifbench.runner.evaluate import get_suite, resolve_protocol
from whatifbench.runner.requests import RequestBuilder
from whatifbench.suites.cvqa.templates import TEMPLATES, llava_conv

VICUNA = ("A chat between a curious human and an artificial intelligence assistant. The "
          "assistant gives helpful, detailed, and polite answers to the human's questions.")
"""LLaVA's ``conv_llava_v1.system`` (haotian-liu/LLaVA ``llava/conversation.py``)."""
SHORT = " Answer the question using a single word or phrase."
QUESTION = "How many cats are there?"


# -- the templates, against LLaVA's and Qwen-VL's documented strings -----------------------------
def test_templates_render_the_release_conversations() -> None:
    m = "<image>\nQ"
    assert TEMPLATES["llava_v1"].render(m) == f"{VICUNA} USER: <image>\nQ ASSISTANT:"
    assert TEMPLATES["llava_v0"].render(m) == f"{VICUNA}###Human: <image>\nQ###Assistant:"
    assert TEMPLATES["llava_llama_2"].render(m) == (
        "[INST] <<SYS>>\nYou are a helpful language and vision assistant. You are able to "
        "understand the visual content that the user provides, and assist the user with a "
        "variety of tasks using natural language.\n<</SYS>>\n\n<image>\nQ [/INST]")
    assert TEMPLATES["mpt"].render(m) == (
        "<|im_start|>system\nA conversation between a user and an LLM-based AI assistant. The "
        "assistant gives helpful and honest answers.<|im_end|><|im_start|>user\n<image>\nQ"
        "<|im_end|><|im_start|>assistant\n")
    assert TEMPLATES["qwen"].render("Q") == (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nQ"
        "<|im_end|>\n<|im_start|>assistant\n")
    assert {k: t.stop for k, t in TEMPLATES.items()} == {
        "llava_v0": ("###",), "llava_v1": ("</s>",), "llava_llama_2": ("<s>",),
        "mpt": ("<|im_end|>",), "qwen": ("<|im_end|>", "<|im_start|>"), "plain": ()}


@pytest.mark.parametrize(("name", "conv", "expected"), [
    ("llava-v1.5-13b", None, "llava_v1"), ("llava-1.5-7b-hf", None, "llava_v1"),
    ("LLaVA-7B-v0", None, "llava_v0"), ("llava-llama-2-13b-chat", None, "llava_llama_2"),
    ("llava-v1-0719-336px-lora-merge-vicuna13b-v1.3", None, "llava_v1"),
    ("llava-mpt-7b", None, "mpt"), ("llava-1.5-7b-hf", "llava_v0", "llava_v0"),
])
def test_llava_template_by_name_or_argument(name: str, conv: str | None, expected: str) -> None:
    assert llava_conv(name, conv) == expected


# -- binding: family, template, decoding, budget -------------------------------------------------
def _bind(spec: str, model_type: str = "", prompt: str = "paper",
          **extra: Any) -> Protocol:
    backend = SimpleNamespace(spec=spec, model_type=model_type, args=extra.pop("args", {}))
    return resolve_protocol(get_suite("cvqa-real"), Protocol(prompt=prompt, **extra),
                            backend)  # type: ignore[arg-type]


@pytest.mark.parametrize(("spec", "model_type", "prompt", "expected"), [
    ("hf:/m/llava-1.5-7b-hf", "llava", "paper", ("llava", "llava_v1", "release", 512)),
    ("hf:/m/llava-v1.6-mistral-7b-hf", "llava_next", "paper",
     ("llava", "llava_v1", "release", 512)),
    ("hf:/m/blip2-opt", "blip-2", "paper", ("blip2", "plain", "release", 250)),
    ("hf:/m/ib", "instructblip", "paper", ("instructblip", "plain", "release", 250)),
    ("hf:/m/qwen", "qwen2_vl", "paper", ("qwen", "qwen", "release", 512)),
    ("hf:/m/smol", "idefics3", "paper", ("llava", None, "release", 512)),  # never in the release
    ("hf:/m/smol", "idefics3", "paper:llava", ("llava", "llava_v1", "release", 512)),
    ("hf:/m/llava", "llava", "paper:cogvlm", ("cogvlm", None, "greedy", 64)),
    ("openai:llava-1.5", "", "paper", ("llava", None, "release", 512)),
    ("builtin:random", "", "paper", ("llava", None, "backend", 512)),
    ("viper:openai:codellama", "", "paper", ("llava", None, "backend", 512)),
    ("hf:/m/llava", "llava", "default", (None, None, "greedy", 64)),
])
def test_binding_per_backend(spec: str, model_type: str, prompt: str,
                             expected: tuple[Any, ...]) -> None:
    bound = _bind(spec, model_type, prompt)
    assert (bound.family, bound.template, bound.decoding, bound.max_new_tokens) == expected


def test_binding_choices_and_refusals() -> None:
    assert _bind("hf:/m/llava", "llava", args={"conv": "mpt"}).template == "mpt"
    assert _bind("hf:/m/llava", "llava", decoding="greedy").decoding == "greedy"
    assert _bind("hf:/m/llava", "llava", max_new_tokens=20).max_new_tokens == 20
    assert _bind("hf:/m/llava", "llava", strategy="cot").template == "llava_v1"
    refusals = [
        ({"args": {"conv": "vicuna"}}, "-M conv=vicuna is not one of LLaVA's"),
        ({"args": {"conv": "mpt"}, "prompt": "paper:blip2"}, "chooses LLaVA's conversation"),
        ({"args": {"conv": "mpt"}, "prompt": "default"}, "add --prompt paper"),
        ({"decoding": "release", "prompt": "default"}, "use it with --prompt paper"),
        ({"decoding": "release", "prompt": "paper:minigpt"}, "use --decoding greedy"),
        ({"strategy": "one-shot"}, "asks each question on its own"),
    ]
    for extra, message in refusals:
        with pytest.raises(WhatifError, match=message):
            _bind("hf:/m/llava", "llava", **extra)
    with pytest.raises(WhatifError, match="no release decoding"):
        backend = SimpleNamespace(spec="hf:/m", model_type="llava", args={})
        resolve_protocol(get_suite("cfmm"), Protocol(decoding="release"),
                         backend)  # type: ignore[arg-type]


# -- tiny models: token ids and generate settings ------------------------------------------------
@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """One C-VQA-Real pair about a real photograph."""
    row = {"img_path": "a.jpg", "query": QUESTION, "answer": "2",
           "new query": "How many cats would there be if one left?", "new answer": "1",
           "type": "direct"}
    return load_dataset(one_pair(tmp_path_factory.mktemp("cvqa"), row))


class Generate:
    """Stands in for ``model.generate``: records its arguments and a random draw (to show the
    seed it ran under), returns the prompt followed by ``reply`` token ids."""

    def __init__(self, reply: list[int]) -> None:
        self.reply = reply
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Any:
        import torch

        self.calls.append({**kwargs, "draw": torch.rand(1).item()})
        ids = kwargs["input_ids"]
        return torch.cat([ids, torch.tensor([self.reply] * ids.shape[0])], dim=1)


def _ask(backend: HFBackend, dataset: Dataset, reply: Callable[[Any], list[int]],
         **protocol: Any) -> tuple[list[Any], Generate, list[Any]]:
    """The original question's request under ``--prompt paper``, answered through a recording
    ``generate``: (requests, recorder, responses)."""
    suite = get_suite("cvqa-real")
    bound = resolve_protocol(suite, Protocol(prompt="paper", **protocol), backend)
    requests = [RequestBuilder(suite, bound, dataset, seed=7).build(dataset.items[0])]
    recorder = Generate(reply(backend.loaded.tokenizer))
    object.__setattr__(backend.loaded.model, "generate", recorder)
    return requests, recorder, [r for _, r in backend.generate(requests)]


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text).input_ids)


def test_llava_v1_token_ids_and_sampling(dataset: Dataset, tiny_llava: Path) -> None:
    import torch

    backend = HFBackend(f"hf:{tiny_llava}", {})
    tok = backend.loaded.tokenizer
    state = torch.get_rng_state()
    requests, gen, responses = _ask(
        backend, dataset, lambda t: _ids(t, "2 cats") + [t.eos_token_id, t.pad_token_id])
    assert torch.equal(torch.get_rng_state(), state)  # the seeded draw left the global stream
    # run_eval_llava.py: conv_llava_v1 with "<image>\n" + query + make_prompt's sentence, then
    # tokenizer_image_token: each chunk around <image> tokenized on its own, the image between.
    prompt = f"{VICUNA} USER: <image>\n{QUESTION}{SHORT} ASSISTANT:"
    before, after = prompt.split("<image>")
    first, rest = _ids(tok, before), _ids(tok, after)
    offset = 1 if first[:1] == [tok.bos_token_id] else 0
    image = tok.convert_tokens_to_ids("<image>")
    expected = first + [image] * backend.loaded.model.config.image_seq_length + rest[offset:]
    (call,) = gen.calls
    assert call["input_ids"][0].tolist() == expected
    assert {k: call[k] for k in ("do_sample", "temperature", "max_new_tokens", "num_beams",
                                 "eos_token_id")} == {
        "do_sample": True, "temperature": 0.2, "max_new_tokens": 512, "num_beams": 1,
        "eos_token_id": [tok.eos_token_id]}  # the stop string </s> is one token: an end id
    assert "stop_strings" not in call
    assert "top_p" not in call and "top_k" not in call  # the checkpoint's, as in the release
    seed = request_seed(7, dataset.items[0].id)
    assert requests[0].decoding.seed == seed
    assert call["draw"] == _draw(seed)  # generate ran from the request's own seed
    # decoded with its special tokens, the stop kept, stripped: as the release's CSV holds it
    assert responses[0].text == "2 cats</s>"
    assert responses[0].meta["model_input"] == prompt
    assert responses[0].meta["finish_reason"] == "stop"


def _draw(seed: int) -> float:
    import torch

    torch.manual_seed(seed)
    return float(torch.rand(1).item())


def test_llava_greedy_keeps_the_request(dataset: Dataset, tiny_llava: Path) -> None:
    backend = HFBackend(f"hf:{tiny_llava}", {"conv": "llava_v0"})
    requests, gen, responses = _ask(backend, dataset, lambda t: _ids(t, "3###Human"),
                                    decoding="greedy")
    (call,) = gen.calls
    assert (call["do_sample"], call["num_beams"], call["temperature"], call["stop_strings"]) == \
        (False, 1, None, ["###"])
    assert requests[0].decoding.seed is None
    assert responses[0].text == "3###"  # the stop string kept, what follows it dropped
    assert responses[0].meta["model_input"].endswith(f"{SHORT}###Assistant:")


def test_blip2_lavis_request(dataset: Dataset, tiny_models: Any) -> None:
    backend = HFBackend(f"hf:{tiny_models.path('blip2')}", {})
    tok = backend.loaded.tokenizer
    _, gen, responses = _ask(backend, dataset,
                             lambda t: _ids(t, " 2") + [t.eos_token_id, t.pad_token_id])
    (call,) = gen.calls
    # run_eval_lavis.py: "Question: " + q + " Short answer:", the image's query tokens first
    text = f"Question: {QUESTION} Short answer:"
    queries = backend.loaded.model.config.num_query_tokens
    image = backend.loaded.model.config.image_token_index
    assert call["input_ids"][0].tolist() == [image] * queries + _ids(tok, text)
    assert {k: call[k] for k in ("do_sample", "num_beams", "max_new_tokens", "min_length",
                                 "length_penalty", "repetition_penalty")} == {
        "do_sample": False, "num_beams": 5, "max_new_tokens": 250, "min_length": 1,
        "length_penalty": 1.0, "repetition_penalty": 1.0}
    assert "stop_strings" not in call
    assert responses[0].text == "2"  # special tokens skipped, stripped


def test_qwen_chat_request(dataset: Dataset, tiny_models: Any) -> None:
    loaded = tiny_models.qwen_loaded("qwen2_vl")
    backend = HFBackend(f"hf:{loaded.folder}", {})
    backend._loaded = loaded
    tok = loaded.tokenizer
    special = tok.convert_tokens_to_ids
    _, gen, responses = _ask(backend, dataset, lambda t: _ids(t, " no ") + [
        special("<|im_end|>"), special("<|endoftext|>")])
    (call,) = gen.calls
    # Qwen-VL-Chat's make_context: <|im_start|> + role + "\n" + content + <|im_end|>, turns
    # joined by "\n"; from_list_format puts "Picture 1: " + image + "\n" before the text.
    grid = call["image_grid_thw"][0].tolist()
    pads = grid[0] * grid[1] * grid[2] // 4
    nl = _ids(tok, "\n")
    query = (_ids(tok, "Picture 1: ") + [special("<|vision_start|>")]
             + [special("<|image_pad|>")] * pads + [special("<|vision_end|>")]
             + _ids(tok, f"\n{QUESTION}{SHORT}"))
    expected = ([special("<|im_start|>")] + _ids(tok, "system") + nl
                + _ids(tok, "You are a helpful assistant.") + [special("<|im_end|>")] + nl
                + [special("<|im_start|>")] + _ids(tok, "user") + nl + query
                + [special("<|im_end|>")] + nl + [special("<|im_start|>")]
                + _ids(tok, "assistant") + nl)
    assert call["input_ids"][0].tolist() == expected
    assert {k: call[k] for k in ("do_sample", "temperature", "top_p", "top_k", "max_new_tokens",
                                 "eos_token_id")} == {
        "do_sample": True, "temperature": 1.0, "top_p": 0.3, "top_k": 0, "max_new_tokens": 512,
        "eos_token_id": sorted({special("<|im_end|>"), special("<|im_start|>")})}
    assert "stop_strings" not in call
    assert responses[0].text == "no"  # cut before <|im_end|>, stripped
