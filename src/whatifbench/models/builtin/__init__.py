"""Built-in reference models that need no weights (``builtin:*``)."""

from whatifbench.models.builtin import reference  # noqa: F401  (registers the backends)
from whatifbench.models.builtin import text_prior  # noqa: F401  (registers builtin:text-prior)
