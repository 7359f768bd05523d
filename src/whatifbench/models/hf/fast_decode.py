"""The fast decoding path of ``hf:`` generation: a static KV cache and a compiled decode step.

Eager ``generate`` grows a dynamic KV cache by concatenation at every step and launches every
kernel of the decode step from Python; at batch 32 on a large GPU it reaches a few per cent of
what the memory bandwidth allows. Here each decode step writes into a preallocated cache
(transformers' ``StaticCache``), so the step has fixed shapes and transformers compiles it
(``torch.compile``; CUDA graphs on a GPU, ``mode="reduce-overhead"``). Prefill stays eager.

- **Caches are kept and reused** across batches and calls (``FastDecoder``, one per model): a
  compiled step reads the cache at fixed addresses, and allocating it once saves the time.
- **Length buckets**: a cache holds a multiple of ``CACHE_BUCKET`` tokens, at least the longest
  prompt + budget seen so far, so that the compiled step sees one cache length (a new length
  compiles again); batches group prompts of similar length (``generation.batches``).
- **Batch size from free memory** (``auto_batch_size``): when ``-M batch_size`` is not given,
  as many rows as the GPU's free memory holds (KV cache + prefill activations), up to
  ``MAX_AUTO_BATCH``.

On by default on CUDA (``-M fast_decode=auto``); ``-M fast_decode=false`` turns it off,
``true`` forces the static cache on any device (compiled on CUDA only) and ``compile``
compiles it everywhere (tests). Greedy outputs equal eager ``generate``'s
(``tests/test_hf_fast_decode.py``); beam search always runs eagerly.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

from whatifbench.core.decoding import Decoding
from whatifbench.errors import WhatifError
from whatifbench.models.hf.loading import DEFAULT_BATCH, PLAIN_PROMPT_TYPES, HFOptions, Loaded
from whatifbench.models.hf.ranking import cache_argument

CACHE_BUCKET = 256
"""Static caches hold a multiple of this many tokens."""
MAX_AUTO_BATCH = 64
"""The largest batch ``auto_batch_size`` chooses."""
MEMORY_SHARE = 0.7
"""The share of the GPU's free memory an automatic batch may fill."""
KEPT_CACHES = 4
"""Static caches kept per model (one per batch row count, the least recently used dropped)."""


def unsupported(loaded: Loaded) -> str | None:
    """Why this checkpoint cannot decode from a static cache, or ``None`` when it can."""
    if loaded.model_type in PLAIN_PROMPT_TYPES or cache_argument(loaded.model) is None:
        return f"a {loaded.model_type} model's forward pass takes no KV cache"
    if getattr(loaded.model, "hf_device_map", None) and len(
            set(loaded.model.hf_device_map.values())) > 1:
        return "the model is split over several devices (-M device_map)"
    return None


def fast_mode(loaded: Loaded, options: HFOptions, spec: str) -> str | None:
    """``compiled`` (static cache, compiled decode step), ``static`` (static cache, eager step)
    or ``None`` (eager ``generate``), as ``-M fast_decode`` and the device say."""
    choice = options.fast_decode
    if choice == "false":
        return None
    why = unsupported(loaded)
    if choice == "auto":
        return "compiled" if loaded.device.type == "cuda" and why is None else None
    if why is not None:
        raise WhatifError(f"{spec}: -M fast_decode={choice} cannot be used: {why}. Leave the "
                          "argument out (or pass -M fast_decode=false) to decode eagerly.")
    return "compiled" if choice == "compile" or loaded.device.type == "cuda" else "static"


def applies(decoding: Decoding) -> bool:
    """Beam search keeps the eager path (its cache is reordered at every step)."""
    return decoding.num_beams == 1


