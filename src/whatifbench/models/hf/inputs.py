"""Requests → model inputs: the checkpoint's chat template (or the prompt format of the few
models without one), images, and the answer prefix appended as tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from whatifbench.core.images import open_image
from whatifbench.core.requests import Request
from whatifbench.errors import WhatifError
from whatifbench.models.hf.loading import PLAIN_PROMPT_TYPES, Loaded

TOKEN_KEYS = ("input_ids", "attention_mask", "token_type_ids", "mm_token_type_ids")
"""Per-token inputs known by name. Any other tensor the processor returns with one row per prompt
and one column per token is per-token too (``per_token_keys``)."""


def per_token_keys(inputs: dict[str, Any]) -> list[str]:
    """Keys of the per-token tensors of an encoded batch: those of ``TOKEN_KEYS`` present and every
    other 2-D tensor shaped like ``input_ids`` (batch, sequence), as newer processors add them
    (transformers 5.24's ``mm_token_type_ids``)."""
    ids = inputs["input_ids"]
    return [key for key, value in inputs.items()
            if key in TOKEN_KEYS or (getattr(value, "ndim", 0) == 2
                                     and tuple(value.shape) == tuple(ids.shape))]


def appended_value(loaded: Loaded, key: str, row: Any) -> int | None:
    """The value a per-token input takes at a text token appended after a prompt whose values are
    ``row`` (a 1-D tensor of that prompt's real tokens): ``None`` for ``input_ids`` (the tokens
    themselves), 1 for the attention mask and for PaliGemma's ``token_type_ids`` (appended tokens
    are the causal suffix, like generated ones), 0 (text) for other type ids, else the value of
    the prompt's last token."""
    if key == "input_ids":
        return None
    if key == "attention_mask" or (key == "token_type_ids" and loaded.model_type == "paligemma"):
        return 1
    if key in TOKEN_KEYS:
        return 0
    return int(row[-1]) if len(row) else 0


@dataclass(frozen=True)
class Prompt:
    """One request in the form the processor takes."""

    text: str
    """Text given to the processor (image placeholders not yet expanded)."""
    context: str
    """Text whose tokenization ends exactly as the processor's encoding of ``text`` does (used
    to tokenize what follows it: answer prefix, candidates)."""
    images: tuple[str, ...]
    """Image paths in the order of their placeholders."""
    prefix_ids: tuple[int, ...]
    """Tokens of ``answer_prefix``, appended after the processor's encoding."""
    candidate_lead: str = ""
    """Text put before each candidate in rank mode (a space, or nothing)."""
    answer_prefix: str = ""
    """The request's answer prefix (its tokens are ``prefix_ids``)."""

    @property
    def model_input(self) -> str:
        """The text the model is given: what the processor receives (chat template applied,
        image placeholders not yet expanded), then the answer prefix appended as tokens."""
        return self.text + self.answer_prefix


def tail_ids(tokenizer: Any, context: str, tail: str) -> list[int]:
    """Token ids of ``tail`` as they follow ``context``: the tokens that tokenizing
    ``context + tail`` adds after those of ``context`` (falls back to ``tail`` on its own when a
    merge crosses the boundary)."""
    if not tail:
        return []
    base = tokenizer(context, add_special_tokens=False)["input_ids"]
    full = tokenizer(context + tail, add_special_tokens=False)["input_ids"]
    if full[:len(base)] == base and len(full) > len(base):
        return list(full[len(base):])
    return list(tokenizer(tail, add_special_tokens=False)["input_ids"])


OPENING = "([{\"'"
"""A prompt ending in one of these is followed directly by the answer (``The best answer is:
(``), without a space."""
QWEN_VISION = "<|vision_start|><|image_pad|><|vision_end|>"
"""Qwen2-VL's image placeholder (its processor's ``image_token`` is only the middle part)."""


def image_placeholder(loaded: Loaded) -> str:
    """The text that stands for one image in a plain prompt: nothing for BLIP-2/InstructBLIP
    (their processors put the image tokens first themselves), Qwen2-VL's vision block, else the
    processor's ``image_token`` (``<image>`` for LLaVA)."""
    if loaded.model_type in PLAIN_PROMPT_TYPES:
        return ""
    if loaded.model_type.startswith("qwen2"):
        return QWEN_VISION
    return str(getattr(loaded.processor, "image_token", None) or "<image>")


def plain_text(loaded: Loaded, request: Request) -> str:
    """A plain request's text exactly as the processor receives it: the parts of every turn in
    order, each image part replaced by the model's image placeholder."""
    placeholder = image_placeholder(loaded)
    return "".join(placeholder if part.is_image else part.text or ""
                   for turn in request.turns for part in turn.parts)


def _messages(request: Request) -> list[dict[str, Any]]:
    return [{"role": turn.role,
             "content": [{"type": "image"} if part.is_image else {"type": "text", "text": part.text}
                         for part in turn.parts]}
            for turn in request.turns]


def build_prompt(loaded: Loaded, request: Request, spec: str,
                 candidate_space: bool | None = None) -> Prompt:
    """Format one request with the checkpoint's chat template (PaliGemma: its own format;
    BLIP-2, InstructBLIP: plain text, their processors put the image tokens first; a
    ``Request.plain`` request: its own text, see ``plain_text``).

    ``candidate_space``: see ``HFOptions.candidate_space``.
    """
    processor = loaded.processor
    images = request.images
    if loaded.text_only:
        return _text_prompt(loaded, request, spec, candidate_space)
    if request.plain:
        text = context = plain_text(loaded, request)
    elif loaded.model_type == "paligemma":
        # PaliGemma has no chat template: image tokens, then the text; the processor inserts
        # <bos> after the images and ends the prompt with a newline.
        text = processor.image_token * len(images) + "\n".join(t.text for t in request.turns)
        context = text + "\n"
    elif loaded.model_type in PLAIN_PROMPT_TYPES:
        text = context = "\n".join(t.text for t in request.turns)
    else:
        if not getattr(processor, "chat_template", None):
            raise WhatifError(
                f"{spec}: the checkpoint has no chat template, so prompts cannot be formatted for "
                "it. Add the model's template to the folder (chat_template.jinja) and run again."
            )
        text = processor.apply_chat_template(_messages(request), add_generation_prompt=True,
                                             tokenize=False)
        context = text
    prefix = tuple(tail_ids(loaded.tokenizer, context, request.answer_prefix))
    if candidate_space is None:
        candidate_space = (not request.answer_prefix and not context[-1:].isspace()
                           and context[-1:] not in OPENING)
    return Prompt(text, context + request.answer_prefix, images, prefix,
                  " " if candidate_space else "", request.answer_prefix)


def _text_prompt(loaded: Loaded, request: Request, spec: str,
                 candidate_space: bool | None) -> Prompt:
    """A text-only model's prompt: its chat template over plain-text messages, or (base models
    without one) the turns' texts one after the other."""
    if request.images:
        raise WhatifError(
            f"{spec} is a text-only language model and cannot read images; use it as the code "
            "LLM of a program backend (viper:hf:PATH) or pass a vision-language checkpoint.")
    tokenizer = loaded.tokenizer
    if getattr(tokenizer, "chat_template", None):
        messages = [{"role": t.role, "content": t.text} for t in request.turns]
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                             tokenize=False)
    else:
        text = "\n\n".join(t.text for t in request.turns) + "\n"
    prefix = tuple(tail_ids(tokenizer, text, request.answer_prefix))
    if candidate_space is None:
        candidate_space = not request.answer_prefix and not text[-1:].isspace()
    return Prompt(text, text + request.answer_prefix, (), prefix,
                  " " if candidate_space else "", request.answer_prefix)


