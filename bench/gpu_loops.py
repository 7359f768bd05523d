"""The loops ``bench_gpu.py`` times on the same items: whatif's model phase (``ours``), the bare
transformers loop (``bare``) and lmms-eval (``lmms_runs``)."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gpu_models


def ours(loaded: Any, data: Any, mode: str, batch: int, tokens: int | None, store: Path,
         args: dict[str, Any] | None = None, prompt: str | None = None,
         limit: int | None = None, counts: list[int] | None = None) -> dict[str, Any]:
    """The model phase of ``whatif run``: item id -> chosen option's index (rank) or reply.
    ``args``: more ``-M`` arguments; ``prompt``: ``--prompt``; ``limit``: ``--limit``;
    ``counts`` collects the new tokens of each reply."""
    from whatifbench.core.protocol import Protocol
    from whatifbench.models.hf.backend import HFBackend
    from whatifbench.runner.evaluate import RunOptions, evaluate
    from whatifbench.runner.store import RunStore

    backend = HFBackend(f"hf:{loaded.folder}", {"batch_size": batch, **(args or {})})
    backend._loaded = loaded
    if counts is not None:
        inner = backend.generate

        def counted(requests: Sequence[Any]) -> Any:
            for i, response in inner(requests):
                counts.append(int(response.meta.get("new_tokens") or 0))
                yield i, response

        backend.generate = counted  # type: ignore[method-assign]
    protocol = Protocol(answer_mode=mode, max_new_tokens=tokens,
                        **({"prompt": prompt} if prompt else {}))
    result = evaluate(data, backend, protocol, RunStore(store),
                      RunOptions(progress=False, limit=limit))
    if mode == "rank":
        return {s.item_id: None if s.scores is None else s.scores.index(max(s.scores))
                for s in result.samples}
    return {s.item_id: s.response for s in result.samples}


def release_name(loaded: Any, data: Any, tokens: int | None = None) -> str:
    """The release decoding C-VQA's paper protocol gives this model (family, settings), with
    ``tokens`` new tokens (``None``: the release's budget)."""
    from whatifbench.core.protocol import Protocol
    from whatifbench.models.hf.backend import HFBackend
    from whatifbench.runner.evaluate import get_suite, resolve_protocol

    suite = get_suite(data.suite)
    backend = HFBackend(f"hf:{loaded.folder}", {})
    backend._loaded = loaded
    protocol = resolve_protocol(suite, Protocol(answer_mode="generate", prompt="paper"), backend)
    decoding = suite.decoding(protocol)
    settings = {} if decoding is None else decoding.to_json()
    return (f"{protocol.prompt}, {tokens or protocol.max_new_tokens} new tokens, "
            + ", ".join(f"{k}={v}" for k, v in settings.items()))


def requests_for(loaded: Any, data: Any, mode: str, tokens: int) -> list[Any]:
    """Our requests for every item (the prompts both loops send), as ``ours`` builds them."""
    from whatifbench.core.protocol import Protocol
    from whatifbench.models.hf.backend import HFBackend
    from whatifbench.runner.evaluate import get_suite, resolve_protocol
    from whatifbench.runner.requests import RequestBuilder

    suite = get_suite(data.suite)
    backend = HFBackend(f"hf:{loaded.folder}", {})
    backend._loaded = loaded
    protocol = resolve_protocol(suite, Protocol(answer_mode=mode, max_new_tokens=tokens),
                                backend)
    builder = RequestBuilder(suite, protocol, data)
    return [builder.build(item) for item in data.items]


def bare(loaded: Any, data: Any, mode: str, batch: int, requests: Sequence[Any]) -> dict[str, Any]:
    """The floor: the same forward passes on the same batches, nothing else."""
    import torch

    from whatifbench.models.hf.generation import batches
    from whatifbench.models.hf.inputs import build_prompt, encode
    from whatifbench.models.hf.positions import Positions, family
    from whatifbench.models.hf.ranking import candidate_ids, rank_batches

    spec = f"hf:{loaded.folder}"
    prompts = [build_prompt(loaded, r, spec) for r in requests]
    model, out = loaded.model, {}
    if mode == "rank":
        ids = [[c[0] for c in candidate_ids(loaded, p, r)] for p, r in zip(prompts, requests,
                                                                              strict=True)]
        name = family(loaded.model_type, model.config) or "zero"
        with torch.inference_mode():
            for group in rank_batches(loaded, prompts, batch):
                inputs = encode(loaded, [prompts[i] for i in group])
                pos = Positions.of(name, inputs).prompt(inputs["attention_mask"])
                logits = model(**inputs, **pos, logits_to_keep=1).logits[:, -1].float()
                for row, i in enumerate(group):
                    scores = logits[row].log_softmax(-1)[ids[i]]
                    out[data.items[i].id] = int(scores.argmax())
        return out
    budgets = [r.max_new_tokens for r in requests]
    pad = loaded.tokenizer.pad_token_id
    eos = model.generation_config.eos_token_id
    stops = set(eos if isinstance(eos, list) else [eos])
    with torch.inference_mode():
        for group in batches(prompts, budgets, batch):
            inputs = encode(loaded, [prompts[i] for i in group])
            new = model.generate(**inputs, max_new_tokens=budgets[group[0]], do_sample=False,
                                 pad_token_id=pad)[:, inputs["input_ids"].shape[1]:].tolist()
            for row, i in zip(new, group, strict=True):
                cut = next((k for k, t in enumerate(row) if t in stops), len(row))
                out[data.items[i].id] = loaded.tokenizer.decode(
                    row[:cut], skip_special_tokens=True).strip()
    return out


def lmms_runs(bench: Any, loaded: Any, items: Path, n: int, tokens: int) -> None:
    """lmms-eval's llava_hf on our exported task, in-process, at each batch size it takes."""
    from lmms_eval import evaluator
    from lmms_eval.models import get_model
    from lmms_eval.tasks import TaskManager

    from whatifbench.integrations.lmms.export import export_lmms_eval

    task = export_lmms_eval(items, bench.root / "lmms-task")
    folder = gpu_models.save_weights(loaded)
    manager = TaskManager(include_path=str(task.folder))
    for size in bench.opts.batches:
        if bench.left() <= 0:
            bench.skipped.append(f"llava/lmms-eval/generate/{size}")
            continue
        try:
            lm = get_model("llava_hf").create_from_arg_string(
                f"pretrained={folder},device={bench.opts.device},device_map={bench.opts.device},"
                f"dtype={bench.opts.dtype}", {"batch_size": size})
        except (AssertionError, ValueError, TypeError) as exc:
            print(f"  lmms-eval  batch {size}: not accepted ({exc})")
            continue

        def work(lm: Any = lm, size: int = size) -> dict[str, Any]:
            done = evaluator.simple_evaluate(
                model=lm, tasks=[task.task], task_manager=manager, batch_size=size,
                gen_kwargs=f"max_new_tokens={tokens}", log_samples=True, verbosity="ERROR")
            replies: dict[str, Any] = {}
            for sample in (done or {}).get("samples", {}).get(task.task, []):
                record = sample.get("accuracy") or {}
                reply = sample.get("filtered_resps") or sample.get("resps") or [""]
                while isinstance(reply, list):
                    reply = reply[0] if reply else ""
                replies[str(record.get("id"))] = str(reply).strip()
            return replies

        try:
            bench.timed(("llava", "lmms-eval", "generate", size), n, work,
                        refusals=(AssertionError,))
        except AssertionError as exc:  # "Do not support batch_size_per_gpu > 1"
            print(f"  lmms-eval  batch {size}: not accepted ({exc})")
        del lm
        gc.collect()
