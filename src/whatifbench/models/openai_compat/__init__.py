"""``openai:MODEL``: any OpenAI-compatible chat-completions server (vLLM, SGLang, OpenAI ...)."""

from whatifbench.models.openai_compat import backend  # noqa: F401  (registers the backend)
