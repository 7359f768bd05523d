"""The decoding records of C-VQA's paper protocol: how a reply's tokens become text, the cache
keys, the run records (per sample and per run), repeatable sampled runs on a tiny LLaVA, and the
sampling settings an API server is sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cvqa_real_helpers import one_pair
from util import run_outputs

from whatifbench.cli.main import main
from whatifbench.core.decoding import Decoding
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.models.hf.generation import finish
from whatifbench.runner.requests import ImageHasher, request_key
from whatifbench.suites.cvqa.families import FAMILIES
from whatifbench.suites.cvqa.templates import TEMPLATES

VICUNA = ("A chat between a curious human and an artificial intelligence assistant. The "
          "assistant gives helpful, detailed, and polite answers to the human's questions.")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One C-VQA-Real pair about a real photograph."""
    row = {"img_path": "a.jpg", "query": "Is there a cat?", "answer": "yes",
           "new query": "Would there be a cat if it left?", "new answer": "no",
           "type": "boolean"}
    return one_pair(tmp_path_factory.mktemp("cvqa"), row)


# -- tokens → text -------------------------------------------------------------------------------
def test_finish_reads_tokens_as_each_decoding_says(tiny_llava: Path) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_llava)
    ids = tok(" 2 cats").input_ids
    eos, pad = tok.eos_token_id, tok.pad_token_id
    llava = FAMILIES["llava"].release_decoding(TEMPLATES["llava_v1"])
    assert llava is not None
    assert finish(tok, [*ids, eos, pad, pad], {eos}, llava) == ("2 cats</s>", len(ids) + 1,
                                                                 "stop")
    assert finish(tok, [*ids, eos, pad], {eos}, Decoding()) == ("2 cats", len(ids), "stop")
    assert finish(tok, ids, {eos}, Decoding(strip=False)) == (" 2 cats", len(ids), "length")
    v0 = Decoding(stop=("###",), stop_in_reply=True, skip_special_tokens=False)
    hashes = tok("###Human").input_ids
    assert finish(tok, [*ids, *hashes], {eos}, v0)[0] == "2 cats###"
    cut = Decoding(stop=("###",), eos_in_reply=True, skip_special_tokens=False)
    assert finish(tok, [*ids, *hashes], {eos}, cut)[0] == "2 cats"
    assert finish(tok, [*ids, eos], {eos}, cut)[0] == "2 cats</s>"


# -- cache keys ----------------------------------------------------------------------------------
def test_cache_keys_hold_the_decoding(tmp_path: Path) -> None:
    from whatifbench.runner.backends import make_backend

    backend = make_backend("builtin:random", {})
    base = Request("x", (Turn("user", (Part(text="q"),)),), max_new_tokens=512)
    release = FAMILIES["llava"].release_decoding(TEMPLATES["llava_v1"])
    assert release is not None

    def key(request: Request, mode: str = "generate") -> str:
        return request_key(backend, mode, request, ImageHasher())

    keys = {key(Request(**{**base.__dict__, "decoding": d})) for d in
            (release.seeded(1), release.seeded(2), release.greedy(), None)}
    assert len(keys) == 4
    assert key(Request(**{**base.__dict__, "decoding": Decoding()})) == key(base)
    ranked = Request(**{**base.__dict__, "decoding": release.seeded(1)})
    assert key(ranked, "rank") == key(base, "rank")


# -- runs on the tiny LLaVA ----------------------------------------------------------------------
def _run(dataset: Path, model: Path, out: Path, store: Path, *extra: str) -> dict[str, Any]:
    assert main(["run", "--suite", str(dataset), "--model", f"hf:{model}", "--prompt", "paper",
                 "--store", str(store), "--out", str(out), "--no-progress", *extra]) == 0
    return json.loads((out / "results.json").read_text())["runs"][0]


