"""Tiny randomly initialised vision-language models of real architectures, built offline.

Each builder trains a small byte-level BPE tokenizer with ``tokenizers`` (special and image
tokens included), builds the image processor, processor (with a chat template where the real
model has one) and model configuration from their classes, initialises the model with a fixed
seed and saves everything with ``save_pretrained``. ``load_tiny`` reloads a folder through
``AutoProcessor`` / ``AutoModelForImageTextToText`` with ``HF_HUB_OFFLINE=1``, exactly as the
``hf:`` backend does. Nothing touches the network.

Architectures: ``llava`` (CLIP vision + Llama text), ``llava_next`` (the same with
any-resolution tiles: the number of image tokens depends on the image's size), ``idefics3``
(SigLIP-like vision + Llama, SmolVLM-style template), ``paligemma`` (SigLIP + Gemma, no chat
template), ``qwen2_vl`` (its saved processor needs torchvision; ``qwen_loaded`` builds it, and
a Qwen2.5-VL, without, through an image-only processor) and ``blip2`` (ViT + Q-Former + OPT, no
chat template). Pytest fixtures at the bottom build each model once per session;
``build_llava(..., **sizes)`` also makes the larger random model of the rank benches.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ARCHITECTURES = ("llava", "llava_next", "idefics3", "paligemma", "qwen2_vl", "blip2")

CORPUS = (
    "How many flowers are in the image? A: 3 B: 4 C: 5 D: 6",
    "If two flowers were removed, how many flowers would remain in the image?",
    "If the red dots were blue, how many blue dots would there be? (A) 7 (B) 8 (C) 9 (D) 10",
    "Answer with the option's letter from the given choices directly.",
    "Answer the question using a single word or phrase. Let's think step by step.",
    "The best answer is: (A) yes (B) no. So the answer is B.",
    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 twenty one two three four five",
    "USER: ASSISTANT: User: Assistant: user assistant system",
    "Scene description: a photo of a cat, a dog, a cup and a rocket on a table.",
)
"""Training text of the tiny tokenizers (prompt words, digits, option letters)."""

TEXT_SIZE: dict[str, Any] = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                             "num_attention_heads": 2, "num_key_value_heads": 2,
                             "max_position_embeddings": 2048, "initializer_range": 0.2}
"""Language-model size of the tiny models (a large init range makes greedy choices decisive)."""


def has_torchvision() -> bool:
    """True when torchvision is installed (Qwen2-VL's image processor needs it)."""
    return importlib.util.find_spec("torchvision") is not None


def train_tokenizer(special: list[str], extra: tuple[str, ...] = (), vocab_size: int = 420,
                    bos: str = "<s>", eos: str = "</s>", pad: str = "<pad>",
                    **named: str) -> Any:
    """A byte-level BPE tokenizer trained on ``CORPUS``; ``special`` tokens come first.

    ``named`` sets extra named special tokens (e.g. ``image_token="<image>"``).
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator([*CORPUS, *extra] * 3, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=bos, eos_token=eos,
                                   pad_token=pad, extra_special_tokens=named or None)


def _seeded(seed: int) -> None:
    import torch

    torch.manual_seed(seed)


def _save(out: Path, processor: Any, model: Any) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


LLAVA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}{{ m['role'] | upper }}: "
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image>{{ '\n' }}{% else %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}{{ '\n' }}{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def llava_parts(image_size: int = 32, patch_size: int = 8,
                vision: dict[str, Any] | None = None, text: dict[str, Any] | None = None,
                vocab_size: int = 420, feature_layer: int = -1,
                model_vocab: int | None = None) -> tuple[Any, Any]:
    """LLaVA-1.5 layout (CLIP vision tower, MLP projector, Llama language model): the processor
    (tokenizer of ``vocab_size`` tokens) and the model configuration (its vocabulary
    ``model_vocab``, by default the tokenizer's)."""
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaProcessor,
    )

    tok = train_tokenizer(["<unk>", "<s>", "</s>", "<pad>", "<image>"], vocab_size=vocab_size,
                          image_token="<image>")
    processor = LlavaProcessor(
        image_processor=CLIPImageProcessor(size={"shortest_edge": image_size},
                                           crop_size={"height": image_size, "width": image_size}),
        tokenizer=tok, patch_size=patch_size, vision_feature_select_strategy="default",
        num_additional_image_tokens=1, chat_template=LLAVA_TEMPLATE)
    vision_cfg = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                  "num_attention_heads": 2, "projection_dim": 32, **(vision or {})}
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(image_size=image_size, patch_size=patch_size, **vision_cfg),
        text_config=LlamaConfig(vocab_size=model_vocab or len(tok), bos_token_id=tok.bos_token_id,
                                eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                                **{**TEXT_SIZE, **(text or {})}),
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        image_seq_length=(image_size // patch_size) ** 2,
        vision_feature_select_strategy="default", vision_feature_layer=feature_layer)
    return processor, config


