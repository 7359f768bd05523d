"""DatasetWriter hashes images from the bytes ``add_image`` writes; other files are read."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from whatifbench.core import writer as dataset_module
from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.item import Item


def _item(i: int, image: str) -> Item:
    return Item(id=f"q{i}", images=(image,), question="How many?", kind="number", target="1")


def test_added_images_are_not_read_back_and_others_are_hashed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    real = dataset_module.sha256_file

    def spy(path: Path) -> str:
        read.append(path.name)
        return real(path)

    monkeypatch.setattr(dataset_module, "sha256_file", spy)
    blobs = {"a.png": b"first image", "sub/b.png": b"second image", "sub.png": b"third"}
    with DatasetWriter(tmp_path / "ds") as writer:
        rels = [writer.add_image(name, data) for name, data in blobs.items()]
        (writer.images / "direct.png").write_bytes(b"written by other code")
        for i, rel in enumerate(rels):
            writer.add_item(_item(i, rel))
        card = writer.finish(name="t", suite="s", version="1", generator={}, seed=None)
    assert rels == ["images/a.png", "images/sub/b.png", "images/sub.png"]
    assert read == ["direct.png"]  # only the file add_image did not write
    on_disk = {p.relative_to(tmp_path / "ds").as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in sorted((tmp_path / "ds" / "images").rglob("*")) if p.is_file()}
    assert card.hashes["images"] == on_disk
    assert list(card.hashes["images"]) == list(on_disk)  # path order, folders by their parts
    assert list(on_disk) == ["images/a.png", "images/direct.png", "images/sub/b.png",
                             "images/sub.png"]
    saved = json.loads((tmp_path / "ds" / "card.json").read_text())
    assert saved["hashes"]["images"] == on_disk
