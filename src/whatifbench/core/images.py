"""Image files of datasets: one read that checks, measures and hashes; the pixel limit; the
orientation; images that must stay inside their dataset folder.

**Orientation.** A photo whose EXIF orientation turns it (a phone's portrait JPEG stored
landscape) is shown turned by browsers (the annotation app, the explorer) and as stored by PIL
(the ``hf:`` backend, the scene reader): people and models would see different pictures. Every
image a dataset writer stores is therefore ``normalised`` (the orientation applied, the EXIF
block dropped, the original's orientation, size and hash recorded on the card), and loading a
dataset refuses an image that still carries such a tag.

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

import hashlib
import io
import os
import warnings
from pathlib import Path

from PIL import Image

ORIENTATION = 0x0112
"""The EXIF orientation tag."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
EXIF_WINDOW = 1 << 17
"""A JPEG's EXIF segment comes first: it is looked for in this many leading bytes."""
WRITE_AS = {"MPO": "JPEG"}
"""Formats PIL reads but writes as another."""
SAVE_OPTIONS: dict[str, dict[str, object]] = {
    "JPEG": {"quality": 95, "subsampling": 0}, "PNG": {"compress_level": 6},
    "WEBP": {"lossless": True}}
"""How a normalised image is written again, per format."""
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


def inspect_image(path: str | Path, want_hash: bool = False,
                  turned_ok: bool = False) -> tuple[str | None, str | None]:
    """``(why it cannot be used or None, sha256 hex or None)`` from one read of the file; an
    image whose EXIF orientation turns it is refused unless ``turned_ok`` (an import's source
    image, which the dataset writer turns)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
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
                turned = None if turned_ok else orientation(img, data)
                if turned is not None:
                    return _turned_message(turned, img.size), digest
                img.verify()
    except Image.DecompressionBombError as exc:
        return f"is far too large ({exc}); downscale it", digest
    except Exception as exc:  # noqa: BLE001  (PIL raises many types for corrupt data)
        return f"cannot be read as an image ({type(exc).__name__}: {exc})", digest
    return None, digest


def may_have_exif(data: bytes) -> bool:
    """Whether ``data`` may carry EXIF data (a quick look before PIL parses anything): a PNG
    with an ``eXIf`` chunk, a JPEG with an ``Exif`` segment, or another format (asked of PIL)."""
    if data.startswith(PNG_SIGNATURE):
        return b"eXIf" in data
    if data.startswith(b"\xff\xd8"):
        return b"Exif\x00\x00" in data[:EXIF_WINDOW]
    return True


def orientation(img: Image.Image, data: bytes) -> int | None:
    """The EXIF orientation of an opened image when it turns or mirrors the picture (2-8);
    ``None`` for none or 1 (as stored)."""
    if not may_have_exif(data):
        return None
    try:
        value = img.getexif().get(ORIENTATION)
    except Exception:  # noqa: BLE001  (a broken EXIF block: PIL raises many types)
        return None
    return value if isinstance(value, int) and 2 <= value <= 8 else None


def _turned_message(value: int, size: tuple[int, int]) -> str:
    shown = size if value in (2, 3, 4) else (size[1], size[0])
    return (f"carries EXIF orientation {value}: browsers (the annotation app, the explorer) "
            f"show it turned, {shown[0]}×{shown[1]}, while models read the stored "
            f"{size[0]}×{size[1]} pixels; re-create the dataset with this version of whatifbench "
            "(imports and generators apply the orientation and drop the tag)")


def normalised(data: bytes) -> tuple[bytes, dict[str, object] | None]:
    """``data`` with its EXIF orientation applied and the EXIF block dropped, re-encoded in its
    own format (JPEG at quality 95 without chroma subsampling, its colour profile kept), and
    what the original was (orientation, stored size, sha256); ``(data, None)`` when the image
    is shown as stored (or is no image PIL reads: loading the dataset says so). Deterministic:
    the same bytes give the same result."""
    if not may_have_exif(data):
        return data, None
    from PIL import ImageOps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            img = Image.open(io.BytesIO(data))
        except Exception:  # noqa: BLE001  (not an image PIL reads: loading says so)
            return data, None
        with img:
            value = orientation(img, data)
            if value is None:
                return data, None
            fmt = WRITE_AS.get(img.format or "", img.format or "PNG")
            size = img.size
            icc = img.info.get("icc_profile")
            turned = ImageOps.exif_transpose(img)
            options: dict[str, object] = dict(SAVE_OPTIONS.get(fmt, {}))
            if icc:
                options["icc_profile"] = icc
            buffer = io.BytesIO()
            turned.save(buffer, format=fmt, **options)
    return buffer.getvalue(), {"exif_orientation": value, "stored_size": list(size),
                               "sha256": hashlib.sha256(data).hexdigest()}


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
