"""``openai:MODEL``: any OpenAI-compatible chat-completions server (vLLM, SGLang, OpenAI ...)."""
