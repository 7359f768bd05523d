"""A tiny random Stable-Diffusion pipeline built offline (diffusers + transformers), for tests of
the ``diffusers:`` image backend: 8-channel UNet, one-block VAE, a character-level CLIP
tokenizer and a one-layer CLIP text encoder. Its pictures are noise; assert on mechanics."""

from __future__ import annotations

import json
from pathlib import Path


def build_tiny_pipeline(out: Path, seed: int = 0) -> Path:
    """Save the pipeline to ``out`` (``save_pretrained``) and return ``out``."""
    import torch
    from diffusers import (
        AutoencoderKL,
        DDIMScheduler,
        StableDiffusionPipeline,
        UNet2DConditionModel,
    )
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    torch.manual_seed(seed)
    unet = UNet2DConditionModel(
        block_out_channels=(8, 16), layers_per_block=1, sample_size=8, in_channels=4,
        out_channels=4, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=16,
        norm_num_groups=4, attention_head_dim=2)
    vae = AutoencoderKL(block_out_channels=(8,), in_channels=3, out_channels=3,
                        down_block_types=("DownEncoderBlock2D",),
                        up_block_types=("UpDecoderBlock2D",), latent_channels=4,
                        norm_num_groups=4, sample_size=16)
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for code in range(33, 127):
        vocab[chr(code)] = len(vocab)
        vocab[chr(code) + "</w>"] = len(vocab)
    words = out.parent / f"{out.name}-tokenizer"
    words.mkdir(parents=True, exist_ok=True)
    (words / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (words / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    tokenizer = CLIPTokenizer(str(words / "vocab.json"), str(words / "merges.txt"),
                              model_max_length=16)
    text = CLIPTextModel(CLIPTextConfig(
        vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, max_position_embeddings=16, bos_token_id=0, eos_token_id=1,
        pad_token_id=1))
    scheduler = DDIMScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear",
                              clip_sample=False, steps_offset=1)
    pipe = StableDiffusionPipeline(vae=vae, text_encoder=text, tokenizer=tokenizer, unet=unet,
                                   scheduler=scheduler, safety_checker=None,
                                   feature_extractor=None, requires_safety_checker=False)
    pipe.save_pretrained(out)
    return out
