"""Likelihood ranking: each candidate's token log-probabilities after image + prompt + prefix.

``score_batch`` ranks several items at once. Their prompts are encoded together (left padding,
each row with its own attention mask and positions, see ``positions``); that one forward pass
gives the first token of every candidate of every item (so single-token candidates such as
option letters need nothing more). Its KV cache, each row selected once per multi-token
candidate of its item, feeds batched forward passes over the candidates' remaining tokens.
Models whose forward pass cannot continue from a cache (BLIP-2) score their multi-token
candidates in one padded pass over image + prompt + candidate per row. ``score_separately``
runs one full forward pass per candidate of one item; all paths give the same numbers (up to
float rounding) and the last one serves as a check.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Iterator, Sequence
from typing import Any

from whatifbench.core.requests import Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.hf.inputs import (
    Prompt,
    append_tokens,
    appended_value,
    encode,
    per_token_keys,
    pinned,
    tail_ids,
    tensors,
    to_device,
)
from whatifbench.models.hf.loading import Loaded
from whatifbench.models.hf.positions import Positions, family


def candidate_ids(loaded: Loaded, prompt: Prompt, request: Request) -> list[list[int]]:
    """Token ids of each candidate as it follows the prompt and answer prefix."""
    ids = [tail_ids(loaded.tokenizer, prompt.context, prompt.candidate_lead + c)
           for c in request.candidates]
    for cand, toks in zip(request.candidates, ids, strict=True):
        if not toks:
            raise WhatifError(f"The candidate answer {cand!r} of item {request.item_id} has no "
                              "tokens and cannot be scored.")
    return ids


def _response(sums: Sequence[float], ids: Sequence[Sequence[int]], prompt_tokens: int,
              prompt: Prompt) -> Response:
    return Response(scores=tuple(float(s) for s in sums),
                    mean_scores=tuple(float(s) / len(t) for s, t in zip(sums, ids, strict=True)),
                    meta={"prompt_tokens": prompt_tokens,
                          "candidate_tokens": [len(t) for t in ids],
                          "model_input": prompt.model_input})


def _keep_kwargs(model: Any, n: int) -> dict[str, Any]:
    """``logits_to_keep=n`` where the model supports it (skips the LM head over the prompt)."""
    params = inspect.signature(model.forward).parameters
    return {"logits_to_keep": n} if "logits_to_keep" in params else {}


CACHE_NAMES = ("cache", "past_key_values")
"""The forward argument (and output field) holding the KV cache: ``cache`` from transformers
5.24 on, ``past_key_values`` before."""


def cache_argument(model: Any) -> str | None:
    """The name under which the model's forward pass takes a KV cache to continue from, or
    ``None`` when it cannot (BLIP-2/InstructBLIP, whose forward always starts from the image)."""
    params = inspect.signature(model.forward).parameters
    return next((name for name in CACHE_NAMES if name in params), None)


def takes_cache(model: Any) -> bool:
    """True when the model's forward pass continues from a KV cache."""
    return cache_argument(model) is not None


def output_cache(out: Any) -> Any:
    """The KV cache a forward pass returned (under either name)."""
    for name in CACHE_NAMES:
        value = getattr(out, name, None)
        if value is not None:
            return value
    raise RuntimeError(f"{type(out).__name__} returned no KV cache although use_cache=True")


def rank_batches(loaded: Loaded, prompts: Sequence[Prompt], size: int) -> Iterator[list[int]]:
    """Indices of the items to rank together: at most ``size`` (1 for architectures whose
    padding is not handled, see ``positions.family``) sharing image count and answer prefix,
    similar prompt lengths side by side; deterministic."""
    if family(loaded.model_type, loaded.model.config) is None:
        size = 1
    groups: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for i, prompt in enumerate(prompts):
        groups.setdefault((len(prompt.images), prompt.prefix_ids), []).append(i)
    for members in groups.values():
        members.sort(key=lambda i: len(prompts[i].text))
        for start in range(0, len(members), size):
            yield members[start:start + size]


def score_cached(loaded: Loaded, prompt: Prompt, request: Request) -> Response:
    """Scores of one item (``score_batch`` of a batch of one)."""
    return score_batch(loaded, [prompt], [request])[0]