def build_llava(out: Path, seed: int = 0, image_size: int = 32, patch_size: int = 8,
                vision: dict[str, Any] | None = None, text: dict[str, Any] | None = None,
                vocab_size: int = 420) -> Path:
    """LLaVA-1.5 layout: CLIP vision tower, MLP projector, Llama language model."""
    from transformers import LlavaForConditionalGeneration

    processor, config = llava_parts(image_size, patch_size, vision, text, vocab_size)
    _seeded(seed)
    return _save(out, processor, LlavaForConditionalGeneration(config))


def build_bench_llava(out: Path) -> Path:
    """The random LLaVA of the rank benches: CLIP vision at 224 px with 14 px patches (256 image
    tokens), Llama text, about 55M parameters."""
    return build_llava(
        out, image_size=224, patch_size=14, vocab_size=2000,
        vision={"hidden_size": 384, "intermediate_size": 1536, "num_hidden_layers": 6,
                "num_attention_heads": 6, "projection_dim": 384},
        text={"hidden_size": 768, "intermediate_size": 2048, "num_hidden_layers": 6,
              "num_attention_heads": 12, "num_key_value_heads": 12, "initializer_range": 0.02})


def build_llava_next(out: Path, seed: int = 0) -> Path:
    """LLaVA-NeXT layout: LLaVA with any-resolution tiles (base image + grid of crops, a newline
    embedding after each row), so images of different sizes give different token counts."""
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlavaNextConfig,
        LlavaNextForConditionalGeneration,
        LlavaNextImageProcessor,
        LlavaNextProcessor,
    )

    tok = train_tokenizer(["<unk>", "<s>", "</s>", "<pad>", "<image>"], image_token="<image>")
    image_size, patch_size = 32, 8
    pinpoints = [[32, 64], [64, 32], [64, 64]]
    processor = LlavaNextProcessor(
        image_processor=LlavaNextImageProcessor(
            size={"shortest_edge": image_size},
            crop_size={"height": image_size, "width": image_size},
            image_grid_pinpoints=pinpoints),
        tokenizer=tok, patch_size=patch_size, vision_feature_select_strategy="default",
        num_additional_image_tokens=1, chat_template=LLAVA_TEMPLATE)
    config = LlavaNextConfig(
        vision_config=CLIPVisionConfig(image_size=image_size, patch_size=patch_size,
                                       hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                       num_attention_heads=2, projection_dim=32),
        text_config=LlamaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id,
                                eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                                **TEXT_SIZE),
        image_token_index=tok.convert_tokens_to_ids("<image>"), image_grid_pinpoints=pinpoints,
        vision_feature_select_strategy="default", vision_feature_layer=-1,
        image_seq_length=(image_size // patch_size) ** 2)
    _seeded(seed)
    return _save(out, processor, LlavaNextForConditionalGeneration(config))


IDEFICS3_TEMPLATE = (
    "<|im_start|>{% for m in messages %}{{ m['role'] | capitalize }}"
    "{% if m['content'][0]['type'] == 'image' %}:{% else %}: {% endif %}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>{% else %}{{ c['text'] }}"
    "{% endif %}{% endfor %}<end_of_utterance>{{ '\n' }}{% endfor %}"
    "{% if add_generation_prompt %}Assistant:{% endif %}"
)


def build_idefics3(out: Path, seed: int = 0) -> Path:
    """Idefics3 / SmolVLM layout: SigLIP-like vision, pixel-shuffle connector, Llama text."""
    from transformers import (
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3ImageProcessor,
        Idefics3Processor,
        Idefics3VisionConfig,
        LlamaConfig,
    )

    grid = [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]
    tok = train_tokenizer(["<unk>", "<s>", "</s>", "<pad>", "<|im_start|>",
                           "<fake_token_around_image>", "<image>", "<end_of_utterance>",
                           "<global-img>", *grid], eos="<end_of_utterance>")
    image_size, patch_size, scale = 32, 8, 2
    processor = Idefics3Processor(
        image_processor=Idefics3ImageProcessor(
            size={"longest_edge": image_size}, max_image_size={"longest_edge": image_size},
            do_image_splitting=False),
        tokenizer=tok, image_seq_len=(image_size // patch_size) ** 2 // scale**2,
        chat_template=IDEFICS3_TEMPLATE)
    config = Idefics3Config(
        vision_config=Idefics3VisionConfig(hidden_size=32, intermediate_size=64,
                                           num_hidden_layers=2, num_attention_heads=2,
                                           image_size=image_size, patch_size=patch_size),
        text_config=LlamaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id,
                                eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                                **TEXT_SIZE),
        image_token_id=tok.convert_tokens_to_ids("<image>"), scale_factor=scale)
    _seeded(seed)
    return _save(out, processor, Idefics3ForConditionalGeneration(config))


def build_paligemma(out: Path, seed: int = 0) -> Path:
    """PaliGemma layout: SigLIP vision, linear projector, Gemma text; no chat template."""
    from transformers import (
        GemmaConfig,
        PaliGemmaConfig,
        PaliGemmaForConditionalGeneration,
        PaliGemmaProcessor,
        SiglipImageProcessor,
        SiglipVisionConfig,
    )

    tok = train_tokenizer(["<pad>", "<eos>", "<bos>", "<unk>", "<image>"], bos="<bos>",
                          eos="<eos>", image_token="<image>")
    image_size, patch_size = 32, 8
    image_processor = SiglipImageProcessor(size={"height": image_size, "width": image_size})
    # PaliGemma's processor reads the number of image tokens from its image processor.
    image_processor.image_seq_length = (  # type: ignore[attr-defined]
        image_size // patch_size) ** 2
    processor = PaliGemmaProcessor(image_processor=image_processor, tokenizer=tok)
    text = {**TEXT_SIZE, "num_key_value_heads": 1, "head_dim": 16}
    config = PaliGemmaConfig(
        vision_config=SiglipVisionConfig(hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=2, num_attention_heads=2,
                                         image_size=image_size, patch_size=patch_size),
        text_config=GemmaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id,
                                eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                                **text),
        image_token_index=tok.convert_tokens_to_ids("<image>"), projection_dim=32,
        hidden_size=32, vocab_size=len(tok))
    _seeded(seed)
    return _save(out, processor, PaliGemmaForConditionalGeneration(config))


QWEN2_VL_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}{{ '\n' }}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}"
    "<|vision_start|><|image_pad|><|vision_end|>{% else %}{{ c['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>{{ '\n' }}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant{{ '\n' }}{% endif %}"
)


