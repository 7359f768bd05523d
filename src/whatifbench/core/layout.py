"""The files of a dataset folder (docs/files.md)."""

from __future__ import annotations

ITEMS = "items.jsonl"
"""One item per line."""
CARD = "card.json"
"""Name, version, generator and parameters, seed, counts, hashes."""
IMAGES = "images"
"""The pictures items show (and extra ones, such as intervened scenes)."""
PRIVATE = "private"
"""What only the dataset's makers need (``core.private``): never published, never exported."""
