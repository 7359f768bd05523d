"""C-VQA-Synthetic: the six counting templates (suite, generator, release import/export)."""

from whatifbench.suites.cvqa_synthetic import generate, suite  # noqa: F401  (registrations)
