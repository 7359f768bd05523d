"""A fingerprint of a checkpoint folder for cache keys, without reading every weight byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

FULL_HASH_LIMIT = 64 << 20
"""Files up to this size (configs, tokenizers, templates, small weights) are hashed whole."""
BLOCK = 64 << 10
HEAD = 1 << 20
SAMPLES = 32


def folder_fingerprint(folder: Path) -> str:
    """sha256 over every file of ``folder`` (recursively, sorted by relative path).

    Small files are hashed whole. Large files (weights) contribute their size, their first MiB
    (the safetensors header: tensor names, dtypes, shapes) and ``SAMPLES`` blocks spread evenly
    over the file, so a fine-tuned or replaced checkpoint changes the fingerprint while hashing
    a multi-gigabyte folder takes milliseconds.
    """
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue  # editor files, hub download metadata
        size = path.stat().st_size
        digest.update(f"{rel}\0{size}\0".encode())
        with open(path, "rb") as handle:
            if size <= FULL_HASH_LIMIT:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
                continue
            digest.update(handle.read(HEAD))
            for k in range(SAMPLES):
                handle.seek(HEAD + (size - HEAD - BLOCK) * k // (SAMPLES - 1))
                digest.update(handle.read(BLOCK))
    return digest.hexdigest()
