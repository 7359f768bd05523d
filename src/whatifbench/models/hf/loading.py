"""Options of the ``hf:`` backend and loading a checkpoint folder (torch imported lazily)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.readfile import read_text
from whatifbench.errors import WhatifError
from whatifbench.models.shared_args import reject_unknown

INSTALL = 'pip install "whatifbench[hf]"'
DTYPES = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
          "float16": "float16", "fp16": "float16", "auto": "auto"}
DEVICES = ("auto", "cpu", "cuda", "mps")
RANK_METHODS = ("cache", "separate")
FAST_DECODE = ("auto", "true", "false", "compile")
"""Values of ``-M fast_decode`` (see ``HFOptions.fast_decode``)."""
DEFAULT_BATCH = 8
"""Requests per batch when ``-M batch_size`` is not given (and no automatic size applies)."""
SINGLE_IMAGE_TYPES = frozenset({"paligemma", "blip-2", "instructblip"})
"""Model types whose prompts take one image (their processors put images before the text)."""
PLAIN_PROMPT_TYPES = frozenset({"blip-2", "instructblip"})
"""Model types without a chat template whose processors insert the image tokens themselves:
their prompt is the plain text of the request."""


@dataclass(frozen=True)
class HFOptions:
    """The ``-M`` arguments of ``hf:PATH``."""

    batch_size: int | None = None
    """Requests generated or ranked together (left-padded). ``None`` (not given, or ``auto``):
    with the fast decoding path on a GPU, as many generated rows as its free memory holds (up to
    ``fast_decode.MAX_AUTO_BATCH``); otherwise ``DEFAULT_BATCH``."""
    dtype: str = "auto"
    """``auto`` (bfloat16 on CUDA, float16 on MPS, float32 on CPU), float32, bfloat16, float16."""
    device: str = "auto"
    """``auto`` (cuda, then mps, then cpu), or one of them (``cuda:1`` allowed)."""
    device_map: str | None = None
    """Passed to ``from_pretrained`` (e.g. ``auto`` to split a model over GPUs; needs
    accelerate); overrides ``device``."""
    multi_image: bool | None = None
    """Override whether requests may carry several images (default: by model type)."""
    rank_method: str = "cache"
    """``cache``: encode the prompt once and score all candidates from its KV cache;
    ``separate``: one full forward pass per candidate (slower, for checking)."""
    attn_implementation: str | None = None
    """Passed to ``from_pretrained`` (``sdpa``, ``eager``, ``flash_attention_2``)."""
    candidate_space: bool | None = None
    """Rank mode: put a space before each candidate. ``None`` (auto): when there is no answer
    prefix and the prompt ends without whitespace (``ASSISTANT:``), as the model's own replies
    start."""
    conv: str | None = None
    """The conversation template C-VQA's paper protocol writes for a LLaVA checkpoint
    (``llava_v0``, ``llava_v1``, ``llava_llama_2``, ``mpt``; default: by the checkpoint's name, as
    the release's script chooses). Read by the suite; the backend itself does not use it."""
    fast_decode: str = "auto"
    """Generation from a static KV cache with a compiled decode step (``models.hf.fast_decode``):
    ``auto`` (on a CUDA device, for checkpoints whose forward pass takes a cache, without beam
    search), ``true`` (the static cache on every device; its decode step compiled on CUDA only),
    ``compile`` (static cache and compiled decode step on every device, for checks), ``false``
    (``generate`` with the dynamic cache)."""
    prefetch: int = 2
    """Batches whose inputs (images, tokens) are prepared ahead in a background thread while the
    model runs (``models.hf.pipeline``); 0 prepares each batch just before it runs."""

    @classmethod
    def from_args(cls, spec: str, args: Mapping[str, Any]) -> HFOptions:
        """Validate ``-M`` arguments; one ``WhatifError`` names the bad one and the choices."""
        reject_unknown(spec, args, cls.__dataclass_fields__)
        batch = args.get("batch_size")
        if batch == "auto":
            batch = None
        if batch is not None and (not isinstance(batch, int) or isinstance(batch, bool)
                                  or batch < 1):
            raise WhatifError(f"-M batch_size must be a positive integer or auto, got {batch!r}.")
        fast = args.get("fast_decode", "auto")
        fast = ("true" if fast else "false") if isinstance(fast, bool) else str(fast).lower()
        if fast not in FAST_DECODE:
            raise WhatifError(f"-M fast_decode={fast} is not supported; use one of "
                              f"{', '.join(FAST_DECODE)}.")
        prefetch = args.get("prefetch", 2)
        if not isinstance(prefetch, int) or isinstance(prefetch, bool) or prefetch < 0:
            raise WhatifError(f"-M prefetch must be a whole number of batches (0 or more), got "
                              f"{prefetch!r}.")
        dtype = str(args.get("dtype", "auto")).lower()
        if dtype not in DTYPES:
            raise WhatifError(f"-M dtype={dtype} is not supported; use one of "
                              f"{', '.join(sorted(set(DTYPES.values())))}.")
        device = str(args.get("device", "auto")).lower()
        if device.split(":", 1)[0] not in DEVICES:
            raise WhatifError(f"-M device={device} is not supported; use one of "
                              f"{', '.join(DEVICES)} (or cuda:N).")
        method = str(args.get("rank_method", "cache"))
        if method not in RANK_METHODS:
            raise WhatifError(f"-M rank_method={method} is not supported; use one of "
                              f"{', '.join(RANK_METHODS)}.")
        multi = args.get("multi_image")
        if multi is not None and not isinstance(multi, bool):
            raise WhatifError(f"-M multi_image must be true or false, got {multi!r}.")
        space = args.get("candidate_space")
        if space is not None and not isinstance(space, bool):
            raise WhatifError(f"-M candidate_space must be true or false, got {space!r}.")
        device_map = args.get("device_map")
        attn = args.get("attn_implementation")
        conv = args.get("conv")
        return cls(batch, DTYPES[dtype], device, None if device_map is None else str(device_map),
                   multi, method, None if attn is None else str(attn), space,
                   None if conv is None else str(conv), fast, prefetch)


def require_hf() -> None:
    """Fail with the install line when torch or transformers is missing (nothing imported)."""
    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        raise WhatifError(
            f"The hf: backend needs {' and '.join(missing)}, which "
            f"{'are' if len(missing) > 1 else 'is'} not installed. Install with: {INSTALL}"
        )


def checkpoint_folder(spec: str) -> tuple[Path, dict[str, Any]]:
    """The folder named by ``hf:PATH`` and its ``config.json``."""
    folder = Path(spec.split(":", 1)[1]).expanduser()
    if not folder.is_dir():
        raise WhatifError(
            f"{spec}: there is no folder {folder}. The hf backend loads a local checkpoint "
            "folder; download one first (e.g. 'hf download llava-hf/llava-1.5-7b-hf --local-dir "
            "DIR') and pass --model hf:DIR."
        )
    config_path = folder / "config.json"
    try:
        config = json.loads(read_text(config_path))
    except FileNotFoundError:
        raise WhatifError(
            f"{spec}: {folder} has no config.json, so it is not a transformers checkpoint folder."
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise WhatifError(f"{spec}: {config_path} is not valid JSON ({exc}).") from None
    if not isinstance(config, dict):
        raise WhatifError(f"{spec}: {config_path} does not hold a JSON object.")
    return folder, config


def is_text_only(config: Mapping[str, Any]) -> bool:
    """True for a text-only causal language model (a code LLM for the program backends): no
    vision configuration and a ``...ForCausalLM`` architecture."""
    architectures = config.get("architectures") or []
    return ("vision_config" not in config and isinstance(architectures, list)
            and any(str(a).endswith("ForCausalLM") for a in architectures))


@dataclass(frozen=True)
class Loaded:
    """A loaded checkpoint."""

    processor: Any
    """The ``AutoProcessor`` (tokenizer padding on the left)."""
    model: Any
    """The ``AutoModelForImageTextToText`` in eval mode."""
    device: Any
    """``torch.device`` that inputs go to."""
    dtype: Any
    """``torch.dtype`` of floating inputs (pixel values)."""
    model_type: str
    """``config.model_type`` (selects the few model-specific paths)."""
    folder: Path
    """The checkpoint folder."""
    text_only: bool = False
    """A text-only language model: ``processor`` is its tokenizer and requests carry no
    images."""

    @property
    def tokenizer(self) -> Any:
        """The processor's tokenizer."""
        return self.processor if self.text_only else self.processor.tokenizer


def _device(options: HFOptions) -> Any:
    import torch

    if options.device != "auto":
        kind = options.device.split(":", 1)[0]
        available = {"cpu": True, "cuda": torch.cuda.is_available(),
                     "mps": torch.backends.mps.is_available()}[kind]
        if not available:
            raise WhatifError(f"-M device={options.device} is not available on this machine; "
                              "use -M device=cpu (or leave it out to choose automatically).")
        return torch.device(options.device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def _dtype(options: HFOptions, device: Any) -> Any:
    import torch

    if options.dtype != "auto":
        return getattr(torch, options.dtype)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device.type == "mps":
        return torch.float16
    return torch.float32


def load(spec: str, folder: Path, model_type: str, options: HFOptions,
         text_only: bool = False) -> Loaded:
    """Load processor and model from ``folder`` (offline: the folder must hold everything);
    ``text_only``: a causal language model with its tokenizer."""
    require_hf()
    from transformers import AutoModelForImageTextToText, AutoProcessor
    from transformers.utils import logging as hf_logging

    device = _device(options)
    dtype = _dtype(options, device)
    kwargs: dict[str, Any] = {"dtype": dtype, "local_files_only": True}
    if options.device_map is not None:
        if importlib.util.find_spec("accelerate") is None:
            raise WhatifError(f"-M device_map needs accelerate; install it with: {INSTALL}")
        kwargs["device_map"] = options.device_map
    if options.attn_implementation is not None:
        kwargs["attn_implementation"] = options.attn_implementation
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        if text_only:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            processor = AutoTokenizer.from_pretrained(folder, local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(folder, **kwargs)
        else:
            processor = AutoProcessor.from_pretrained(folder, local_files_only=True)
            model = AutoModelForImageTextToText.from_pretrained(folder, **kwargs)
    except (OSError, ValueError, KeyError, TypeError, ImportError) as exc:
        why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        if text_only:
            raise WhatifError(f"{spec}: cannot load {folder} as a causal language model "
                              f"({why}).") from None
        raise WhatifError(
            f"{spec}: cannot load {folder} as an image-text-to-text model ({why}). The hf "
            "backend serves checkpoints that AutoProcessor and AutoModelForImageTextToText load "
            "(LLaVA, Qwen2-VL, Idefics3/SmolVLM, PaliGemma ...)."
        ) from None
    finally:
        hf_logging.set_verbosity(verbosity)
    if not text_only and (not hasattr(processor, "tokenizer")
                          or not hasattr(processor, "image_processor")):
        raise WhatifError(f"{spec}: {folder} has no image processor and tokenizer; it is not a "
                          "vision-language checkpoint.")
    if options.device_map is None:
        model = model.to(device)
    else:
        device = next(model.parameters()).device
    tokenizer = processor if text_only else processor.tokenizer
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return Loaded(processor, model.eval(), device, dtype, model_type, folder, text_only)
