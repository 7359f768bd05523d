"""Batched generation with left padding, as each request's decoding record asks (greedy by
default; a release's sampling, beams, stop strings and special-token handling otherwise)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from whatifbench.core.decoding import Decoding
from whatifbench.core.requests import Response
from whatifbench.models.hf.fast_decode import FastDecoder, applies
from whatifbench.models.hf.inputs import Prompt, pinned, tensors, to_device
from whatifbench.models.hf.loading import Loaded

GREEDY = Decoding()


def batches(prompts: Sequence[Prompt], budgets: Sequence[int], size: int,
            decodings: Sequence[Decoding] | None = None) -> Iterator[list[int]]:
    """Indices grouped into batches of at most ``size`` that share the image count, answer
    prefix, token budget and decoding (so rows can be padded and searched together; a sampled
    request carries its own seed, so it is generated alone), prompts of similar length side by
    side (less padding; length buckets for the fast path's cache), in a deterministic order."""
    chosen = decodings or [GREEDY] * len(prompts)
    groups: dict[tuple[int, tuple[int, ...], int, Decoding], list[int]] = {}
    for i, (prompt, budget) in enumerate(zip(prompts, budgets, strict=True)):
        groups.setdefault((len(prompt.images), prompt.prefix_ids, budget, chosen[i]),
                          []).append(i)
    for members in groups.values():
        members.sort(key=lambda i: len(prompts[i].text))
        for start in range(0, len(members), size):
            yield members[start:start + size]


def generate_kwargs(decoding: Decoding, tokenizer: Any,
                    eos_ids: set[int] | None = None) -> dict[str, Any]:
    """``generate`` arguments for a decoding record: the settings it sets (the rest stay the
    checkpoint's generation config, as in the scripts that call ``generate`` with a few
    arguments); sampling settings are cleared when nothing is sampled. A stop string that is one
    added token of the tokenizer (``</s>``, ``<|im_end|>``) ends generation as an extra
    end-of-sequence id (``eos_ids`` are the model's own); others go to ``stop_strings``, whose
    matching costs a pass over the vocabulary per call."""
    kwargs: dict[str, Any] = {"do_sample": decoding.do_sample, "num_beams": decoding.num_beams}
    for name in ("temperature", "top_p", "top_k"):
        value = getattr(decoding, name)
        if not decoding.do_sample:
            kwargs[name] = None
        elif value is not None:
            kwargs[name] = value
    for name in ("min_length", "length_penalty", "repetition_penalty"):
        value = getattr(decoding, name)
        if value is not None:
            kwargs[name] = value
    if decoding.stop:
        added = tokenizer.get_added_vocab()
        tokens = {added[s] for s in decoding.stop if s in added}
        strings = [s for s in decoding.stop if s not in added]
        if tokens:
            kwargs["eos_token_id"] = sorted(tokens | set(eos_ids or ()))
        if strings:
            kwargs.update(stop_strings=strings, tokenizer=tokenizer)
    return kwargs


def _run(loaded: Loaded, inputs: dict[str, Any], kwargs: dict[str, Any],
         seed: int | None, fast: bool = False) -> Any:
    """``model.generate``; a sampled decoding draws from its own seed (the global random state
    is restored afterwards). ``fast``: under ``no_grad`` rather than ``inference_mode`` (a static
    cache outlives the call and is written again by the next one)."""
    import torch

    with torch.no_grad() if fast else torch.inference_mode():
        if seed is None:
            return loaded.model.generate(**inputs, **kwargs)
        devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(seed)
            return loaded.model.generate(**inputs, **kwargs)


def finish(tokenizer: Any, row: Sequence[int], eos_ids: set[int],
           decoding: Decoding) -> tuple[str, int, str]:
    """The reply in a row of new tokens: (text, tokens used, finish reason). It ends at the
    first stop string or end-of-sequence token (a stop string that is also the end-of-sequence
    token counts as a stop string); that string or token is kept or dropped and the tokens
    decoded as the decoding says."""
    end, reason = len(row), "length"
    window = max((len(s) for s in decoding.stop), default=0) + 1
    for k, tok in enumerate(row):
        if decoding.stop:
            tail = tokenizer.decode(row[max(0, k + 1 - window):k + 1], skip_special_tokens=False)
            if any(stop in tail for stop in decoding.stop):
                end, reason = k + 1, "stop"
                break
        if tok in eos_ids:
            end, reason = k + 1, "eos"
            break
    tokens = list(row[:end])
    if reason == "eos" and not decoding.eos_in_reply:
        tokens = tokens[:-1]
    text = tokenizer.decode(tokens, skip_special_tokens=decoding.skip_special_tokens)
    if reason == "stop":
        found = [(text.find(s), s) for s in decoding.stop if s in text]
        if found:
            at, stop = min(found)
            text = text[:at + len(stop)] if decoding.stop_in_reply else text[:at]
    return (text.strip() if decoding.strip else text), len(tokens), \
        "length" if reason == "length" else "stop"


def prepare_batch(loaded: Loaded, prompts: Sequence[Prompt]) -> dict[str, Any]:
    """The CPU work of a batch (images, tokens): ``inputs.tensors``, pinned for a GPU."""
    return pinned(loaded, tensors(loaded, prompts))


def generate_batch(loaded: Loaded, prompts: Sequence[Prompt], max_new_tokens: int,
                   decoding: Decoding = GREEDY, prepared: dict[str, Any] | None = None,
                   fast: FastDecoder | None = None) -> list[Response]:
    """Replies for prompts that share image count, answer prefix, budget and decoding.
    ``prepared``: their ``prepare_batch`` tensors (made here when ``None``); ``fast``: decode
    from its static cache (``fast_decode``; beam search stays eager)."""
    inputs = to_device(loaded, prepared if prepared is not None
                       else prepare_batch(loaded, prompts))
    config = loaded.model.generation_config
    eos = config.eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
    kwargs = {"max_new_tokens": max_new_tokens, "pad_token_id": loaded.tokenizer.pad_token_id,
              **generate_kwargs(decoding, loaded.tokenizer, eos_ids)}
    start = inputs["input_ids"].shape[1]
    if fast is not None and applies(decoding):
        kwargs.update(fast.kwargs(len(prompts), start + max_new_tokens))
    else:
        fast = None
    out = _run(loaded, inputs, kwargs, decoding.seed, fast is not None)
    mask = inputs.get("attention_mask")
    lengths = mask.sum(dim=1).tolist() if mask is not None else [start] * len(prompts)
    responses = []
    for row, length, prompt in zip(out[:, start:].tolist(), lengths, prompts, strict=True):
        text, used, reason = finish(loaded.tokenizer, row, eos_ids, decoding)
        responses.append(Response(text=text, meta={
            "new_tokens": used, "prompt_tokens": int(length), "finish_reason": reason,
            "model_input": prompt.model_input}))
    return responses
