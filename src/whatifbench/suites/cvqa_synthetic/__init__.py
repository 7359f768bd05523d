"""C-VQA-Synthetic: the six counting templates (suite, generator, release import/export)."""

from whatifbench.suites.cvqa_synthetic import suite  # noqa: F401  (registers the suite)
