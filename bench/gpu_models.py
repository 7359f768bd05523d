"""Random-weight vision-language models for ``bench_gpu.py``, from configurations written here.

``real`` sizes follow the published checkpoints' configurations (LLaVA-1.5-7B: CLIP ViT-L/14 at
336 px, 576 image tokens, Vicuna-7B/Llama-2 text; Qwen2-VL-7B-Instruct: 32-block 1280-wide ViT
with 2x2 merging, 28-layer 3584-wide Qwen2 text with grouped-query attention and M-RoPE);
``tiny`` sizes are those of the test models. The weights are random (no hub, nothing to
download): a throughput benchmark needs the real shapes, not trained values. The tokenizers are
tiny BPE tokenizers trained on the prompt words (``tests/tiny_models.py``): a real vocabulary
only changes which ids the same number of tokens get; the embedding and output layers keep the
real vocabulary size.

A model is built in memory directly on the device, in the benchmark's dtype, and handed to the
``hf:`` backend as it holds a loaded checkpoint (``models.hf.loading.Loaded``); only the config,
tokenizer and processor files are written to the model folder (the backend's fingerprint reads
them), so nothing of several GB is written or read. ``save_weights`` writes the weights too, for
a tool that loads the folder itself (lmms-eval).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

ARCHS = ("llava", "qwen2_vl")

LLAVA_SIZES: dict[str, dict[str, Any]] = {
    "real": {
        "image_size": 336, "patch_size": 14, "vocab_size": 32064, "feature_layer": -2,
        "vision": {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24,
                   "num_attention_heads": 16, "projection_dim": 768},
        "text": {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 32,
                 "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "initializer_range": 0.02},
    },
    "tiny": {
        "image_size": 32, "patch_size": 8, "vocab_size": 420, "feature_layer": -1,
        "vision": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                   "num_attention_heads": 2, "projection_dim": 32},
        "text": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                 "num_attention_heads": 2, "num_key_value_heads": 2,
                 "max_position_embeddings": 2048, "initializer_range": 0.2},
    },
}
"""LLaVA-1.5 sizes (``real``: llava-hf/llava-1.5-7b-hf's configuration)."""

QWEN_SIZES: dict[str, dict[str, Any]] = {
    "real": {
        "vocab_size": 152064, "max_pixels": 1280 * 28 * 28,
        "vision": {"depth": 32, "embed_dim": 1280, "hidden_size": 3584, "mlp_ratio": 4,
                   "num_heads": 16},
        "text": {"hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
                 "num_attention_heads": 28, "num_key_value_heads": 4,
                 "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "initializer_range": 0.02,
                 "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0,
                                     "mrope_section": [16, 24, 24]}},
    },
    "tiny": {
        "vocab_size": 420, "max_pixels": 112 * 112,
        "vision": {"depth": 1, "embed_dim": 32, "hidden_size": 32, "num_heads": 2},
        "text": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                 "num_attention_heads": 2, "num_key_value_heads": 1,
                 "max_position_embeddings": 2048, "initializer_range": 0.2,
                 "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                     "mrope_section": [2, 3, 3]}},
    },
}
"""Qwen2-VL sizes (``real``: Qwen/Qwen2-VL-7B-Instruct's configuration)."""


def _llava(size: str) -> tuple[Any, Any]:
    from tiny_models import llava_parts
    from transformers import LlavaForConditionalGeneration

    s = LLAVA_SIZES[size]
    processor, config = llava_parts(s["image_size"], s["patch_size"], s["vision"], s["text"],
                                    feature_layer=s["feature_layer"],
                                    model_vocab=s["vocab_size"])
    return processor, lambda: LlavaForConditionalGeneration(config)


def _qwen2_vl(size: str) -> tuple[Any, Any]:
    import transformers
    from tiny_models import QWEN2_VL_SPECIAL, qwen_image_only_processor, train_tokenizer
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

    # The PIL image processor (no torchvision) has this name in recent releases; transformers
    # 5.0 has the numpy one under the plain name.
    Qwen2VLImageProcessorPil = (getattr(transformers, "Qwen2VLImageProcessorPil", None)
                                or transformers.Qwen2VLImageProcessor)

    s = QWEN_SIZES[size]
    tok = train_tokenizer(QWEN2_VL_SPECIAL, bos="<|endoftext|>", eos="<|im_end|>",
                          pad="<|endoftext|>", image_token="<|image_pad|>",
                          video_token="<|video_pad|>")
    image_processor = Qwen2VLImageProcessorPil(
        size={"shortest_edge": 56 * 56, "longest_edge": s["max_pixels"]}, patch_size=14,
        merge_size=2)
    ids = {t: tok.convert_tokens_to_ids(t) for t in QWEN2_VL_SPECIAL}
    config = Qwen2VLConfig(
        text_config={"vocab_size": s["vocab_size"], "bos_token_id": ids["<|endoftext|>"],
                     "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"],
                     **s["text"]},
        vision_config={"patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
                       **s["vision"]},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"])
    # The image-only processor: the video processor of a saved Qwen2-VL processor needs
    # torchvision; images are handled exactly the same.
    processor = qwen_image_only_processor(tok, image_processor)
    return processor, lambda: Qwen2VLForConditionalGeneration(config)


def build(arch: str, folder: Path, size: str, device: str, dtype: str, seed: int = 0) -> Any:
    """The model ``arch`` at ``size`` (``real`` or ``tiny``) with random weights, in memory on
    ``device`` in ``dtype``, as the ``hf:`` backend holds a loaded checkpoint; ``folder`` gets
    its config, tokenizer and processor files."""
    import torch

    from whatifbench.models.hf.loading import Loaded

    processor, make = {"llava": _llava, "qwen2_vl": _qwen2_vl}[arch](size)
    torch.manual_seed(seed)
    dt = getattr(torch, dtype)
    default = torch.get_default_dtype()
    torch.set_default_dtype(dt)
    try:
        with torch.device(device):
            model = make().eval()
    finally:
        torch.set_default_dtype(default)
    folder.mkdir(parents=True, exist_ok=True)
    model.config.save_pretrained(folder)
    model.generation_config.save_pretrained(folder)
    processor.save_pretrained(folder)
    processor.tokenizer.padding_side = "left"
    return Loaded(processor, model, torch.device(device), dt, model.config.model_type, folder)


def save_weights(loaded: Any) -> Path:
    """Write the weights into the model folder too (for tools that load it themselves)."""
    loaded.model.save_pretrained(loaded.folder)
    loaded.processor.save_pretrained(loaded.folder)
    return Path(loaded.folder)


def parameters(loaded: Any) -> int:
    """The model's parameter count."""
    return sum(p.numel() for p in loaded.model.parameters())
