"""The C-VQA release's evaluation prompts, per model family (``--prompt paper:<family>``).

LLaVA, Qwen-VL and CogVLM: ``query + " Answer the question using a single word or phrase."``;
BLIP-2 / InstructBLIP: ``"Question: " + q + " Short answer:"``; MiniGPT-v2:
``"Based on the image, respond to this question with a single word or phrase: " + q``.
``--prompt paper`` chooses the family from the backend (``bind_family``): an ``hf:`` BLIP-2,
InstructBLIP or Qwen checkpoint gets its own form, every other model the LLaVA form.
"""

from __future__ import annotations

from dataclasses import replace

from whatifbench.core.protocol import Protocol, paper_family
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.family import model_hint

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


def family_of(prompt: str) -> str:
    """The family a ``paper[:family]`` prompt names; a ``WhatifError`` for an unknown one."""
    family = prompt.split(":", 1)[1] if ":" in prompt else DEFAULT_FAMILY
    if family not in FAMILIES:
        raise WhatifError(
            f"Unknown paper prompt family {family!r}; use one of {', '.join(sorted(FAMILIES))} "
            "(e.g. --prompt paper:blip2)."
        )
    return family


def bind_family(protocol: Protocol, backend: Backend) -> Protocol:
    """``--prompt paper`` → ``paper:<family>`` of the backend (recorded in the run spec);
    ``--prompt paper:FAMILY`` is checked and kept; other prompts are left alone."""
    paper, named = paper_family(protocol.prompt)
    if not paper:
        return protocol
    if named is not None:
        family = family_of(protocol.prompt)
    else:
        hint = model_hint(backend)
        auto = {"blip-2": "blip2", "instructblip": "instructblip", "qwen2_vl": "qwen",
                "qwen2_5_vl": "qwen"}.get(hint.model_type) if hint.kind == "hf" else None
        family = auto or DEFAULT_FAMILY
    return replace(protocol, prompt=f"paper:{family}", family=family)


def paper_prompt(question: str, prompt: str) -> str:
    """The release's prompt for ``--prompt paper`` or ``--prompt paper:<family>``."""
    return FAMILIES[family_of(prompt)].format(q=question)
