"""The dataset card: what a dataset is, how it was made, and content hashes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CARD_VERSION = 1


@dataclass(frozen=True)
class Card:
    """Contents of ``card.json``."""

    name: str
    """Dataset name (free text, e.g. ``cvqa-synthetic``)."""
    suite: str
    """The registered suite whose protocol and metrics apply (e.g. ``cvqa-synthetic``)."""
    version: str
    """Version of the generator or importer that wrote the dataset."""
    generator: dict[str, Any]
    """``{"name": ..., "params": {...}}``: the program that produced it and all its parameters."""
    seed: int | None
    """Seed of the generator (``None`` for imports)."""
    counts: dict[str, Any] = field(default_factory=dict)
    """Item, pair and per-group counts (and anything an importer skipped)."""
    hashes: dict[str, Any] = field(default_factory=dict)
    """sha256 of ``items.jsonl`` and of each image."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Suite-specific facts (e.g. balance statistics, shares of changed answers)."""

    def to_json(self) -> dict[str, Any]:
        """The card as a JSON object."""
        return {
            "card_version": CARD_VERSION,
            "name": self.name,
            "suite": self.suite,
            "version": self.version,
            "generator": self.generator,
            "seed": self.seed,
            "counts": self.counts,
            "hashes": self.hashes,
            "extra": self.extra,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Card:
        """Read a card written by ``to_json`` (missing optional parts become empty) through its
        schema: a field of the wrong type is a ``SchemaError`` (a ``ValueError``) naming it."""
        from whatifbench.core.records.schema import parse

        card: Card = parse(cls, {
            "name": str(obj["name"]), "suite": str(obj["suite"]),
            "version": str(obj.get("version", "")), "generator": obj.get("generator") or {},
            "seed": obj.get("seed"), "counts": obj.get("counts") or {},
            "hashes": obj.get("hashes") or {}, "extra": obj.get("extra") or {}})
        return card
