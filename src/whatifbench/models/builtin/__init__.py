"""Built-in reference models that need no weights (``builtin:*``)."""

from whatifbench.models.builtin import (  # noqa: F401  (register backends)
    reference,
    scene_reader,
    text_prior,
)
