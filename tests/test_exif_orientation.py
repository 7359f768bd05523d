"""A photo whose EXIF orientation turns it (issue 41, item 7): stored 200×100 with orientation 6,
browsers show it 100×200 and PIL reads 200×100, so people and models would see different
pictures. Imports apply the orientation and drop the tag; every reader then sees 100×200 and the
same pixels (the ``hf:`` backend's loader, the scene reader, the annotation app's and the
explorer's served bytes, Chromium); loading a dataset that still holds such an image refuses
it with a sentence."""

from __future__ import annotations

import io
import json
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cfmm_util import good_records, write_jsonl
from PIL import Image, ImageOps

from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.images import ORIENTATION, normalised
from whatifbench.core.item import Item
from whatifbench.errors import WhatifError
from whatifbench.human import api
from whatifbench.human.records import Settings
from whatifbench.human.server import start
from whatifbench.models.builtin.reader.perceive import load as reader_load
from whatifbench.models.hf.inputs import load_images
from whatifbench.report.serve import ExplorerServer


def turned_jpeg() -> bytes:
    """A 200×100 JPEG (red left half, blue right half, a green corner) tagged orientation 6
    (shown turned by 90 degrees clockwise: 100×200)."""
    img = Image.new("RGB", (200, 100), (220, 30, 40))
    img.paste((30, 90, 220), (100, 0, 200, 100))
    img.paste((30, 150, 60), (0, 0, 20, 20))
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    buffer = io.BytesIO()
    img.save(buffer, format="JPEG", quality=95, exif=exif.tobytes())
    return buffer.getvalue()


def _decoded(data: bytes) -> Image.Image:
    """The pixels as stored (no orientation applied: what PIL and the models read)."""
    with Image.open(io.BytesIO(data)) as img:
        return img.convert("RGB")


@pytest.fixture()
def imported(tmp_path: Path) -> Path:
    """A CFMM dataset imported from records whose first picture is the turned JPEG."""
    records = good_records(1)[:2]
    for record in records:
        record["image"] = "photo.jpg"
    (tmp_path / "imgs").mkdir()
    (tmp_path / "imgs" / "photo.jpg").write_bytes(turned_jpeg())
    source = write_jsonl(tmp_path / "pairs.jsonl", records)
    assert main(["import", "cfmm", "--jsonl", str(source), "--images", str(tmp_path / "imgs"),
                 "--out", str(tmp_path / "ds")]) == 0
    return tmp_path / "ds"


def test_the_import_turns_the_photo_and_drops_the_tag(imported: Path, tmp_path: Path) -> None:
    original = (tmp_path / "imgs" / "photo.jpg").read_bytes()
    assert _decoded(original).size == (200, 100)  # as stored: what a model read before
    stored = (imported / "images" / "photo.jpg").read_bytes()
    with Image.open(io.BytesIO(stored)) as img:
        assert img.size == (100, 200) and ORIENTATION not in img.getexif()
    browser_view = ImageOps.exif_transpose(Image.open(io.BytesIO(original))).convert("RGB")
    diff = np.abs(np.asarray(_decoded(stored), dtype=int) - np.asarray(browser_view, dtype=int))
    assert diff.mean() < 3  # the picture a browser showed, written again at quality 95
    card = json.loads((imported / "card.json").read_text())
    assert card["extra"]["normalised_images"]["images/photo.jpg"]["exif_orientation"] == 6
    assert card["extra"]["normalised_images"]["images/photo.jpg"]["stored_size"] == [200, 100]
    assert load_dataset(imported, verify=True).items  # the card's hashes are the new bytes
    assert normalised(stored) == (stored, None)  # written once, left alone after


def test_every_reader_sees_the_same_pixels(imported: Path, tmp_path: Path) -> None:
    data = load_dataset(imported)
    rel = data.items[0].images[0]
    path = imported / rel
    reference = np.asarray(_decoded(path.read_bytes()))
    assert reference.shape == (200, 100, 3)
    # the hf: backend's loader
    (model_view,) = load_images([str(path)])
    assert np.array_equal(np.asarray(model_view), reference)
    # the scene reader's perception (colour labels, height × width)
    colors = reader_load(path)
    assert colors.labels.shape == (200, 100)
    assert np.array_equal(np.asarray(colors.rgb, dtype=np.uint8)[colors.labels], reference)
    # the annotation app serves the file's bytes
    server = api.serve(data, Settings(), store=tmp_path / "store.sqlite")
    start(server)
    try:
        shown: dict[str, Any] = server._item(data.items[0].id)
        url = server.url().split("?")[0].rstrip("/") + shown["images"][0]
        request = urllib.request.Request(url, headers={"X-Whatif-Token": server.token})
        with urllib.request.urlopen(request, timeout=10) as reply:
            served = reply.read()
    finally:
        server.shutdown()
        server.server_close()
    assert np.array_equal(np.asarray(_decoded(served)), reference)
    # the explorer serves the file's bytes too
    explorer = ExplorerServer(b"<html></html>", [(imported, {rel})], 0)
    start(explorer)
    try:
        with urllib.request.urlopen(f"{explorer.url}image/0/{rel}", timeout=10) as reply:
            assert np.array_equal(np.asarray(_decoded(reply.read())), reference)
    finally:
        explorer.shutdown()
        explorer.server_close()


def test_chromium_shows_the_stored_size(imported: Path, page: Any) -> None:
    rel = load_dataset(imported).items[0].images[0]
    explorer = ExplorerServer(f'<html><body><img src="/image/0/{rel}"></body></html>'.encode(),
                              [(imported, {rel})], 0)
    start(explorer)
    try:
        page.goto(explorer.url)
        page.wait_for_load_state("load")
        size = page.evaluate("() => [document.images[0].naturalWidth, "
                             "document.images[0].naturalHeight]")
    finally:
        explorer.shutdown()
        explorer.server_close()
    assert size == [100, 200]  # as PIL reads the file: no turn left for the browser to make


def test_a_dataset_that_still_holds_a_turned_photo_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    with DatasetWriter(out) as writer:
        writer.add_item(Item("q", ("images/photo.jpg",), "Is it red?", "yes-no", "yes"))
        writer.finish(name="t", suite="cfmm", version="1", generator={}, seed=None)
    (out / "images" / "photo.jpg").write_bytes(turned_jpeg())  # as an older whatifbench left it
    with pytest.raises(WhatifError, match=r"EXIF orientation 6.*100×200.*200×100.*re-create"):
        load_dataset(out)
    assert main(["run", "--suite", str(out), "--model", "builtin:random", "--out",
                 str(tmp_path / "run")]) == 2
    assert not (tmp_path / "run").exists()
