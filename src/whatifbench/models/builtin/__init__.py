"""Built-in reference models that need no weights (``builtin:*``)."""

from whatifbench.models.builtin import reference, text_prior  # noqa: F401  (register backends)
