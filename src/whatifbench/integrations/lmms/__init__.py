"""lmms-eval: the task folder exporter, its task code template, and the samples importer."""
