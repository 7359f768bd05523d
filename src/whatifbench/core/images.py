"""Image files of datasets: one read that checks, measures and hashes; the pixel limit; images
that must stay inside their dataset folder.

**Pixel limit.** Datasets hold images of at most ``MAX_PIXELS`` = 40 megapixels (e.g. 8K UHD,
7680×4320 = 33.2 MP, or a 6000×6000 scan). VLMs see a few hundred pixels a side, so more pixels
only cost memory: a decoded RGB image takes 3 bytes per pixel before any model copy (a
12000×12000 PNG of 420 KB decodes to 432 MB, and the scene reader needed 11 GB for it). PIL's own
guard only warns up to 89 MP. Images above the limit are refused at import and at load with a
message saying how to shrink them; ``WHATIF_MAX_PIXELS`` raises or lowers the limit for users
who know their machine. Reports and review sheets embed thumbnails downscaled once
(``report.images``, cached per file), never the original.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import warnings
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

from whatifbench.core.readfile import read_bytes
from whatifbench.errors import WhatifError

MAX_PIXELS = 40_000_000
"""Default largest width × height accepted in a dataset (see the module docstring)."""


def max_pixels() -> int:
    """The pixel limit in force: ``$WHATIF_MAX_PIXELS`` when set to a positive number."""
    value = os.environ.get("WHATIF_MAX_PIXELS", "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_PIXELS


def too_large(width: int, height: int) -> str | None:
    """Why an image of this size is refused (``None`` when it is within the limit)."""
    limit = max_pixels()
    if width * height <= limit:
        return None
    return (f"is {width}×{height} pixels ({width * height / 1e6:.1f} megapixels), above the "
            f"limit of {limit / 1e6:g} megapixels; downscale it (e.g. to at most 6000 pixels a "
            "side), or set WHATIF_MAX_PIXELS if your machine and models need more")


def inspect_image(path: str | Path, want_hash: bool = False) -> tuple[str | None, str | None]:
    """``(why it cannot be used or None, sha256 hex or None)`` from one read of the file."""
    try:
        data = read_bytes(path)
    except (FileNotFoundError, NotADirectoryError):
        return "is missing", None
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})", None
    digest = hashlib.sha256(data).hexdigest() if want_hash else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                big = too_large(*img.size)
                if big:
                    return big, digest
                img.verify()
    except Image.DecompressionBombError as exc:
        return f"is far too large ({exc}); downscale it", digest
    except Exception as exc:  # noqa: BLE001  (PIL raises many types for corrupt data)
        return f"cannot be read as an image ({type(exc).__name__}: {exc})", digest
    return None, digest


class UnreadableImage(OSError, WhatifError):
    """An image file that cannot be read or decoded (any of the many exceptions PIL raises for
    damaged data: ``OSError``, ``SyntaxError`` "broken PNG file", ``ValueError``, ``struct.error``,
    ``DecompressionBombError`` ...), named with its path: an ``OSError`` for the readers that
    skip such images (thumbnails), a ``WhatifError`` (one sentence) where nothing catches it."""

    def __init__(self, path: str | Path, exc: BaseException) -> None:
        why = f"{type(exc).__name__}: {exc}"
        super().__init__(f"The image {path} cannot be read ({why}): the file is damaged, or "
                         "was changed after the dataset was written. Restore it (or re-create "
                         "the dataset) and run the command again.")
        self.strerror = f"cannot be decoded ({why})"
        self.filename = str(path)

    def __str__(self) -> str:
        return str(self.args[0])


@contextlib.contextmanager
def open_image(path: str | Path) -> Iterator[Image.Image]:
    """``PIL.Image.open`` of an image file for the block, read first as a regular file bounded
    by its size (``core.fsutil.read_bytes``: a FIFO or a device node raises ``NotRegularFile``
    instead of waiting or reading forever); any failure to read or decode it in the block (keep
    the block to image work) raises ``UnreadableImage``."""
    try:
        with Image.open(io.BytesIO(read_bytes(path))) as img:
            yield img
    except (WhatifError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001  (PIL raises many types for damaged data)
        raise UnreadableImage(path, exc) from None


class Inside:
    """Answers "where does ``root/rel`` really lead, if outside ``root``?" (e.g. through a
    symbolic link, of the file or of a folder on the way) with one ``lstat`` per file: the real
    path of each folder is looked up once."""

    def __init__(self, root: Path) -> None:
        self.base = os.path.realpath(root)
        self._dirs: dict[str, str] = {}

    def outside(self, rel: str) -> str | None:
        """The real path of ``root/rel`` when it is outside ``root``, else ``None``."""
        folder, name = os.path.split(rel)
        real_dir = self._dirs.get(folder)
        if real_dir is None:
            real_dir = self._dirs[folder] = os.path.realpath(os.path.join(self.base, folder))
        path = os.path.join(real_dir, name)
        if os.path.islink(path):
            path = os.path.realpath(path)
        return None if path.startswith(self.base + os.sep) else path