def test_paper_run_records_the_request_and_repeats(dataset: Path, tiny_llava: Path,
                                                   tmp_path: Path) -> None:
    first = _run(dataset, tiny_llava, tmp_path / "a", tmp_path / "a.sqlite", "--seed", "3")
    spec = first["spec"]
    assert {k: spec["protocol"][k] for k in ("prompt", "family", "template", "decoding",
                                             "max_new_tokens")} == {
        "prompt": "paper:llava", "family": "llava", "template": "llava_v1",
        "decoding": "release", "max_new_tokens": 512}
    request = spec["request"]
    assert request["release"] == "Letian2003/C-VQA scripts/run_eval_llava.py"
    assert request["prompt"] == (f"{VICUNA} USER: <image>\n{{question}} Answer the question "
                                 "using a single word or phrase. ASSISTANT:")
    assert request["generation"]["temperature"] == 0.2
    assert request["generation"]["max_new_tokens"] == 512
    _, samples = run_outputs(tmp_path / "a")
    assert len(samples) == 2
    for sample in samples:
        assert sample["model_input"] == (f"{VICUNA} USER: <image>\n{sample['question']} Answer "
                                         "the question using a single word or phrase. "
                                         "ASSISTANT:")
        gen = sample["generation"]
        assert (gen["do_sample"], gen["temperature"], gen["max_new_tokens"], gen["stop"]) == \
            (True, 0.2, 512, ["</s>"])
        assert isinstance(gen["seed"], int)
    assert samples[0]["generation"]["seed"] != samples[1]["generation"]["seed"]
    # The same seed in a fresh store samples the same replies (a short budget keeps it quick);
    # a store answers a repeat without a call.
    short = ("--seed", "3", "--max-new-tokens", "24")
    _run(dataset, tiny_llava, tmp_path / "b", tmp_path / "b.sqlite", *short)
    _run(dataset, tiny_llava, tmp_path / "c", tmp_path / "c.sqlite", *short)
    replies = [s["response"] for s in run_outputs(tmp_path / "b")[1]]
    assert run_outputs(tmp_path / "c")[1] == run_outputs(tmp_path / "b")[1]
    _run(dataset, tiny_llava, tmp_path / "d", tmp_path / "b.sqlite", *short)
    execution = json.loads((tmp_path / "d" / "execution.json").read_text())["runs"][0]
    assert (execution["from_store"], execution["computed"]) == (2, 0)
    assert [s["response"] for s in run_outputs(tmp_path / "d")[1]] == replies
    # Another seed is another request: computed again, not taken from the store.
    _run(dataset, tiny_llava, tmp_path / "e", tmp_path / "b.sqlite", "--seed", "4",
         "--max-new-tokens", "24")
    execution = json.loads((tmp_path / "e" / "execution.json").read_text())["runs"][0]
    assert (execution["from_store"], execution["computed"]) == (0, 2)


def test_builtin_models_decode_their_own_way(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", "--suite", str(dataset), "--model", "builtin:random", "--prompt",
                 "paper", "--out", str(out), "--no-progress"]) == 0
    spec = json.loads((out / "results.json").read_text())["runs"][0]["spec"]
    assert spec["protocol"]["decoding"] == "backend"
    assert spec["request"]["generation"] is None
    assert all(s["generation"] is None for s in run_outputs(out)[1])


# -- API servers ---------------------------------------------------------------------------------
def test_api_models_get_the_sampling_settings(dataset: Path, tmp_path: Path,
                                              fake_openai: Any) -> None:
    server = fake_openai({"record_bodies": True})
    out = tmp_path / "run"
    assert main(["run", "--suite", str(dataset), "--model", "openai:llava-1.5", "--base-url",
                 server.url, "--prompt", "paper", "--seed", "1", "--out", str(out),
                 "--no-progress"]) == 0
    bodies = [r["body"] for r in server.requests()]
    samples = run_outputs(out)[1]
    assert sorted(b["seed"] for b in bodies) == sorted(s["generation"]["seed"] for s in samples)
    for body in bodies:
        assert (body["temperature"], body["max_tokens"]) == (0.2, 512)
        assert body["messages"][-1]["content"][-1]["text"].endswith(
            " Answer the question using a single word or phrase.")
    assert main(["run", "--suite", str(dataset), "--model", "openai:llava-1.5", "--base-url",
                 server.url, "--prompt", "paper", "--decoding", "greedy", "--out",
                 str(tmp_path / "greedy"), "--no-progress"]) == 0
    greedy = [r["body"] for r in server.requests()][len(bodies):]
    assert [(b["temperature"], "seed" in b) for b in greedy] == [(0.0, False)] * 2
