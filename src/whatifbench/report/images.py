"""Embedded thumbnails (JPEG data URIs) for reports and review sheets, cached under
``$WHATIF_HOME/thumbs`` by file path, size and modification time so a repeated report reads
small files instead of decoding every image again."""

from __future__ import annotations

import base64
import hashlib
import io
import warnings
from pathlib import Path

from PIL import Image

from whatifbench.core.fsutil import write_bytes_atomic
from whatifbench.core.images import too_large
from whatifbench.runner.store import whatif_home

THUMB = 160
"""Default longest side of a thumbnail, in pixels."""
VERSION = "1"
"""Bumped when the encoding changes (invalidates cached thumbnails)."""


def _key(path: Path, size: int) -> str | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    text = f"{VERSION}|{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{size}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def thumbnail_bytes(path: Path, size: int = THUMB) -> bytes | None:
    """JPEG bytes of at most ``size`` pixels per side (``None`` when unreadable)."""
    key = _key(path, size)
    if key is None or not path.is_file():
        return None
    cached = whatif_home() / "thumbs" / key[:2] / f"{key}.jpg"
    try:
        return cached.read_bytes()
    except OSError:
        pass
    try:
        buf = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as src:
                if too_large(*src.size):  # the dataset pixel limit (core.images): not decoded
                    return None
                src.draft("RGB", (size, size))  # JPEG: decode at a reduced scale
                img = src if src.mode == "RGB" else src.convert("RGB")
                img.thumbnail((size, size), Image.Resampling.BILINEAR, reducing_gap=2.0)
                img.save(buf, format="JPEG", quality=80)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    data = buf.getvalue()
    try:
        write_bytes_atomic(cached, data)
    except Exception:  # noqa: BLE001  (a cache we cannot write is only slower next time)
        pass
    return data


def thumbnail_uri(path: Path | None, size: int = THUMB) -> str | None:
    """A ``data:image/jpeg;base64,…`` URI of the thumbnail (``None`` when unreadable)."""
    data = thumbnail_bytes(path, size) if path is not None else None
    return None if data is None else "data:image/jpeg;base64," + base64.b64encode(data).decode()


def thumbnail(path: Path | None, size: int = THUMB) -> str:
    """An ``<img>`` with the thumbnail embedded (empty when there is no readable image), so
    pages need no network and no side files."""
    uri = thumbnail_uri(path, size)
    return "" if uri is None else f"<img alt='' src='{uri}'>"
