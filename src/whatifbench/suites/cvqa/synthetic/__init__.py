"""C-VQA-Synthetic: the six counting templates (suite, generator, release import/export)."""
