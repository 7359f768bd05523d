"""Embedded thumbnails (JPEG data URIs) for reports and review sheets, cached under
``$WHATIF_HOME/thumbs`` by file path, size and modification time so a repeated report reads
small files instead of decoding every image again."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from stat import S_ISREG

from PIL import Image

from whatifbench.core.fsutil import write_cache
from whatifbench.core.home import whatif_home
from whatifbench.core.images import open_image, too_large
from whatifbench.core.readfile import read_bytes

THUMB = 160
"""Default longest side of a thumbnail, in pixels."""
VERSION = "1"
"""Bumped when the encoding changes (invalidates cached thumbnails)."""


def _key(path: Path, size: int) -> str | None:
    """The cache key of a regular file's thumbnail (``None``: not a readable regular file)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    if not S_ISREG(stat.st_mode):
        return None
    text = f"{VERSION}|{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{size}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _cached(path: Path, size: int) -> tuple[Path | None, bytes | None]:
    """Where the thumbnail is cached (``None``: not a readable file) and its bytes if there."""
    key = _key(path, size)
    if key is None:
        return None, None
    cached = whatif_home() / "thumbs" / key[:2] / f"{key}.jpg"
    try:
        return cached, read_bytes(cached)
    except OSError:
        return cached, None


def _encode(path: Path, size: int, cached: Path) -> bytes | None:
    """Decode, shrink and JPEG-encode the image, then cache it."""
    try:
        buf = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with open_image(path) as src:
                if too_large(*src.size):  # the dataset pixel limit (core.images): not decoded
                    return None
                src.draft("RGB", (size, size))  # JPEG: decode at a reduced scale
                img = src if src.mode == "RGB" else src.convert("RGB")
                img.thumbnail((size, size), Image.Resampling.BILINEAR, reducing_gap=2.0)
                img.save(buf, format="JPEG", quality=80)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    data = buf.getvalue()
    write_cache(cached, data)
    return data


def thumbnail_bytes(path: Path, size: int = THUMB) -> bytes | None:
    """JPEG bytes of at most ``size`` pixels per side (``None`` when unreadable)."""
    cached, data = _cached(path, size)
    if data is not None or cached is None:
        return data
    return _encode(path, size, cached)


def _uri(data: bytes | None) -> str | None:
    return None if data is None else "data:image/jpeg;base64," + base64.b64encode(data).decode()


def thumbnail_uris(paths: Sequence[Path], size: int = THUMB) -> list[str | None]:
    """``thumbnail_uri`` of many images: cached ones read in turn (threads would only contend
    for the GIL), the others decoded in a few threads (PIL releases the GIL while decoding)."""
    found = [_cached(path, size) for path in paths]
    missing = {k: cached for k, (cached, data) in enumerate(found)
               if cached is not None and data is None}
    out = [_uri(data) for _, data in found]
    if missing:
        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            encoded = pool.map(lambda k: _encode(paths[k], size, missing[k]), missing)
            for k, data in zip(missing, encoded, strict=True):
                out[k] = _uri(data)
    return out


def thumbnail_uri(path: Path | None, size: int = THUMB) -> str | None:
    """A ``data:image/jpeg;base64,…`` URI of the thumbnail (``None`` when unreadable)."""
    return _uri(thumbnail_bytes(path, size) if path is not None else None)


def thumbnail(path: Path | None, size: int = THUMB) -> str:
    """An ``<img>`` with the thumbnail embedded (empty when there is no readable image), so
    pages need no network and no side files."""
    uri = thumbnail_uri(path, size)
    return "" if uri is None else f"<img alt='' src='{uri}'>"
