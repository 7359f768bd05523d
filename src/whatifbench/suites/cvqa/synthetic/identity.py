"""Name and version of the C-VQA-Synthetic generator, in a module that imports nothing (so the
default suite's folder is found without importing the generator)."""

GENERATOR = "cvqa-synthetic"
"""The generator's registered name."""
VERSION = "1.1"
"""Generator version: bump whenever the output for a given seed changes."""
