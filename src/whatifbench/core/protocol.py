"""How an item becomes a request: prompt variant, strategy, answer mode, image layout."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from whatifbench.errors import WhatifError

STRATEGIES = ("zero-shot", "cot", "one-shot", "one-shot-cot", "ccot")
ANSWER_MODES = ("generate", "rank")
LAYOUTS = ("multi", "composite")
SCORE_BY = ("sum", "mean")
DECODINGS = ("release", "greedy")
"""``--decoding``: the release script's own (sampling where it samples, seeded) or greedy."""
ABLATIONS = ("blank", "shuffled", "none")
"""``--image-ablation``: the kinds of image ablation (``runner.ablation``)."""
BACKEND_DECODING = "backend"
"""Recorded instead when the backend decodes its own way (built-in references, program
backends, whose code LLM has its own settings): no decoding record reaches it."""

COT_SUFFIX = "Let's think step by step."
"""Appended for chain-of-thought, as in C-VQA Table 4 and Kojima et al."""

CCOT_DESCRIBE = (
    "Before answering, describe each image briefly as a scene graph: the objects, their "
    "attributes and the relationships between them."
)
"""First stage of compositional chain-of-thought (CCoT, Mitra et al. 2024)."""


def paper_family(prompt: str) -> tuple[bool, str | None]:
    """Whether ``prompt`` asks for the release's protocol (``paper`` or ``paper:FAMILY``), and
    the family it names (``None`` for a bare ``paper``)."""
    if prompt == "paper":
        return True, None
    if prompt.startswith("paper:"):
        return True, prompt.split(":", 1)[1]
    return False, None


@dataclass(frozen=True)
class Protocol:
    """Everything about how items are posed, recorded in every run spec."""

    prompt: str = "default"
    """``default`` (ours), ``paper`` (the release's prompts) or ``paper:<family>``."""
    strategy: str = "zero-shot"
    """One of ``STRATEGIES``."""
    answer_mode: str | None = None
    """``generate`` (then parse) or ``rank`` (likelihood ranking); ``None`` = suite default."""
    image_layout: str = "multi"
    """Multi-image items: images passed separately (``multi``) or one composite image."""
    parser: str = "default"
    """The parser whose extraction is scored (``default`` or ``paper``); all are reported."""
    max_new_tokens: int | None = None
    """Generation budget; ``None`` chooses by strategy (short answers, longer for CoT)."""
    score_by: str | None = None
    """Rank mode: choose by summed (``sum``) or per-token mean (``mean``) log-probability;
    ``None`` = the suite's default."""
    family: str | None = None
    """The model family whose release protocol ``paper`` prompts and parsers follow (CELLO:
    ``api``, ``llava`` …; C-VQA: ``llava``, ``blip2`` …), chosen from the backend when the run
    starts (``Suite.bind``) unless ``--prompt paper:FAMILY`` names it; ``None`` for suites
    without families."""
    decoding: str | None = None
    """``release`` (the release script's generation settings, sampling seeded per item),
    ``greedy``, or ``backend`` (recorded for backends that decode their own way); ``None``: the
    suite's default (``release`` under C-VQA's paper protocol, else ``greedy``)."""
    template: str | None = None
    """The conversation template a paper request is written in as the model's whole input
    (C-VQA: ``llava_v1``, ``qwen`` …); ``None``: the model's own chat template or API."""

    def validate(self) -> Protocol:
        """Check the values; raise ``WhatifError`` naming the bad one."""
        checks = [("strategy", self.strategy, STRATEGIES), ("image layout", self.image_layout,
                  LAYOUTS)]
        if self.answer_mode is not None:
            checks.append(("answer mode", self.answer_mode, ANSWER_MODES))
        if self.score_by is not None:
            checks.append(("score-by", self.score_by, SCORE_BY))
        if self.decoding is not None:
            checks.append(("decoding", self.decoding, (*DECODINGS, BACKEND_DECODING)))
        for what, value, allowed in checks:
            if value not in allowed:
                raise WhatifError(f"Unknown {what} {value!r}; use one of {', '.join(allowed)}.")
        if self.max_new_tokens is not None and (isinstance(self.max_new_tokens, bool)
                                                or self.max_new_tokens < 1):
            raise WhatifError(f"--max-new-tokens {self.max_new_tokens} must be a positive number "
                              "of tokens (or leave it out for the suite's own budget).")
        if self.answer_mode == "rank" and self.strategy in ("cot", "ccot"):
            raise WhatifError(
                f"The {self.strategy} strategy needs generated text and cannot be combined with "
                "--answer-mode rank; use --answer-mode generate, or --strategy one-shot-cot "
                "(a demonstration with reasoning) for ranking."
            )
        return self

    def resolved(self, default_mode: str, default_score_by: str = "sum",
                 default_tokens: int = 64) -> Protocol:
        """The protocol with the suite's defaults (answer mode, score-by) and the token budget
        filled in (``default_tokens``: the suite's budget without reasoning; 512 for CoT/CCoT)."""
        mode = self.answer_mode or default_mode
        budget = self.max_new_tokens or (512 if self.strategy in ("cot", "ccot")
                                         else default_tokens)
        return replace(self, answer_mode=mode, max_new_tokens=budget,
                       score_by=self.score_by or default_score_by,
                       decoding=self.decoding or "greedy").validate()

    def to_json(self) -> dict[str, Any]:
        """Recorded form."""
        return asdict(self)
