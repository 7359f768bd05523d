"""``$WHATIF_HOME``: the folder of the shared run store, caches and the naming secret."""

from __future__ import annotations

import os
from pathlib import Path


def whatif_home() -> Path:
    """Folder for the shared store and cached default suites (``$WHATIF_HOME``, else
    ``$XDG_CACHE_HOME/whatifbench``, else ``~/.cache/whatifbench``)."""
    env = os.environ.get("WHATIF_HOME")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "whatifbench"
