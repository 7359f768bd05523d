"""C-VQA-Synthetic: the six counting templates (suite, generator, release import/export)."""

from whatifbench.suites.cvqa_synthetic import (  # noqa: F401  (registrations)
    generate,
    io_export,
    io_import,
    suite,
)
