"""``--model NAME=SPEC``: a display name for a model, recorded in the run spec beside its spec."""

from __future__ import annotations

from collections.abc import Sequence

from whatifbench.errors import WhatifError


def split_model_name(text: str) -> tuple[str | None, str]:
    """``"llava=hf:/models/llava"`` → ``("llava", "hf:/models/llava")``; a plain spec (whose
    part before any ``=`` holds the backend's ``:``) has no name."""
    name, sep, spec = text.partition("=")
    if not sep or ":" in name:
        return None, text
    name = name.strip()
    if not name or not spec.strip():
        raise WhatifError(f"--model {text!r} is not of the form NAME=SPEC (e.g. "
                          "llava=hf:/models/llava-1.5-7b-hf) or a plain backend spec.")
    return name, spec.strip()


def named_models(models: Sequence[str]) -> list[tuple[str | None, str]]:
    """Every ``--model`` value split; two models may not share a display name."""
    pairs = [split_model_name(m) for m in models]
    names = [n for n, _ in pairs if n]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        raise WhatifError(f"Two --model options are named {doubled[0]!r}; give each model its "
                          "own name.")
    return pairs
