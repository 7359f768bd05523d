"""How a reply is generated and read back: a request's decoding record (``Request.decoding``).

A suite whose paper protocol repeats a release script's generation call (C-VQA's LLaVA script
samples at temperature 0.2, LAVIS searches five beams, Qwen-VL's ``model.chat`` samples with
top-p 0.3) puts that call's settings on each request; local and API backends apply them, and the
record is part of the cache key. A request without one is decoded the way every backend decodes
by default: greedy search, the reply cut before its end-of-sequence token, special tokens
skipped, outer whitespace removed — exactly ``Decoding()``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Decoding:
    """The search, its settings, where the reply stops and how its tokens become text."""

    do_sample: bool = False
    """Sample (``True``) or search (greedy, or beams with ``num_beams`` > 1)."""
    temperature: float | None = None
    """Sampling temperature; ``None``: the model's generation config (transformers: 1.0)."""
    top_p: float | None = None
    """Nucleus sampling threshold; ``None``: the model's generation config (transformers: 1.0)."""
    top_k: int | None = None
    """Top-k sampling (0 disables it); ``None``: the model's generation config (transformers:
    50)."""
    num_beams: int = 1
    """Beam-search width (1: no beams)."""
    min_length: int | None = None
    """Minimum sequence length as transformers counts it (``None``: not set)."""
    length_penalty: float | None = None
    """Beam-search length penalty (``None``: not set)."""
    repetition_penalty: float | None = None
    """Repetition penalty (1.0: none; ``None``: not set)."""
    stop: tuple[str, ...] = ()
    """Strings that end the reply (a conversation template's separator), beside the model's
    end-of-sequence token."""
    stop_in_reply: bool = False
    """The stop string that ended the reply stays in its text (LLaVA's script decodes every
    generated token, its keyword stop included); else the text is cut before it."""
    eos_in_reply: bool = False
    """An end-of-sequence token that ended the reply stays in its text (decoded as ``</s>``
    when special tokens are kept); else it is dropped."""
    skip_special_tokens: bool = True
    """Special tokens are left out when the reply's tokens are decoded."""
    strip: bool = True
    """Outer whitespace is removed from the decoded reply."""
    seed: int | None = None
    """The seed of a sampled reply (``None`` when nothing is sampled): each request carries its
    own, so a reply does not depend on batching, order or resuming."""

    def __post_init__(self) -> None:
        if self.num_beams < 1:
            raise ValueError(f"num_beams must be at least 1, got {self.num_beams}")
        if self.seed is not None and not self.do_sample:
            raise ValueError("a seed belongs to a sampled decoding")

    @property
    def is_default(self) -> bool:
        """True for the decoding every backend applies to a request without a record."""
        return self == Decoding()

    def greedy(self) -> Decoding:
        """The same request decoded deterministically: greedy search, nothing sampled (stop
        strings, special tokens and stripping kept)."""
        return replace(self, do_sample=False, temperature=None, top_p=None, top_k=None,
                       num_beams=1, length_penalty=None, seed=None)

    def seeded(self, seed: int) -> Decoding:
        """This decoding with ``seed`` when it samples (otherwise unchanged)."""
        return replace(self, seed=seed) if self.do_sample else self

    def to_json(self) -> dict[str, Any]:
        """The settings that are set (``None`` fields left out), as recorded and keyed."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


DECODING_KINDS = ("hf", "openai")
"""Backend kinds that apply a request's decoding record; the others (built-in references,
program backends, whose code LLM has settings of its own) decode their own way."""


def applies_decoding(spec: str) -> bool:
    """True when the backend ``spec`` applies decoding records (by its kind, so that a Ray
    actor pool's stand-in answers like the backend it stands for)."""
    return spec.split(":", 1)[0] in DECODING_KINDS


def request_seed(seed: int, item_id: str) -> int:
    """The sampling seed of one item's request in a run with ``seed`` (31 bits, stable across
    processes and Python versions)."""
    digest = hashlib.sha256(f"{seed}:{item_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
