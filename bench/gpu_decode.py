"""Decode throughput of ``bench_gpu.py``: new tokens per second of the decode steps alone, eager
``generate`` vs the fast path (static cache, compiled step), against what the memory bandwidth
allows.

One batch of prompts is generated with exactly ``tokens`` new tokens (``min_new_tokens`` =
``max_new_tokens``, so no row stops early) and with one new token; the difference of the two
times is the decode steps' (prefill cancels out): ``rows * (tokens - 1) / (t_tokens - t_1)``.

The bound: each decode step reads every weight of the language model once (the vision tower is
not run) and the KV cache of every row, so at most ``bandwidth / bytes per step`` steps per
second, times the rows. The bandwidth is measured on the device with one large copy (the
figure a kernel can reach) and, for known cards, also given at its nominal value.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

NOMINAL_GBS = {"H200": 4800, "H100 SXM": 3350, "H100 80GB HBM3": 3350, "H100 NVL": 3900,
               "H100 PCIe": 2000, "A100-SXM4-80GB": 2039, "A100 80GB PCIe": 1935,
               "A100-SXM4-40GB": 1555, "A100-PCIE-40GB": 1555, "L40S": 864, "A10G": 600,
               "L4": 300, "RTX 4090": 1008}
"""Nominal memory bandwidth (GB/s) by a part of the card's name."""
VISION_PARTS = ("vision", "visual", "multi_modal_projector", "merger")
"""Parameter names of the vision side, which decode steps do not read."""


def nominal_bandwidth(card: str) -> float | None:
    """The card's nominal bandwidth in GB/s, when known."""
    for name, gbs in NOMINAL_GBS.items():
        if name.lower() in card.lower():
            return float(gbs)
    return None


def measured_bandwidth(device: str, gib: float = 2.0) -> float:
    """GB/s of one device-to-device copy of ``gib`` GiB (read + write), best of three."""
    import torch

    n = int(gib * 2**30)
    src = torch.empty(n, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    best = float("inf")
    for _ in range(3):
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        start = time.perf_counter()
        dst.copy_(src)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    del src, dst
    return 2 * n / best / 1e9


def decode_bytes(loaded: Any) -> tuple[int, int]:
    """(bytes of the weights a decode step reads, KV-cache bytes per token of context)."""
    weights = sum(p.numel() * p.element_size() for name, p in loaded.model.named_parameters()
                  if not any(part in name for part in VISION_PARTS))
    text = loaded.model.config.get_text_config(decoder=True)
    heads = text.num_attention_heads
    kv_heads = getattr(text, "num_key_value_heads", None) or heads
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // heads
    size = next(loaded.model.parameters()).element_size()
    return weights, 2 * text.num_hidden_layers * kv_heads * head_dim * size


def _timed_generate(loaded: Any, inputs: dict[str, Any], tokens: int, fast: Any) -> float:
    import torch

    kwargs: dict[str, Any] = {"max_new_tokens": tokens, "min_new_tokens": tokens,
                              "do_sample": False,
                              "pad_token_id": loaded.tokenizer.pad_token_id}
    if fast is not None:
        kwargs.update(fast.kwargs(inputs["input_ids"].shape[0],
                                  inputs["input_ids"].shape[1] + tokens))
    cuda = loaded.device.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
    start = time.perf_counter()
    with torch.no_grad():
        out = loaded.model.generate(**inputs, **kwargs)
    if cuda:
        torch.cuda.synchronize()
    assert out.shape[1] == inputs["input_ids"].shape[1] + tokens
    return time.perf_counter() - start


def decode_rates(loaded: Any, prompts: Sequence[Any], tokens: int, fast_mode: str,
                 card: str, device: str) -> dict[str, Any]:
    """New tokens/s of the decode steps for one batch of ``prompts``, eager and fast (warmed up
    first, best of two), and the bandwidth bound."""
    from whatifbench.models.hf.fast_decode import decoder
    from whatifbench.models.hf.inputs import encode

    inputs = encode(loaded, prompts)
    rows, prompt_len = (int(n) for n in inputs["input_ids"].shape)
    out: dict[str, Any] = {"rows": rows, "prompt_tokens": prompt_len, "new_tokens": tokens}
    for name, fast in (("eager", None), ("fast", decoder(loaded, fast_mode == "compiled"))):
        _timed_generate(loaded, inputs, tokens, fast)  # warm-up (compiles the fast step)
        full = min(_timed_generate(loaded, inputs, tokens, fast) for _ in range(2))
        one = min(_timed_generate(loaded, inputs, 1, fast) for _ in range(2))
        out[f"{name}_tokens_per_s"] = rows * (tokens - 1) / max(full - one, 1e-9)
    weights, per_token = decode_bytes(loaded)
    step_bytes = weights + rows * per_token * (prompt_len + tokens / 2)
    measured = measured_bandwidth(device)
    nominal = nominal_bandwidth(card)
    out.update(weight_gb=weights / 1e9, kv_gb_per_step=(step_bytes - weights) / 1e9,
               measured_gbs=measured, nominal_gbs=nominal,
               bound_tokens_per_s=rows * measured * 1e9 / step_bytes)
    if nominal is not None:
        out["nominal_bound_tokens_per_s"] = rows * nominal * 1e9 / step_bytes
    out["fast_share_of_bound"] = out["fast_tokens_per_s"] / out["bound_tokens_per_s"]
    out["eager_share_of_bound"] = out["eager_tokens_per_s"] / out["bound_tokens_per_s"]
    return out


def describe(model: str, rates: dict[str, Any]) -> str:
    """One paragraph of the figures."""
    nominal = ("" if rates.get("nominal_gbs") is None else
               f"; at the nominal {rates['nominal_gbs']:.0f} GB/s: "
               f"{rates['nominal_bound_tokens_per_s']:,.0f}")
    return (f"{model} decode, {rates['rows']} rows x {rates['new_tokens']} new tokens after "
            f"{rates['prompt_tokens']} prompt tokens: eager {rates['eager_tokens_per_s']:,.0f} "
            f"tokens/s, fast {rates['fast_tokens_per_s']:,.0f} tokens/s "
            f"({rates['fast_tokens_per_s'] / rates['eager_tokens_per_s']:.2f}x). Bound: "
            f"{rates['weight_gb']:.3g} GB of weights + {rates['kv_gb_per_step']:.3g} GB of KV "
            f"cache per step at a measured {rates['measured_gbs']:.0f} GB/s: "
            f"{rates['bound_tokens_per_s']:,.0f} tokens/s{nominal}; eager reaches "
            f"{100 * rates['eager_share_of_bound']:.1f} %, fast "
            f"{100 * rates['fast_share_of_bound']:.1f} %.")
