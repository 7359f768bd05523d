"""Our suites inside other tools: Hugging Face ``datasets`` folders, lmms-eval task folders,
VLMEvalKit TSV files and inspect_ai tasks.

Everything here is imported on demand: the exporters and importers registered in
``whatifbench.cli.interop`` import these modules (and their optional libraries) only when
they run, and ``whatifbench.integrations.inspect`` is imported only by inspect_ai itself (through
the package's ``inspect_ai`` entry point) or by users who installed ``whatifbench[inspect]``.
"""
