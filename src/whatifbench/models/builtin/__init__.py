"""Built-in reference models that need no weights (``builtin:*``)."""

from whatifbench.models.builtin import reference, scene_reader  # noqa: F401  (registrations)