def load_images(paths: Sequence[str]) -> list[Image.Image]:
    """RGB images from paths (files closed)."""
    out = []
    for path in paths:
        with open_image(path) as img:
            out.append(img.convert("RGB"))
    return out


def append_tokens(loaded: Loaded, inputs: dict[str, Any], ids: Sequence[int]) -> dict[str, Any]:
    """``inputs`` with the same tokens appended to every row, every per-token tensor extended
    (see ``appended_value``)."""
    import torch

    if not ids:
        return inputs
    new = torch.tensor([list(ids)] * inputs["input_ids"].shape[0],
                       dtype=inputs["input_ids"].dtype, device=inputs["input_ids"].device)
    out = dict(inputs)
    for key in per_token_keys(inputs):
        value = inputs[key]
        tails = [new[r] if (fill := appended_value(loaded, key, value[r])) is None
                 else torch.full_like(new[r], fill, dtype=value.dtype)
                 for r in range(len(new))]
        out[key] = torch.cat([value, torch.stack(tails).to(value.device)], dim=1)
    return out


def tensors(loaded: Loaded, prompts: Sequence[Prompt]) -> dict[str, Any]:
    """The processor's tensors for a batch of prompts that share one answer prefix (left-padded,
    the prefix appended), on the CPU: the work before a forward pass (images read and processed,
    text tokenized), which the backend's prefetching does in a background thread."""
    if len({p.prefix_ids for p in prompts}) != 1:
        raise ValueError("encode() needs prompts with one shared answer prefix")
    counts = {len(p.images) for p in prompts}
    images = [load_images(p.images) for p in prompts] if counts != {0} else None
    try:
        if loaded.text_only:  # a chat template writes its own special tokens
            templated = bool(getattr(loaded.tokenizer, "chat_template", None))
            batch = loaded.tokenizer([p.text for p in prompts], padding=True,
                                     return_tensors="pt", add_special_tokens=not templated)
        else:
            batch = loaded.processor(images=images, text=[p.text for p in prompts],
                                     padding=True, return_tensors="pt")
    except (ValueError, TypeError) as exc:
        raise WhatifError(
            f"The processor of the checkpoint in {loaded.folder} rejected a request with "
            f"{sorted(counts)} image(s) ({str(exc).splitlines()[0]}). If the model takes one "
            "image per prompt, pass -M multi_image=false (runs then stop early with the advice to "
            "use --image-layout composite)."
        ) from None
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    return append_tokens(loaded, inputs, prompts[0].prefix_ids)


def pinned(loaded: Loaded, inputs: dict[str, Any]) -> dict[str, Any]:
    """``inputs`` in page-locked memory when the model is on a CUDA device, so that
    ``to_device`` copies them without blocking the thread that runs the model."""
    if loaded.device.type != "cuda":
        return inputs
    return {k: v.pin_memory() if hasattr(v, "pin_memory") else v for k, v in inputs.items()}


def to_device(loaded: Loaded, inputs: dict[str, Any]) -> dict[str, Any]:
    """``tensors``' output on the model's device, floating inputs (pixel values) in its dtype."""
    out: dict[str, Any] = {}
    for key, value in inputs.items():
        if hasattr(value, "to"):
            page_locked = callable(getattr(value, "is_pinned", None)) and value.is_pinned()
            value = value.to(loaded.device, non_blocking=page_locked)
            if value.is_floating_point():
                value = value.to(loaded.dtype)
        out[key] = value
    return out


def encode(loaded: Loaded, prompts: Sequence[Prompt]) -> dict[str, Any]:
    """Tensors for a batch of prompts (left-padded) that share one answer prefix, on the
    model's device (``tensors`` then ``to_device``)."""
    return to_device(loaded, tensors(loaded, prompts))
