"""C-VQA-Real: suite (protocol, parsers, metrics, statistics), release import/export, the
LLM-assisted construction pipeline and its human-review sheet."""
