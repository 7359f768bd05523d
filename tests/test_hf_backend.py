"""The hf: backend on tiny random models of real architectures: generation, ranking, strategies."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset
from util import run_outputs

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.hf.backend import HFBackend
from whatifbench.models.hf.inputs import build_prompt
from whatifbench.models.hf.ranking import score_cached, score_separately
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder, choose_demos

ARCHS = ["llava", "idefics3", "paligemma", "qwen2_vl", "blip2"]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_photo_dataset(tmp_path_factory.mktemp("photos") / "ds", n_pairs=4)


def _requests(dataset_dir: Path, mode: str, strategy: str = "zero-shot") -> list[Request]:
    dataset = load_dataset(dataset_dir)
    protocol = Protocol(answer_mode=mode, strategy=strategy).resolved("generate")
    suite = get_suite(dataset.suite)
    demos = choose_demos(dataset, dataset.items, 0, suite) if strategy == "one-shot" else None
    builder = RequestBuilder(suite, protocol, dataset, demos)
    return [builder.build(item) for item in dataset.items]


def _backend(path: Path, **args: Any) -> HFBackend:
    return HFBackend(f"hf:{path}", args)


@pytest.mark.parametrize(("arch", "model_class"), [
    ("llava", "LlavaForConditionalGeneration"), ("idefics3", "Idefics3ForConditionalGeneration"),
    ("paligemma", "PaliGemmaForConditionalGeneration"),
    ("qwen2_vl", "Qwen2VLForConditionalGeneration"), ("blip2", "Blip2ForConditionalGeneration")])
def test_tiny_models_reload_offline_through_the_auto_classes(tiny_models: Any, arch: str,
                                                              model_class: str) -> None:
    from tiny_models import load_tiny

    processor, model = load_tiny(tiny_models.path(arch))
    assert type(model).__name__ == model_class
    assert sum(p.numel() for p in model.parameters()) < 250_000
    assert (processor.chat_template is None) == (arch in ("paligemma", "blip2"))
    assert len(processor.tokenizer) <= model.get_input_embeddings().num_embeddings


@pytest.mark.parametrize("arch", ARCHS)
def test_batched_greedy_generation_equals_unbatched(tiny_models: Any, photos: Path,
                                                    arch: str) -> None:
    path = tiny_models.path(arch)
    requests = [dataclasses.replace(r, max_new_tokens=12) for r in _requests(photos, "generate")]
    one = dict(_backend(path, batch_size=1).generate(requests))
    four = dict(_backend(path, batch_size=4).generate(requests))
    assert sorted(one) == sorted(four) == list(range(len(requests)))
    lengths = {one[i].meta["prompt_tokens"] for i in one}
    assert len(lengths) > 1, "prompts of one length would not exercise left padding"
    for i, response in one.items():
        assert response.text == four[i].text
        assert response.meta == four[i].meta
        assert response.meta["new_tokens"] >= 1


@pytest.mark.parametrize("arch", ARCHS)
def test_ranking_from_one_encoding_equals_separate_forward_passes(tiny_models: Any,
                                                                  photos: Path,
                                                                  arch: str) -> None:
    backend = _backend(tiny_models.path(arch))
    loaded = backend.loaded
    base = _requests(photos, "rank")[0]
    cases = [base,  # option letters: every score from the prompt's one forward pass
             dataclasses.replace(base, candidates=("three cats", "4", "twenty one dots", "no"),
                                 answer_prefix="The best answer is: (")]
    for request in cases:
        prompt = build_prompt(loaded, request, backend.spec)
        cached = score_cached(loaded, prompt, request)
        separate = score_separately(loaded, prompt, request)
        assert cached.scores is not None and separate.scores is not None
        assert cached.mean_scores is not None
        assert cached.meta["candidate_tokens"] == separate.meta["candidate_tokens"]
        for a, b in zip(cached.scores, separate.scores, strict=True):
            assert abs(a - b) <= 1e-4
        for total, mean, n in zip(cached.scores, cached.mean_scores,
                                  cached.meta["candidate_tokens"], strict=True):
            assert mean == pytest.approx(total / n)
        assert len(set(cached.scores)) == len(cached.scores)
    assert max(cached.meta["candidate_tokens"]) > 1


def test_single_token_scores_match_the_first_step_of_generate(tiny_llava: Path,
                                                              photos: Path) -> None:
    import torch

    from whatifbench.models.hf.inputs import encode

    backend = _backend(tiny_llava)
    loaded = backend.loaded
    request = _requests(photos, "rank")[1]
    prompt = build_prompt(loaded, request, backend.spec)
    response = next(iter(backend.score([request])))[1]
    out = loaded.model.generate(**encode(loaded, [prompt]), max_new_tokens=1, do_sample=False,
                                output_scores=True, return_dict_in_generate=True)
    logp = torch.log_softmax(out.scores[0][0].float(), dim=-1)
    ids = [loaded.tokenizer(" " + c, add_special_tokens=False)["input_ids"]
           for c in request.candidates]
    assert response.scores is not None and all(len(i) == 1 for i in ids)
    expected = [float(logp[i[0]]) for i in ids]
    assert response.scores == pytest.approx(expected, abs=1e-5)


def test_changing_the_image_changes_the_scores(tiny_llava: Path, photos: Path) -> None:
    backend = _backend(tiny_llava)
    request = _requests(photos, "rank")[0]
    other = next(p for p in sorted((photos / "images").iterdir())
                 if str(p) != request.turns[-1].images[0])
    turn = request.turns[-1]
    swapped = Turn(turn.role, tuple(Part(image=str(other)) if p.is_image else p
                                    for p in turn.parts))
    moved = dataclasses.replace(request, turns=(swapped,))
    first = dict(backend.score([request, moved, request]))
    assert first[0].scores == first[2].scores
    assert first[0].scores != first[1].scores


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*args, "--no-progress"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("mode", ["rank", "generate"])
def test_cli_run_writes_results_and_a_rerun_is_served_from_the_store(
        tiny_llava: Path, photos: Path, tmp_path: Path, mode: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["run", "--suite", str(photos), "--model", f"hf:{tiny_llava}", "--answer-mode", mode,
            "-M", "batch_size=2", "--max-new-tokens", "8"]
    code, _, err = _run([*args, "--out", str(tmp_path / "a")], capsys)
    assert code == 0, err
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    run = results["runs"][0]
    assert run["n_items"] == 8 and run["spec"]["protocol"]["answer_mode"] == mode
    assert run["spec"]["backend"]["version"].startswith(HFBackend(f"hf:{tiny_llava}", {})
                                                         .version[:20])
    assert "0 from the store, 8 computed, 0 errors" in err

    def refuse(*a: Any, **k: Any) -> None:
        raise AssertionError("the model was loaded although every response is stored")

    monkeypatch.setattr("whatifbench.models.hf.backend.load", refuse)
    code, _, err = _run([*args, "--out", str(tmp_path / "b")], capsys)
    assert code == 0, err
    assert "8 from the store, 0 computed, 0 errors" in err
    assert run_outputs(tmp_path / "a")[0] == run_outputs(tmp_path / "b")[0]


@pytest.mark.parametrize("arch", ["idefics3", "qwen2_vl", "llava"])
def test_one_shot_sends_the_demonstration_image_to_multi_image_models(
        tiny_models: Any, photos: Path, tmp_path: Path, arch: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    requests = _requests(photos, "rank", strategy="one-shot")
    assert all(len(r.images) == 2 and len(r.turns) == 3 for r in requests)
    backend = _backend(tiny_models.path(arch))
    prompt = build_prompt(backend.loaded, requests[0], backend.spec)
    assert prompt.images == requests[0].images
    code, _, err = _run(["run", "--suite", str(photos), "--model", f"hf:{tiny_models.path(arch)}",
                         "--strategy", "one-shot", "--answer-mode", "rank", "--limit", "2",
                         "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    assert (tmp_path / "out" / "results.json").is_file()


def test_one_shot_on_a_single_image_model_says_to_drop_the_demonstration(
        tiny_paligemma: Path, photos: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["run", "--suite", str(photos), "--model", f"hf:{tiny_paligemma}",
                         "--strategy", "one-shot", "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert "takes one image per request" in err and "--strategy zero-shot or cot" in err
    assert "--image-layout composite" not in err  # single-image items: composite cannot help
    assert "Traceback" not in err and not (tmp_path / "out" / "results.json").exists()
    # Zero-shot (one image) works on the same model.
    code, _, err = _run(["run", "--suite", str(photos), "--model", f"hf:{tiny_paligemma}",
                         "--answer-mode", "rank", "--out", str(tmp_path / "ok")], capsys)
    assert code == 0, err


def test_version_identifies_the_weights(tiny_llava: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tiny_llava, copy)
    same = _backend(copy).version
    assert same == _backend(tiny_llava).version
    weights = copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-100] ^= 0xFF
    weights.write_bytes(bytes(data))
    assert _backend(copy).version != same
    template = copy / "chat_template.jinja"
    template.write_text(template.read_text() + " ")
    assert len({_backend(copy).version, same}) == 2


def test_text_only_requests_generate_for_pipelines(tiny_llava: Path, photos: Path) -> None:
    """Construction pipelines (question rewriting, judges) send requests without images."""
    backend = _backend(tiny_llava, batch_size=4)
    requests = [Request(f"t{i}", (Turn("user", (Part(text=f"Rewrite question {i}."),)),),
                        max_new_tokens=5) for i in range(3)]
    image = str(next((photos / "images").iterdir()))
    requests.append(Request("img", (Turn("user", (Part(image=image),
                                                  Part(text="Rewrite question 0."))),),
                            max_new_tokens=5))
    replies = dict(backend.generate(requests))
    assert sorted(replies) == [0, 1, 2, 3]
    assert all(r.error is None and r.meta["new_tokens"] >= 1 for r in replies.values())
    # The 16 image tokens (and their newline) appear only in the request with an image.
    assert replies[3].meta["prompt_tokens"] - replies[0].meta["prompt_tokens"] == 17


@pytest.mark.parametrize(("make", "args", "message"), [
    (lambda tmp: tmp / "missing", {}, "there is no folder"),
    (lambda tmp: tmp, {}, "has no config.json"),
    (None, {"batchsize": 2}, "Unknown argument(s) batchsize"),
    (None, {"batch_size": 0}, "-M batch_size must be a positive integer"),
    (None, {"dtype": "int8"}, "-M dtype=int8 is not supported"),
    (None, {"device": "tpu"}, "-M device=tpu is not supported"),
    (None, {"rank_method": "fast"}, "-M rank_method=fast is not supported"),
])
def test_bad_checkpoint_or_arguments_are_one_clear_error(tiny_llava: Path, tmp_path: Path,
                                                         make: Any, args: dict,
                                                         message: str) -> None:
    folder = make(tmp_path) if make else tiny_llava
    with pytest.raises(WhatifError) as info:
        HFBackend(f"hf:{folder}", args)
    assert message in str(info.value)


def test_arguments_of_the_openai_backend_in_one_run_are_left_to_it(tiny_llava: Path) -> None:
    backend = make_backend(f"hf:{tiny_llava}", {"batch_size": 2, "base_url": "http://h/v1",
                                                "max_connections": 4}, shared=True)
    assert backend.describe()["args"] == {"batch_size": 2}


def test_a_folder_that_is_not_a_vision_language_model_is_one_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text('{"model_type": "bert"}')
    make_photo_dataset(tmp_path / "ds", n_pairs=1)
    code, _, err = _run(["run", "--suite", str(tmp_path / "ds"), "--model",
                         f"hf:{tmp_path / 'ckpt'}", "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "cannot load" in err and "image-text-to-text" in err
    assert "Traceback" not in err


def test_without_torch_the_error_names_the_extra(tiny_llava: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(WhatifError) as info:
        make_backend(f"hf:{tiny_llava}", {})
    assert 'pip install "whatifbench[hf]"' in str(info.value)
    with pytest.raises(WhatifError, match="needs a model after the colon"):
        make_backend("hf:", {})


@pytest.mark.parametrize(("strategy", "calls"), [("zero-shot", 4), ("cot", 4), ("one-shot", 4),
                                                 ("one-shot-cot", 4), ("ccot", 8)])
def test_every_strategy_runs_end_to_end(tiny_idefics3: Path, photos: Path, tmp_path: Path,
                                        strategy: str, calls: int,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["run", "--suite", str(photos), "--model", f"hf:{tiny_idefics3}",
                         "--strategy", strategy, "--limit", "4", "--max-new-tokens", "6",
                         "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    run = json.loads((tmp_path / "out" / "results.json").read_text())["runs"][0]
    assert run["spec"]["protocol"]["strategy"] == strategy and run["n_items"] == 4
    assert f"{calls} computed, 0 errors" in err
    prompts = [json.loads(line)["prompt"] for line in
               (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    assert all(("Let's think step by step" in p) == (strategy == "cot") for p in prompts)
    assert all(("Scene description:" in p) == (strategy == "ccot") for p in prompts)


def test_blip2_without_chat_template_runs_the_papers_prompt(tiny_models: Any, photos: Path,
                                                            tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    path = tiny_models.path("blip2")
    backend = _backend(path)
    request = _requests(photos, "generate")[0]
    prompt = build_prompt(backend.loaded, request, backend.spec)
    assert prompt.text == request.prompt and prompt.images == request.images
    for mode in ("generate", "rank"):
        code, _, err = _run(["run", "--suite", str(photos), "--model", f"hf:{path}",
                             "--prompt", "paper:blip2", "--answer-mode", mode, "--limit", "2",
                             "--max-new-tokens", "6", "--out", str(tmp_path / mode)], capsys)
        assert code == 0, err
        sample = json.loads((tmp_path / mode / "samples.jsonl").read_text().splitlines()[0])
        assert sample["prompt"].startswith("Question: ")
        assert sample["prompt"].endswith(" Short answer:")
