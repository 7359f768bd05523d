"""Atomic writes: output appears complete or not at all, and inputs are never touched."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whatifbench.errors import WhatifError


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def dumps(obj: Any) -> str:
    """Canonical JSON used for every file we write: UTF-8 text, sorted nothing, no NaN."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
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
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual file mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
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


@contextlib.contextmanager
def staged_dir(out: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary sibling folder that replaces ``out`` only when the block succeeds.

    ``out`` must not exist (or be an empty folder) unless ``overwrite`` is true. On any error
    the staging folder is removed and ``out`` is left as it was.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise WhatifError(f"The output path {out} exists and is not a folder; choose another path.")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise WhatifError(
            f"The output folder {out} already exists and is not empty; choose a new folder "
            "or pass --overwrite to replace it."
        )
    ensure_dir(out.parent)
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
        os.chmod(stage, 0o777 & ~_umask())  # mkdtemp makes 0700
    except OSError as exc:
        raise WhatifError(
            f"Cannot write into {out.parent}: {exc.strerror or exc}. "
            "Choose an output location you can write to."
        ) from None
    try:
        yield stage
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
            os.replace(stage, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
