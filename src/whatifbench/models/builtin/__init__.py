"""Built-in reference models that need no weights (``builtin:*``)."""
