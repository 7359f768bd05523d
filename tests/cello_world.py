"""Visual Genome-like scene graphs with the priors of real photographs, for CELLO tests and
benches: the world of ``whatif build cello``'s example (``whatifbench.suites.cello.example``),
written with the tiny JPEGs of ``cello_fixtures``. Names repeat across images with their usual
roles (a street always supports, a hat is always supported), so a text-only model can learn who
holds whom, as it could on Visual Genome. The tests hold hashes of datasets built from this
world: change it and they must be recomputed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cello_fixtures import write_input

from whatifbench.suites.cello.example import SIZE, world

__all__ = ["SIZE", "world", "write_scenes", "write_world"]


def write_world(root: Path, n: int, seed: int = 0) -> tuple[Path, Path, Path]:
    """``scene_graphs.json``, ``image_data.json`` and ``images/`` (tiny JPEGs) under ``root``."""
    return write_scenes(root, world(n, seed))


def write_scenes(root: Path, scenes: list[dict[str, Any]]) -> tuple[Path, Path, Path]:
    """``scenes`` as ``scene_graphs.json``, with ``image_data.json`` (``SIZE``) and tiny
    JPEGs."""
    return write_input(root, scenes, SIZE, pixels=(8, 6))