def _bucket(tokens: int) -> int:
    return -(-tokens // CACHE_BUCKET) * CACHE_BUCKET


class FastDecoder:
    """The static caches of one model and the ``generate`` arguments that use them."""

    def __init__(self, loaded: Loaded, compiled: bool) -> None:
        # Nothing here refers to the model itself: ``_DECODERS`` holds decoders by weak
        # reference to their model, which a reference back would keep alive.
        self.text_config = loaded.model.config.get_text_config(decoder=True)
        self.cuda = loaded.device.type == "cuda"
        self.compiled = compiled
        self.length = 0
        """The cache length every cache now has (the longest bucket needed so far)."""
        self.caches: OrderedDict[int, Any] = OrderedDict()
        """Row count → ``StaticCache``, most recently used last."""
        self.cache_name = cache_argument(loaded.model) or "past_key_values"

    def cache(self, rows: int, tokens: int) -> Any:
        """A reset static cache of ``rows`` rows holding at least ``tokens`` tokens."""
        from transformers import StaticCache

        needed = _bucket(tokens)
        if needed > self.length:  # every cache takes the new length: one compiled shape
            self.length = needed
            self.caches.clear()
        cache = self.caches.pop(rows, None)
        if cache is None:
            cache = StaticCache(config=self.text_config, max_cache_len=self.length)
            while len(self.caches) >= KEPT_CACHES:
                self.caches.popitem(last=False)
        else:
            cache.reset()
        self.caches[rows] = cache
        return cache

    def kwargs(self, rows: int, tokens: int) -> dict[str, Any]:
        """``generate`` arguments for a batch of ``rows`` rows needing ``tokens`` cache slots
        (prompt + budget): the cache, and the compilation of the decode step."""
        from transformers import CompileConfig

        out: dict[str, Any] = {self.cache_name: self.cache(rows, tokens)}
        if not self.compiled:
            out["disable_compile"] = True
            return out
        config = CompileConfig(fullgraph=False, dynamic=True,
                               mode="reduce-overhead" if self.cuda else "default")
        if not self.cuda:
            config._compile_all_devices = True  # type: ignore[assignment]  # CUDA-only otherwise
        out["compile_config"] = config
        return out

    def held_bytes(self) -> int:
        """Bytes of the caches kept."""
        total = 0
        for cache in self.caches.values():
            for layer in getattr(cache, "layers", ()):
                for name in ("keys", "values"):
                    value = getattr(layer, name, None)
                    if value is not None and hasattr(value, "nbytes"):
                        total += int(value.nbytes)
        return total


_DECODERS: weakref.WeakKeyDictionary[Any, dict[bool, FastDecoder]] = weakref.WeakKeyDictionary()
"""Per model: its decoders (compiled or not). Backends that share a model (a benchmark's runs,
Ray actors' successive backends) share its caches and compiled step."""


def decoder(loaded: Loaded, compiled: bool) -> FastDecoder:
    """The fast decoder of ``loaded``'s model."""
    per_model = _DECODERS.setdefault(loaded.model, {})
    if compiled not in per_model:
        per_model[compiled] = FastDecoder(loaded, compiled)
    return per_model[compiled]


def release(loaded: Loaded) -> None:
    """Drop the static caches of ``loaded``'s model (the backend closes)."""
    for fast in _DECODERS.pop(loaded.model, {}).values():
        fast.caches.clear()


def auto_batch_size(loaded: Loaded, prompt_tokens: int, new_tokens: int) -> int:
    """Rows per batch from the GPU's free memory (``DEFAULT_BATCH`` on other devices): each
    row holds its KV cache (prompt + budget, bucketed), its prefill activations and its logits;
    ``MEMORY_SHARE`` of the free memory (plus what this model's caches hold) is filled, rounded
    down to a power of two, at most ``MAX_AUTO_BATCH``."""
    import torch

    if loaded.device.type != "cuda":
        return DEFAULT_BATCH
    free, _ = torch.cuda.mem_get_info(loaded.device)
    free += sum(f.held_bytes() for f in _DECODERS.get(loaded.model, {}).values())
    text = loaded.model.config.get_text_config(decoder=True)
    heads = getattr(text, "num_attention_heads", 1)
    kv_heads = getattr(text, "num_key_value_heads", None) or heads
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // heads
    size = torch.finfo(loaded.dtype).bits // 8
    per_token = 2 * text.num_hidden_layers * kv_heads * head_dim * size
    activations = prompt_tokens * (4 * text.hidden_size + 2 * getattr(
        text, "intermediate_size", 4 * text.hidden_size)) * size
    per_row = (per_token * _bucket(prompt_tokens + new_tokens) + activations
               + 2 * 4 * text.vocab_size)
    rows = max(1, min(MAX_AUTO_BATCH, int(MEMORY_SHARE * free) // per_row))
    return 1 << (rows.bit_length() - 1)
