"""The conversation templates C-VQA's release scripts write themselves, as data.

``run_eval_llava.py`` builds one of LLaVA's ``conv_templates`` (haotian-liu/LLaVA,
``llava/conversation.py``): ``llava_v1`` for LLaVA-1.5 (``-M conv=`` chooses another);
``run_eval_qwen.py`` goes through Qwen-VL-Chat's ``model.chat``, whose ``make_context`` writes a
ChatML conversation with the system line ``You are a helpful assistant.``; LAVIS gives the
language model the prompt alone (``plain``). Each template renders one user message (the image
marked by ``IMAGE``) followed by the opening of the assistant's turn, exactly as the release's
``get_prompt()`` / ``make_context`` does, and names the stop string its script stops at.

- ``llava_v0``: ``{SYSTEM_HUMAN}###Human: M###Assistant:``, stop ``###``;
- ``llava_v1``: ``{SYSTEM_HUMAN} USER: M ASSISTANT:``, stop ``</s>``;
- ``llava_llama_2``: ``[INST] <<SYS>>\\n{SYSTEM_LLAMA_2}\\n<</SYS>>\\n\\nM [/INST]``, stop ``<s>``;
- ``mpt``: ``<|im_start|>system\\n{SYSTEM_MPT}<|im_end|><|im_start|>user\\nM<|im_end|>``
  ``<|im_start|>assistant\\n``, stop ``<|im_end|>``;
- ``qwen``: ``<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n<|im_start|>user``
  ``\\nM<|im_end|>\\n<|im_start|>assistant\\n``, stop ``<|im_end|>`` or ``<|im_start|>``;
- ``plain``: ``M``, no stop string.

The stop strings are the scripts' own: LLaVA's ``conv.sep`` (``conv.sep2`` for the two-separator
style), so ``llava_llama_2`` stops at ``<s>`` (the end-of-sequence token ends it in practice);
Qwen-VL's ``get_stop_words_ids`` for ChatML.
"""

from __future__ import annotations

from dataclasses import dataclass

from whatifbench.errors import WhatifError

IMAGE = "\x00image\x00"
"""Marks where the image goes in a rendered prompt (split into an image part by the suite)."""

SYSTEM_HUMAN = ("A chat between a curious human and an artificial intelligence assistant. The "
                "assistant gives helpful, detailed, and polite answers to the human's questions.")
"""The system line of LLaVA's ``conv_llava_v0`` and ``conv_llava_v1``."""
SYSTEM_LLAMA_2 = ("You are a helpful language and vision assistant. You are able to understand "
                  "the visual content that the user provides, and assist the user with a variety "
                  "of tasks using natural language.")
"""The system line of LLaVA's ``conv_llava_llama_2``."""
SYSTEM_MPT = ("A conversation between a user and an LLM-based AI assistant. The assistant gives "
              "helpful and honest answers.")
"""The system line of LLaVA's ``conv_mpt`` (after ``<|im_start|>system\\n``)."""
SYSTEM_QWEN = "You are a helpful assistant."
"""The default system line of Qwen-VL-Chat's ``model.chat``."""


@dataclass(frozen=True)
class Template:
    """A conversation template: how one user message becomes the model's whole input."""

    name: str
    """The name (``-M conv=NAME`` for the LLaVA ones)."""
    source: str
    """Where the release defines it."""
    before: str
    """Text before the user message (system line, user role)."""
    after: str
    """Text after the user message (separator, the assistant's role)."""
    stop: tuple[str, ...] = ()
    """The stop strings the release's script ends the reply at."""

    def render(self, message: str) -> str:
        """The prompt for one user message."""
        return f"{self.before}{message}{self.after}"


TEMPLATES: dict[str, Template] = {t.name: t for t in (
    Template("llava_v0", "LLaVA conv_llava_v0 (SeparatorStyle.SINGLE, sep '###')",
             f"{SYSTEM_HUMAN}###Human: ", "###Assistant:", ("###",)),
    Template("llava_v1", "LLaVA conv_llava_v1 (SeparatorStyle.TWO, sep ' ', sep2 '</s>')",
             f"{SYSTEM_HUMAN} USER: ", " ASSISTANT:", ("</s>",)),
    Template("llava_llama_2", "LLaVA conv_llava_llama_2 (SeparatorStyle.LLAMA_2, sep '<s>')",
             f"[INST] <<SYS>>\n{SYSTEM_LLAMA_2}\n<</SYS>>\n\n", " [/INST]", ("<s>",)),
    Template("mpt", "LLaVA conv_mpt (SeparatorStyle.MPT, sep '<|im_end|>')",
             f"<|im_start|>system\n{SYSTEM_MPT}<|im_end|><|im_start|>user\n",
             "<|im_end|><|im_start|>assistant\n", ("<|im_end|>",)),
    Template("qwen", "Qwen-VL-Chat make_context (chat_format chatml)",
             f"<|im_start|>system\n{SYSTEM_QWEN}<|im_end|>\n<|im_start|>user\n",
             "<|im_end|>\n<|im_start|>assistant\n", ("<|im_end|>", "<|im_start|>")),
    Template("plain", "LAVIS generate (the prompt is the language model's whole text)", "", ""),
)}
"""Every template, by name."""
LLAVA_TEMPLATES = ("llava_v0", "llava_v1", "llava_llama_2", "mpt")
"""The ``conv_templates`` ``run_eval_llava.py`` chooses from (``-M conv=``)."""


def template(name: str) -> Template:
    """The template called ``name``."""
    return TEMPLATES[name]


def llava_conv(model_name: str, conv: str | None) -> str:
    """The LLaVA template for a checkpoint: ``conv`` (``-M conv=``) when given, else the
    release's choice by model name — ``llama-2`` → ``llava_llama_2``, ``v1`` → ``llava_v1``,
    ``mpt`` → ``mpt`` — except that a name with none of these is ``llava_v1`` (the release says
    ``llava_v0``) unless it holds ``v0``: the transformers conversions of LLaVA-1.5 are named
    ``llava-1.5-7b-hf``, without the ``v1`` of the original ``llava-v1.5-7b``."""
    if conv is not None:
        if conv not in LLAVA_TEMPLATES:
            raise WhatifError(f"-M conv={conv} is not one of LLaVA's conversation templates that "
                              f"the release chooses from; use one of {', '.join(LLAVA_TEMPLATES)}.")
        return conv
    name = model_name.lower()
    if "llama-2" in name:
        return "llava_llama_2"
    if "v1" in name:
        return "llava_v1"
    if "mpt" in name:
        return "mpt"
    return "llava_v0" if "v0" in name else "llava_v1"