Prepared = tuple[list[list[list[int]]], dict[str, Any]]
"""A batch's candidate token ids (per item, per candidate) and its CPU tensors."""


def prepare_scores(loaded: Loaded, prompts: Sequence[Prompt],
                   requests: Sequence[Request]) -> Prepared:
    """The CPU work of a ranking batch: candidate tokens, images and prompt tokens."""
    ids = [candidate_ids(loaded, p, r) for p, r in zip(prompts, requests, strict=True)]
    return ids, pinned(loaded, tensors(loaded, prompts))


def score_batch(loaded: Loaded, prompts: Sequence[Prompt], requests: Sequence[Request],
                prepared: Prepared | None = None) -> list[Response]:
    """Scores of several items whose prompts share image count and answer prefix.
    ``prepared``: their ``prepare_scores`` (made here when ``None``)."""
    import torch

    model = loaded.model
    name = family(loaded.model_type, model.config)
    if len(prompts) > 1 and name is None:
        raise ValueError(f"{loaded.model_type} prompts are not ranked in batches")
    ids, cpu = prepared if prepared is not None else prepare_scores(loaded, prompts, requests)
    multi = [(b, k) for b, item in enumerate(ids) for k, toks in enumerate(item) if len(toks) > 1]
    cached = takes_cache(model)
    inputs = to_device(loaded, cpu)
    if "attention_mask" not in inputs:
        inputs["attention_mask"] = torch.ones_like(inputs["input_ids"])
    mask = inputs["attention_mask"]
    positions = Positions.of(name or "zero", inputs)
    lengths = [int(n) for n in mask.sum(-1).tolist()]
    with torch.inference_mode():
        out = model(**inputs, **positions.prompt(mask), use_cache=bool(multi) and cached,
                    **_keep_kwargs(model, 1))
        first = torch.log_softmax(out.logits[:, -1].float(), dim=-1)
        sums = [[float(first[b, toks[0]]) for toks in item] for b, item in enumerate(ids)]
        # Multi-token candidates in passes of at most as many rows as the prompt pass had (or
        # one item's candidates), so memory stays near that of the prompt pass.
        chunk = max(len(prompts), *(len(item) for item in ids))
        for start in range(0, len(multi), chunk):
            rows = multi[start:start + chunk]
            if cached:
                tails = _continue(loaded, output_cache(out), mask, positions, ids, rows)
                for (b, k), tail in zip(rows, tails, strict=True):
                    sums[b][k] += tail
            else:
                for (b, k), total in zip(rows, _full_rows(loaded, inputs, positions, ids,
                                                          rows), strict=True):
                    sums[b][k] = total
    return [_response(s, t, n, p) for s, t, n, p in zip(sums, ids, lengths, prompts, strict=True)]


def _select(cache: Any, rows: Any) -> Any:
    """A cache holding the batch rows ``rows`` of ``cache`` (which stays unchanged)."""
    picked = copy.copy(cache)
    picked.layers = [copy.copy(layer) for layer in cache.layers]
    picked.reorder_cache(rows)
    return picked


def _continue(loaded: Loaded, cache: Any, mask: Any, positions: Positions,
              ids: Sequence[Sequence[Sequence[int]]],
              rows: Sequence[tuple[int, int]]) -> list[float]:
    """Summed log-probabilities of the tokens after the first of the candidates ``rows``
    ((item, candidate) pairs), each row continuing from its item's slice of the prompt cache."""
    import torch

    device = mask.device
    index = torch.tensor([b for b, _ in rows], device=device)
    width = max(len(ids[b][k]) for b, k in rows) - 1
    pad = loaded.tokenizer.pad_token_id or 0
    # Right padding: padded positions come after every scored one, so causal attention keeps
    # them out of the scores; they are attended (mask 1) so that no row is fully masked.
    feed = torch.tensor([[*ids[b][k][:-1], *[pad] * (width + 1 - len(ids[b][k]))]
                         for b, k in rows], device=device)
    row_mask = torch.cat([mask.index_select(0, index),
                          torch.ones((len(rows), width), dtype=mask.dtype, device=device)], dim=1)
    cache_kwarg = {cache_argument(loaded.model) or "past_key_values": _select(cache, index)}
    out = loaded.model(input_ids=feed, **cache_kwarg, attention_mask=row_mask, use_cache=True,
                       **positions.following(loaded.model, mask, index, width))
    logp = torch.log_softmax(out.logits.float(), dim=-1)
    return [sum(float(logp[r, j, tok]) for j, tok in enumerate(ids[b][k][1:]))
            for r, (b, k) in enumerate(rows)]


