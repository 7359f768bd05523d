"""MuCR-synthetic: procedural cause → effect pairs whose consequences the scene engine computes."""

from whatifbench.suites.mucr_synthetic import generate  # noqa: F401  (registers the generator)