QWEN2_VL_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>",
                    "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]


def _qwen2_vl_parts(seed: int, arch: str = "qwen2_vl") -> tuple[Any, Any, Any]:
    """Tokenizer, image processor (the PIL one: no torchvision) and random model of the tiny
    Qwen2-VL (``arch="qwen2_5_vl"``: Qwen2.5-VL, with window attention in its vision tower):
    native-resolution ViT with 2x2 patch merging, M-RoPE text model."""
    import transformers
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
    )

    # The PIL image processor (no torchvision) has this name in recent releases; transformers
    # 5.0 has the numpy one under the plain name.
    Qwen2VLImageProcessorPil = (getattr(transformers, "Qwen2VLImageProcessorPil", None)
                                or transformers.Qwen2VLImageProcessor)

    tok = train_tokenizer(QWEN2_VL_SPECIAL, bos="<|endoftext|>", eos="<|im_end|>",
                          pad="<|endoftext|>", image_token="<|image_pad|>",
                          video_token="<|video_pad|>")
    patch, merge = 14, 2
    # Images between 56x56 (4x4 patches, 2x2 merged tokens) and 112x112: the token count and
    # the M-RoPE grid follow each image's size.
    image_processor = Qwen2VLImageProcessorPil(
        size={"shortest_edge": 56 * 56, "longest_edge": 112 * 112}, patch_size=patch,
        merge_size=merge)
    ids = {t: tok.convert_tokens_to_ids(t) for t in QWEN2_VL_SPECIAL}
    text = {**TEXT_SIZE, "num_attention_heads": 2, "num_key_value_heads": 1,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                "mrope_section": [2, 3, 3]}}
    vision: dict[str, Any] = {"hidden_size": 32, "num_heads": 2, "patch_size": patch,
                              "spatial_merge_size": merge, "temporal_patch_size": 2}
    if arch == "qwen2_5_vl":
        config_class, model_class = Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration
        vision.update(depth=2, intermediate_size=64, out_hidden_size=32,
                      fullatt_block_indexes=[1], window_size=56)
    else:
        config_class, model_class = Qwen2VLConfig, Qwen2VLForConditionalGeneration
        vision.update(depth=1, embed_dim=32)
    config = config_class(
        text_config={"vocab_size": len(tok), "bos_token_id": ids["<|endoftext|>"],
                     "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"],
                     **text},
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
    _seeded(seed)
    return tok, image_processor, model_class(config)


