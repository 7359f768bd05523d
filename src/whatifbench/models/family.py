"""What kind of model a backend is, for suites whose paper protocol differs per model family.

The CELLO and C-VQA releases send a different request (and CELLO parses the reply
differently) for API models, LLaVA, BLIP-2, Qwen …; ``model_hint`` says which of those a
backend is: ``openai:`` specs by their model name, ``hf:`` checkpoints by the ``model_type`` of
their ``config.json`` (and that of their language model), as the backend read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from whatifbench.models.base import Backend


@dataclass(frozen=True)
class ModelHint:
    """The facts about a backend that decide its model family."""

    kind: str
    """The backend family: ``openai``, ``hf``, or the spec's prefix for any other backend
    (``builtin``, ``program`` …)."""
    name: str
    """The model name (``openai:NAME``) or checkpoint path (``hf:PATH``), lower-cased."""
    model_type: str = ""
    """``config.json`` → ``model_type`` of an ``hf:`` checkpoint (``llava``, ``blip-2`` …)."""
    text_model_type: str = ""
    """``config.json`` → ``text_config.model_type`` (``llama``, ``mistral`` …), if any."""


def model_hint(backend: Backend) -> ModelHint:
    """The hint of ``backend`` (``hf:`` backends, and the Ray stand-ins of their actors, expose
    ``model_type`` / ``text_model_type``)."""
    kind, _, name = backend.spec.partition(":")
    return ModelHint(kind, name.lower(), str(getattr(backend, "model_type", "") or ""),
                     str(getattr(backend, "text_model_type", "") or ""))
