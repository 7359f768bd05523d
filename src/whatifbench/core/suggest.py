""""Did you mean ...?" for a name a user mistyped (a command, a tool, a model, a folder)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, options: Iterable[str]) -> str | None:
    """The option most like ``word`` (``None`` when none is close)."""
    found = difflib.get_close_matches(word, list(dict.fromkeys(options)), n=1, cutoff=0.6)
    return found[0] if found else None