def build_qwen2_vl(out: Path, seed: int = 0) -> Path:
    """Qwen2-VL saved with its full processor (image and video processors: needs torchvision)."""
    from transformers import Qwen2VLProcessor, Qwen2VLVideoProcessor

    tok, image_processor, model = _qwen2_vl_parts(seed)
    processor = Qwen2VLProcessor(
        image_processor=image_processor, tokenizer=tok,
        video_processor=Qwen2VLVideoProcessor(patch_size=14, merge_size=2),
        chat_template=QWEN2_VL_TEMPLATE)
    return _save(out, processor, model)


def qwen_image_only_processor(tokenizer: Any, image_processor: Any,
                              arch: str = "qwen2_vl") -> Any:
    """Qwen2-VL's (or Qwen2.5-VL's) processor without its video processor (which needs
    torchvision): the same image and text handling (placeholder expansion,
    ``mm_token_type_ids`` for M-RoPE)."""
    from transformers import Qwen2_5_VLProcessor, Qwen2VLProcessor
    from transformers.processing_utils import ProcessorMixin

    base = Qwen2_5_VLProcessor if arch == "qwen2_5_vl" else Qwen2VLProcessor

    class QwenImageOnlyProcessor(base):  # type: ignore[misc, valid-type]
        """The Qwen processor with two sub-processors: image processor and tokenizer."""

        def __init__(self, image_processor: Any = None, tokenizer: Any = None,
                     chat_template: str | None = None, **kwargs: Any) -> None:
            ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template)
            self.image_token = tokenizer.image_token
            self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
            self.video_token = tokenizer.video_token
            self.video_token_id = tokenizer.convert_tokens_to_ids(self.video_token)

    return QwenImageOnlyProcessor(image_processor=image_processor, tokenizer=tokenizer,
                                  chat_template=QWEN2_VL_TEMPLATE)


