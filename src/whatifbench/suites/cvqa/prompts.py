"""The C-VQA release's evaluation prompts, per model family (``--prompt paper:<family>``).

LLaVA, Qwen-VL and CogVLM: ``query + " Answer the question using a single word or phrase."``;
BLIP-2 / InstructBLIP: ``"Question: " + q + " Short answer:"``; MiniGPT-v2:
``"Based on the image, respond to this question with a single word or phrase: " + q``.
``--prompt paper`` uses the LLaVA form.
"""

from __future__ import annotations

from whatifbench.errors import WhatifError

FAMILIES = {
    "llava": "{q} Answer the question using a single word or phrase.",
    "qwen": "{q} Answer the question using a single word or phrase.",
    "cogvlm": "{q} Answer the question using a single word or phrase.",
    "blip2": "Question: {q} Short answer:",
    "instructblip": "Question: {q} Short answer:",
    "minigpt": "Based on the image, respond to this question with a single word or phrase: {q}",
}
DEFAULT_FAMILY = "llava"

COT_SUFFIX = "Let's think step by step:"
"""C-VQA Table 4: the chain-of-thought cue post-pended to the questions (with its colon)."""


def paper_prompt(question: str, prompt: str) -> str:
    """The release's prompt for ``--prompt paper`` or ``--prompt paper:<family>``."""
    family = prompt.split(":", 1)[1] if ":" in prompt else DEFAULT_FAMILY
    if family not in FAMILIES:
        raise WhatifError(
            f"Unknown paper prompt family {family!r}; use one of {', '.join(sorted(FAMILIES))} "
            "(e.g. --prompt paper:blip2)."
        )
    return FAMILIES[family].format(q=question)