def _full_rows(loaded: Loaded, inputs: dict[str, Any], positions: Positions,
               ids: Sequence[Sequence[Sequence[int]]],
               rows: Sequence[tuple[int, int]]) -> list[float]:
    """Summed log-probabilities of the candidates ``rows`` from one padded pass over image +
    prompt + candidate per row (left padding; for models that cannot continue from a cache).
    Every per-token input is re-padded with the rows (``per_token_keys``)."""
    import torch

    mask = inputs["attention_mask"]
    device = mask.device
    width = max(int(mask[b].sum()) + len(ids[b][k]) for b, k in rows)
    feed: dict[str, Any] = {}
    for key in per_token_keys(inputs):
        value = inputs[key]
        padded = []
        for b, k in rows:
            real = value[b][mask[b].bool()]
            fill = appended_value(loaded, key, real)
            tail = torch.tensor(ids[b][k] if fill is None else [fill] * len(ids[b][k]),
                                dtype=value.dtype, device=device)
            left = (loaded.tokenizer.pad_token_id or 0) if key == "input_ids" else 0
            lead = torch.full((width - len(real) - len(tail),), left, dtype=value.dtype,
                              device=device)
            padded.append(torch.cat([lead, real, tail]))
        feed[key] = torch.stack(padded)
    index = torch.tensor([b for b, _ in rows], device=device)
    extra = _item_rows({k: v for k, v in inputs.items() if k not in feed}, index, len(mask))
    longest = max(len(ids[b][k]) for b, k in rows)
    out = loaded.model(**feed, use_cache=False, **extra,
                       **positions.prompt(feed["attention_mask"]),
                       **_keep_kwargs(loaded.model, longest + 1))
    logp = torch.log_softmax(out.logits[:, -longest - 1:-1].float(), dim=-1)
    return [sum(float(logp[r, longest - len(ids[b][k]) + j, tok])
                for j, tok in enumerate(ids[b][k]))
            for r, (b, k) in enumerate(rows)]


def _item_rows(inputs: dict[str, Any], index: Any, batch: int) -> dict[str, Any]:
    """The image inputs of the batch items ``index`` (entries may repeat): tensors with one row
    per item are selected by row; Qwen2-VL's ``pixel_values``, the patches of every image one
    after the other (``image_grid_thw`` gives each image's t x h x w patch count), by the patch
    ranges of the items' images."""
    import torch

    out = {key: value.index_select(0, index) for key, value in inputs.items()
           if hasattr(value, "index_select") and value.ndim and value.shape[0] == batch}
    grid = inputs.get("image_grid_thw")
    pixels = inputs.get("pixel_values")
    if grid is not None and pixels is not None and pixels.shape[0] != batch:
        per_item = len(grid) // batch  # a batch shares its image count (``rank_batches``)
        ends = grid.prod(-1).cumsum(0).tolist()
        starts = [0, *ends[:-1]]
        images = [b * per_item + j for b in index.tolist() for j in range(per_item)]
        out["pixel_values"] = torch.cat([pixels[starts[i]:ends[i]] for i in images])
        out["image_grid_thw"] = grid[images]
    return out


def score_separately(loaded: Loaded, prompt: Prompt, request: Request) -> Response:
    """Scores from one full forward pass (image + prompt + candidate) per candidate."""
    import torch

    ids = candidate_ids(loaded, prompt, request)
    base = encode(loaded, [prompt])
    length = int(base["input_ids"].shape[1])
    sums = []
    with torch.inference_mode():
        for toks in ids:
            inputs = append_tokens(loaded, base, toks)
            out = loaded.model(**inputs, use_cache=False,
                               **_keep_kwargs(loaded.model, len(toks) + 1))
            logp = torch.log_softmax(out.logits[0, -len(toks) - 1:-1].float(), dim=-1)
            sums.append(sum(float(logp[j, tok]) for j, tok in enumerate(toks)))
    return _response(sums, ids, length, prompt)
