"""What kind of model a backend is, for suites whose paper protocol differs per model family.

The CELLO and C-VQA releases send a different request (and CELLO parses the reply
differently) for API models, LLaVA, BLIP-2, Qwen …; ``model_hint`` says which of those a
backend is, without loading any weights: ``openai:`` specs by their model name, ``hf:``
checkpoints by the ``model_type`` of their ``config.json`` (and that of their language model).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

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
    """The hint of ``backend`` (``hf:`` backends expose ``model_type`` / ``text_model_type``; a
    stand-in that does not, such as a Ray actor pool's, is read from the folder's
    ``config.json``)."""
    kind, _, name = backend.spec.partition(":")
    model_type = str(getattr(backend, "model_type", "") or "")
    text_type = str(getattr(backend, "text_model_type", "") or "")
    if kind == "hf" and not model_type:
        model_type, text_type = _config_types(Path(name).expanduser() / "config.json")
    return ModelHint(kind, name.lower(), model_type, text_type)


def _config_types(path: Path) -> tuple[str, str]:
    """``model_type`` and ``text_config.model_type`` of a ``config.json`` (empty when absent or
    unreadable: the backend reports a broken folder itself)."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return "", ""
    if not isinstance(config, dict):
        return "", ""
    text = config.get("text_config")
    return (str(config.get("model_type", "") or ""),
            str(text.get("model_type", "") or "") if isinstance(text, dict) else "")