def qwen_loaded(out: Path, arch: str = "qwen2_vl", seed: int = 0) -> Any:
    """The tiny Qwen2-VL (or Qwen2.5-VL) as the hf backend holds it (``models.hf.loading.Loaded``),
    built without torchvision: its weights are saved to and reloaded from ``out`` through the
    Auto class, the processor is the image-only one."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch
    from transformers import AutoModelForImageTextToText

    from whatifbench.models.hf.loading import Loaded

    tok, image_processor, model = _qwen2_vl_parts(seed, arch)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor = qwen_image_only_processor(tok, image_processor, arch)
    processor.tokenizer.padding_side = "left"
    model = AutoModelForImageTextToText.from_pretrained(out, local_files_only=True).eval()
    return Loaded(processor, model, torch.device("cpu"), torch.float32, arch, out)


def build_blip2(out: Path, seed: int = 0) -> Path:
    """BLIP-2 layout: ViT, Q-Former with learned queries, OPT text model; no chat template."""
    from transformers import (
        Blip2Config,
        Blip2ForConditionalGeneration,
        Blip2Processor,
        Blip2QFormerConfig,
        Blip2VisionConfig,
        BlipImageProcessor,
        OPTConfig,
    )

    tok = train_tokenizer(["<unk>", "<s>", "</s>", "<pad>"])
    queries = 4
    # The processor adds its <image> token and puts one per query before the text.
    processor = Blip2Processor(image_processor=BlipImageProcessor(size={"height": 32,
                                                                        "width": 32}),
                               tokenizer=tok, num_query_tokens=queries)
    config = Blip2Config(
        vision_config=Blip2VisionConfig(hidden_size=32, intermediate_size=64,
                                        num_hidden_layers=2, num_attention_heads=2,
                                        image_size=32, patch_size=8),
        qformer_config=Blip2QFormerConfig(hidden_size=32, intermediate_size=64,
                                          num_hidden_layers=2, num_attention_heads=2,
                                          encoder_hidden_size=32, vocab_size=len(tok)),
        text_config=OPTConfig(vocab_size=len(tok), hidden_size=32, ffn_dim=64,
                              num_hidden_layers=2, num_attention_heads=2,
                              word_embed_proj_dim=32, max_position_embeddings=2048,
                              init_std=0.2, bos_token_id=tok.bos_token_id,
                              eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id),
        num_query_tokens=queries, image_token_index=tok.convert_tokens_to_ids("<image>"))
    _seeded(seed)
    return _save(out, processor, Blip2ForConditionalGeneration(config))


BUILDERS: dict[str, Callable[..., Path]] = {
    "llava": build_llava, "llava_next": build_llava_next, "idefics3": build_idefics3,
    "paligemma": build_paligemma, "qwen2_vl": build_qwen2_vl, "blip2": build_blip2,
}


def build_tiny_model(arch: str, out: Path, seed: int = 0) -> Path:
    """Build the tiny model ``arch`` (one of ``ARCHITECTURES``) into ``out``."""
    return BUILDERS[arch](Path(out), seed=seed)


def load_tiny(path: Path) -> tuple[Any, Any]:
    """Reload a saved folder offline through the Auto classes: ``(processor, model)``."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from transformers import AutoModelForImageTextToText, AutoProcessor

    processor = AutoProcessor.from_pretrained(path)
    model = AutoModelForImageTextToText.from_pretrained(path)
    return processor, model.eval()


class TinyModels:
    """Builds each architecture once into a session folder (on first request)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._paths: dict[str, Path] = {}
        self._qwen: dict[str, Any] = {}

    def path(self, arch: str) -> Path:
        """Folder of the tiny ``arch`` model (skips Qwen2-VL without torchvision)."""
        if arch == "qwen2_vl" and not has_torchvision():
            pytest.skip("Qwen2-VL's video processor needs torchvision")
        if arch not in self._paths:
            self._paths[arch] = build_tiny_model(arch, self.root / arch)
        return self._paths[arch]

    def qwen_loaded(self, arch: str) -> Any:
        """The tiny ``qwen2_vl`` or ``qwen2_5_vl`` loaded with the image-only processor (works
        without torchvision)."""
        if arch not in self._qwen:
            self._qwen[arch] = qwen_loaded(self.root / f"{arch}_image_only", arch)
        return self._qwen[arch]


# -- pytest fixtures (imported by tests/conftest.py) -------------------------------------------
@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TinyModels]:
    """Session-wide builder of tiny models: ``tiny_models.path("llava")``."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    yield TinyModels(tmp_path_factory.mktemp("tiny_models"))


@pytest.fixture(scope="session")
def tiny_llava(tiny_models: TinyModels) -> Path:
    """Folder of the tiny LLaVA."""
    return tiny_models.path("llava")


@pytest.fixture(scope="session")
def tiny_idefics3(tiny_models: TinyModels) -> Path:
    """Folder of the tiny Idefics3."""
    return tiny_models.path("idefics3")


@pytest.fixture(scope="session")
def tiny_paligemma(tiny_models: TinyModels) -> Path:
    """Folder of the tiny PaliGemma."""
    return tiny_models.path("paligemma")


@pytest.fixture(scope="session")
def tiny_qwen2_vl(tiny_models: TinyModels) -> Path:
    """Folder of the tiny Qwen2-VL (skipped without torchvision)."""
    return tiny_models.path("qwen2_vl")
