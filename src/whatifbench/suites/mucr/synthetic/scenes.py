"""The oracle's scenes of MuCR-Synthetic images.

Every item carries the cause and effect worlds of its own pair (``provenance.scene``). A
``shortcut-free`` item (opaque file names) also carries, per image, what it shows
(``provenance.images``: pair and part, and the world of an image of another pair), so each item
is read on its own. A ``paper`` item's image is found by its name, ``<pair>-cause.png`` or
``<pair>-effect.png``, among the worlds of the pairs of the run (an item's options may show
other pairs' pictures).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from whatifbench.core.item import Item
from whatifbench.scenes.bodies import World
from whatifbench.scenes.source import SceneMissing

IMAGE = re.compile(r"(?P<rid>[^/]+)-(?P<part>cause|effect)\.png$")
"""The name of a ``paper`` MuCR-Synthetic image: its pair and which world it shows."""


class MucrSyntheticScenes:
    """``SceneSource`` of MuCR-Synthetic items (the worlds of every pair learned first)."""

    def __init__(self) -> None:
        self._worlds: dict[str, dict[str, Any]] = {}

    def learn(self, items: Sequence[Item]) -> None:
        """Remember the worlds the items carry, by pair."""
        for item in items:
            scene = item.provenance.get("scene")
            if isinstance(scene, dict):
                self._worlds[str(item.pair_id)] = scene

    def scenes(self, item: Item) -> list[World]:
        """The world each of the item's images shows."""
        shown = item.provenance.get("images")
        if isinstance(shown, list) and len(shown) == len(item.images):
            return [self._mapped(item, path, entry)
                    for path, entry in zip(item.images, shown, strict=True)]
        return [self._named(item, path) for path in item.images]

    def _mapped(self, item: Item, path: str, entry: Any) -> World:
        """The world of an image that the item's provenance maps."""
        if isinstance(entry, dict) and isinstance(entry.get("world"), dict):
            return World.from_json(entry["world"])
        pair, part = (entry.get("pair"), entry.get("part")) if isinstance(entry, dict) \
            else (None, None)
        own = item.provenance.get("scene") if pair == item.pair_id else None
        world = own if isinstance(own, dict) else self._worlds.get(str(pair))
        if world is None or part not in ("cause", "effect"):
            raise SceneMissing(f"item {item.id}: its provenance does not say which scene its "
                               f"image {path} shows; regenerate the dataset with this version "
                               "of whatifbench.")
        return World.from_json(world[part])

    def _named(self, item: Item, path: str) -> World:
        match = IMAGE.search(PurePosixPath(path).name)
        world = self._worlds.get(match.group("rid")) if match else None
        if match is None or world is None:
            raise SceneMissing(
                f"item {item.id}: the scene of its image {path} is not known; oracle perception "
                "on MuCR-Synthetic needs every pair of a group in the run (evaluate whole groups "
                "of four pairs, e.g. --limit in multiples of 16 items).")
        return World.from_json(world[match.group("part")])
