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


def test_files_are_written_in_name_order_with_one_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Written as added (a pair's cause, then its effect), modification times, inode numbers
    and a tmpfs listing would pair the pictures up and tell which is which (issue 41): the
    writer writes images in name order, past ``SPILL_BYTES`` through a spill file, and gives
    every file one time."""
    monkeypatch.setattr(dataset_module, "SPILL_BYTES", 40)
    added = [("zz-cause.png", b"z" * 30), ("aa-effect.png", b"a" * 30),
             ("mm/deep.png", b"m" * 30), ("bb-cause.png", b"b" * 30)]
    created: list[str] = []
    real_write = Path.write_bytes

    def spy(path: Path, data: bytes) -> int:
        created.append(path.name)
        return real_write(path, data)

    monkeypatch.setattr(Path, "write_bytes", spy)
    with DatasetWriter(tmp_path / "ds") as writer:
        for k, (name, data) in enumerate(added):
            writer.add_item(_item(k, writer.add_image(name, data)))
        assert writer.has_image("mm/deep.png") and not writer.has_image("nope.png")
        assert not list(writer.images.rglob("*.png"))  # nothing on disk before finish
        writer.finish(name="t", suite="s", version="1", generator={}, seed=None)
    root = tmp_path / "ds"
    assert {n: (root / "images" / n).read_bytes() for n, _ in added} == dict(added)
    assert not (root / dataset_module.SPILL).exists()
    images = [n for n in created if n.endswith(".png")]
    assert images == ["aa-effect.png", "bb-cause.png", "deep.png", "zz-cause.png"]  # by name
    times = {p.stat().st_mtime_ns for p in root.rglob("*")}
    assert len(times) == 1
