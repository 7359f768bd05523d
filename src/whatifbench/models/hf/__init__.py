"""``hf:PATH``: local transformers vision-language checkpoints.

This module stays light: torch and transformers are imported only when a model is loaded.
"""
