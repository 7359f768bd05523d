"""Backend specs → backends: ``models.make`` (kept under this name for callers)."""

from whatifbench.models.make import *  # noqa: F403
