"""``hf:PATH``: local transformers vision-language checkpoints.

This module stays light: torch and transformers are imported only when a model is loaded.
"""

from whatifbench.models.hf import backend  # noqa: F401  (registers the hf backend)
