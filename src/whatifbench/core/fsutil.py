"""Hashing, canonical JSON and atomic single-file writes (folders: ``core.outputs``)."""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whatifbench.core.jsonfile import escape_separators
from whatifbench.core.readfile import open_regular
from whatifbench.errors import WhatifError


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a regular file's bytes (``open_regular``: as large as it was when opened)."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        left = os.fstat(handle.fileno()).st_size
        while left > 0:
            chunk = handle.read(min(left, 1 << 20))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def dumps(obj: Any) -> str:
    """Canonical JSON used for every file we write: UTF-8 text, sorted nothing, no NaN, and
    U+2028, U+2029, U+0085 escaped, so a JSON Lines record stays one line for every reader
    (``core.jsonfile.escape_separators``)."""
    return escape_separators(_ENCODER.encode(obj))


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
"""``json.dumps(obj, ensure_ascii=False, allow_nan=False)`` without building an encoder per call."""


def finite_json(value: Any) -> Any:
    """``value`` (JSON-like) with every non-finite float written as a string (``"inf"``,
    ``"-inf"``, ``"nan"``) and tuples as lists, so ``dumps`` accepts it: for records of
    untrusted computations (program traces), where such numbers are data, not bugs."""
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes, replace: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename
    (``replace`` false: ``FileExistsError`` when ``path`` exists, checked in the rename)."""
    path = Path(path)
    ensure_dir(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise WhatifError(
            f"Cannot write {path}: {exc.strerror or exc}. Choose an output location you can "
            "write to."
        ) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp makes 0600; give the usual file mode
        if replace:
            os.replace(tmp, path)
        else:
            from whatifbench.core.rename import rename_noreplace  # ctypes: only when needed

            rename_noreplace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and disk_full(exc):
            raise WhatifError(f"The disk holding {path.parent} is full ({exc.strerror}); {path} "
                              "was not written. Free some space or choose another location."
                              ) from None
        raise


def write_cache(path: Path, data: bytes) -> bool:
    """``write_bytes_atomic`` for a cache file; False when it was not kept. Caches are
    best-effort: a read-only or full ``$WHATIF_HOME``, or a folder of the path blocked by a file,
    leaves the value computed but not kept (only slower next time), never an error."""
    try:
        write_bytes_atomic(path, data)
    except (OSError, WhatifError):
        return False
    return True


def cached_file(path: Path, make: Callable[[], bytes]) -> Path:
    """A file holding ``make()``'s bytes, for a cache whose entries are handed on as paths
    (composites, crops): ``path`` when it is there or can be written (``write_cache``), else the
    same name in a folder of this process's own under the temporary folder, removed at exit."""
    path = Path(path)
    if path.is_file():
        return path
    data = make()
    if write_cache(path, data):
        return path
    spare = scratch_dir() / path.name
    if not spare.is_file():
        write_bytes_atomic(spare, data)
    return spare


def can_write(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (made if missing): tried, then removed."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe.", dir=folder)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


@functools.cache
def scratch_dir() -> Path:
    """A private temporary folder for what a cache could not keep (removed at exit)."""
    import atexit
    import shutil

    try:
        where = Path(tempfile.mkdtemp(prefix="whatif-cache-"))
    except OSError as exc:
        raise WhatifError(
            f"Cannot create a temporary folder in {tempfile.gettempdir()} ({exc.strerror or exc}) "
            "for what $WHATIF_HOME could not keep. Make $WHATIF_HOME or TMPDIR writable."
        ) from None
    atexit.register(shutil.rmtree, where, True)
    return where


def disk_full(exc: OSError) -> bool:
    """True for "no space left" and "quota exceeded" errors."""
    return exc.errno in (errno.ENOSPC, errno.EDQUOT)


def umask() -> int:
    """The process's file-creation mask."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def ensure_dir(path: Path) -> None:
    """Create a folder (and parents) or fail with a sentence saying why."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WhatifError(
            f"Cannot create the folder {path}: {exc.strerror or exc}. "
            "Choose an output location you can write to."
        ) from None
