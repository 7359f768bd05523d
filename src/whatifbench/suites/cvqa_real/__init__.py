"""C-VQA-Real: suite (protocol, parsers, metrics, statistics), release import/export, the
LLM-assisted construction pipeline and its human-review sheet."""

from whatifbench.suites.cvqa_real import (  # noqa: F401  (register the suite and the tools)
    build,
    exporter,
    importer,
    replies,
    review,
    suite,
)
