"""Tiny randomly initialised models for the program backends, built offline (no hub).

- ``build_owlvit``: an OWL-ViT zero-shot object detector (CLIP-style text and vision towers,
  box and class heads) with a byte-level BPE tokenizer trained on a few words.
- ``build_dpt``: a DPT depth-estimation model (ViT backbone, reassemble and fusion stages).
- ``build_causal_lm``: a text-only Llama causal LM with a chat template (a code LLM for
  ``viper:hf:PATH``).

Their outputs are noise: tests assert on mechanics (shapes, caching, traces), never on answers.
Session fixtures build each once; import them into a test module to use them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tiny_models import TEXT_SIZE, train_tokenizer

WORDS = ("a photo of a dog cat flower polygon circle dot red blue green yellow person car "
         "def execute_command(image, options): return len(image.find('dog')) ```python ```")

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def build_owlvit(out: Path, seed: int = 0) -> Path:
    """OWL-ViT with 32-pixel images (16 patches, so 16 candidate boxes per image)."""
    from transformers import OwlViTConfig, OwlViTForObjectDetection, OwlViTProcessor
    from transformers import OwlViTImageProcessorPil as ImageProcessor

    tok = train_tokenizer(["<|startoftext|>", "<|endoftext|>", "!"], extra=(WORDS,),
                          bos="<|startoftext|>", eos="<|endoftext|>", pad="!")
    tok.model_max_length = 16  # as OWL-ViT's text tower
    processor = OwlViTProcessor(
        image_processor=ImageProcessor(size={"height": 32, "width": 32},
                                       crop_size={"height": 32, "width": 32}),
        tokenizer=tok)
    config = OwlViTConfig(
        text_config={"vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64,
                     "num_hidden_layers": 2, "num_attention_heads": 2,
                     "max_position_embeddings": 16, "bos_token_id": tok.bos_token_id,
                     "eos_token_id": tok.eos_token_id, "pad_token_id": tok.pad_token_id},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                       "num_attention_heads": 2, "image_size": 32, "patch_size": 8},
        projection_dim=32)
    return _save(out, seed, lambda: OwlViTForObjectDetection(config), processor)


def build_dpt(out: Path, seed: int = 0) -> Path:
    """DPT depth estimation on 32-pixel inputs."""
    from transformers import DPTConfig, DPTForDepthEstimation
    from transformers import DPTImageProcessorPil as ImageProcessor

    config = DPTConfig(hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                       intermediate_size=64, image_size=32, patch_size=8,
                       backbone_out_indices=[0, 1, 2, 3], neck_hidden_sizes=[8, 8, 8, 8],
                       fusion_hidden_size=8, reassemble_factors=[4, 2, 1, 0.5])
    return _save(out, seed, lambda: DPTForDepthEstimation(config),
                 ImageProcessor(size={"height": 32, "width": 32}, keep_aspect_ratio=False))


def build_causal_lm(out: Path, seed: int = 0) -> Path:
    """A text-only Llama with a chat template."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = train_tokenizer(["<unk>", "<s>", "</s>", "<pad>"], extra=(WORDS,))
    tok.chat_template = CHAT_TEMPLATE
    config = LlamaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id,
                         eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                         **TEXT_SIZE)
    return _save(out, seed, lambda: LlamaForCausalLM(config), tok)


def _save(out: Path, seed: int, make: Callable[[], Any], processor: Any) -> Path:
    """Initialise the model with a fixed seed; save it and its processor into ``out``."""
    import torch

    torch.manual_seed(seed)
    model = make()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tiny_owlvit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_owlvit(tmp_path_factory.mktemp("tiny_owlvit"))


@pytest.fixture(scope="session")
def tiny_dpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dpt(tmp_path_factory.mktemp("tiny_dpt"))


@pytest.fixture(scope="session")
def tiny_causal_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_causal_lm(tmp_path_factory.mktemp("tiny_causal_lm"))
