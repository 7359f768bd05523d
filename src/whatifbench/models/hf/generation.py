"""Batched greedy generation with left padding."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from whatifbench.models.base import Response
from whatifbench.models.hf.inputs import Prompt, encode
from whatifbench.models.hf.loading import Loaded


def batches(prompts: Sequence[Prompt], budgets: Sequence[int],
            size: int) -> Iterator[list[int]]:
    """Indices grouped into batches of at most ``size`` that share the image count, answer
    prefix and token budget (so rows can be padded together), in a deterministic order."""
    groups: dict[tuple[int, tuple[int, ...], int], list[int]] = {}
    for i, (prompt, budget) in enumerate(zip(prompts, budgets, strict=True)):
        groups.setdefault((len(prompt.images), prompt.prefix_ids, budget), []).append(i)
    for members in groups.values():
        for start in range(0, len(members), size):
            yield members[start:start + size]


def generate_batch(loaded: Loaded, prompts: Sequence[Prompt],
                   max_new_tokens: int) -> list[Response]:
    """Greedy replies for prompts that share image count, answer prefix and budget."""
    import torch

    inputs = encode(loaded, prompts)
    config = loaded.model.generation_config
    eos = config.eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
    pad = loaded.tokenizer.pad_token_id
    with torch.inference_mode():
        out = loaded.model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False,
                                    num_beams=1, temperature=None, top_p=None, top_k=None,
                                    pad_token_id=pad)
    start = inputs["input_ids"].shape[1]
    mask = inputs.get("attention_mask")
    lengths = mask.sum(dim=1).tolist() if mask is not None else [start] * len(prompts)
    responses = []
    for row, length, prompt in zip(out[:, start:].tolist(), lengths, prompts, strict=True):
        stop = next((k for k, tok in enumerate(row) if tok in eos_ids), None)
        tokens = row if stop is None else row[:stop]
        text = loaded.tokenizer.decode(tokens, skip_special_tokens=True)
        responses.append(Response(text=text.strip(), meta={
            "new_tokens": len(tokens), "prompt_tokens": int(length),
            "finish_reason": "length" if stop is None else "stop",
            "model_input": prompt.model_input}))
    return responses
