"""Likelihood ranking: each candidate's token log-probabilities after image + prompt + prefix.

``score_cached`` encodes the prompt once: one forward pass over image and prompt gives the
first token of every candidate (so single-token candidates such as option letters need nothing
more), and its KV cache, repeated once per multi-token candidate, feeds one batched forward pass
over the candidates' remaining tokens. ``score_separately`` runs one full forward pass per
candidate; both give the same numbers (up to float rounding) and the latter serves as a check.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from whatifbench.errors import WhatifError
from whatifbench.models.base import Request, Response
from whatifbench.models.hf.inputs import Prompt, append_tokens, encode, tail_ids
from whatifbench.models.hf.loading import Loaded


def candidate_ids(loaded: Loaded, prompt: Prompt, request: Request) -> list[list[int]]:
    """Token ids of each candidate as it follows the prompt and answer prefix."""
    ids = [tail_ids(loaded.tokenizer, prompt.context, prompt.candidate_lead + c)
           for c in request.candidates]
    for cand, toks in zip(request.candidates, ids, strict=True):
        if not toks:
            raise WhatifError(f"The candidate answer {cand!r} of item {request.item_id} has no "
                              "tokens and cannot be scored.")
    return ids


def _response(sums: Sequence[float], ids: Sequence[Sequence[int]], prompt_tokens: int) -> Response:
    return Response(scores=tuple(float(s) for s in sums),
                    mean_scores=tuple(float(s) / len(t) for s, t in zip(sums, ids, strict=True)),
                    meta={"prompt_tokens": prompt_tokens,
                          "candidate_tokens": [len(t) for t in ids]})


def _keep_kwargs(model: Any, n: int) -> dict[str, Any]:
    """``logits_to_keep=n`` where the model supports it (skips the LM head over the prompt)."""
    params = inspect.signature(model.forward).parameters
    return {"logits_to_keep": n} if "logits_to_keep" in params else {}


def takes_cache(model: Any) -> bool:
    """True when the model's forward pass continues from a KV cache (not BLIP-2/InstructBLIP,
    whose forward always starts from the image)."""
    return "past_key_values" in inspect.signature(model.forward).parameters


def score_cached(loaded: Loaded, prompt: Prompt, request: Request) -> Response:
    """Scores from one encoding of the prompt (shared KV cache). Models that cannot continue
    from a cache score multi-token candidates with ``score_separately``."""
    import torch

    ids = candidate_ids(loaded, prompt, request)
    multi = [k for k, toks in enumerate(ids) if len(toks) > 1]
    model = loaded.model
    if multi and not takes_cache(model):
        return score_separately(loaded, prompt, request)
    inputs = encode(loaded, [prompt])
    with torch.inference_mode():
        out = model(**inputs, use_cache=bool(multi), **_keep_kwargs(model, 1))
        first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
        sums = [float(first[toks[0]]) for toks in ids]
        if multi:
            cache = out.past_key_values
            cache.batch_repeat_interleave(len(multi))
            width = max(len(ids[k]) for k in multi) - 1
            pad = loaded.tokenizer.pad_token_id or 0
            # Right padding: padded positions come after every scored one, so causal attention
            # keeps them out of the scores and no attention mask is needed.
            rows = [ids[k][:-1] + [pad] * (width - len(ids[k]) + 1) for k in multi]
            more = model(input_ids=torch.tensor(rows, device=loaded.device),
                         past_key_values=cache, use_cache=True)
            logp = torch.log_softmax(more.logits.float(), dim=-1)
            for row, k in enumerate(multi):
                for j, tok in enumerate(ids[k][1:]):
                    sums[k] += float(logp[row, j, tok])
    return _response(sums, ids, int(inputs["input_ids"].shape[1]))


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
    return _response(sums, ids, length)
