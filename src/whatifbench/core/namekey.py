"""The naming secret: what makes the names, ids and file order of a dataset carry nothing.

A ``shortcut-free`` dataset names every image, item and pair by an HMAC-SHA256 of what it is
(generator, seed, image number, role ...) under a secret that no released file holds: not
``card.json``, not ``items.jsonl``, not any export. Without the secret nothing public inverts a
name (hashing every record number with the generator and the seed, as one could invert the
unkeyed names of earlier versions, finds nothing); the telling names live in the dataset's
private file (``core.private``), which no exporter and no audit reads.

**Where the secret comes from.** ``--secret-file FILE`` (``secret_file=`` in the API): a file
holding at least 32 hex digits, which a team shares to regenerate a release byte for byte
anywhere; else the file ``$WHATIF_SECRET_FILE`` names (CI, a shared machine); else
``$WHATIF_HOME/naming-secret``, 32 bytes drawn from the operating system the first time a
dataset is named and kept (mode 0600) for every later one.

The trade-off: names keyed by anything public (the seed) can be recomputed by anyone, and a
fresh secret per dataset would make two runs of the same command differ. The home secret keeps
``same seed and arguments → byte-identical dataset`` on a machine (and with the same
``--secret-file`` anywhere) while nothing released can decode a name. A dataset's *content*
(pictures, questions, options, answers) never depends on the secret, only its names and the
order its files are written in; the ``paper`` designs use no secret at all (their pinned hashes
are reproducible from seed and arguments alone).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets as random_source
from dataclasses import dataclass, field
from pathlib import Path

from whatifbench.core.home import whatif_home
from whatifbench.errors import WhatifError

ENV = "WHATIF_SECRET_FILE"
"""The environment variable naming a secret file (when ``--secret-file`` is not given)."""
HOME_FILE = "naming-secret"
"""The secret's file under ``$WHATIF_HOME``."""
MIN_HEX = 32
"""Hex digits a secret file must hold at least (128 bits)."""
DIGITS = 16
"""Hex digits of a name (64 bits: two names of 100,000 coincide with probability 10⁻⁹)."""
MAKE = "python -c \"import secrets; print(secrets.token_hex(32))\" > FILE"
"""How to make a secret file (said in messages)."""
HEX = re.compile(r"[0-9a-fA-F]+")


@dataclass(frozen=True)
class NameKey:
    """A naming secret (never printed: its ``repr`` leaves the bytes out)."""

    secret: bytes = field(repr=False)
    """The secret bytes."""
    origin: str
    """Where it came from: ``home`` (``$WHATIF_HOME``) or ``file`` (``--secret-file``)."""

    def name(self, *parts: object) -> str:
        """The name of the thing ``parts`` describe: the first ``DIGITS`` hex digits of the
        HMAC-SHA256 of the parts joined by ``:``."""
        text = ":".join(map(str, parts)).encode("utf-8")
        return hmac.new(self.secret, text, hashlib.sha256).hexdigest()[:DIGITS]

    def fingerprint(self) -> str:
        """Which secret this is, for the private file (says nothing about the secret)."""
        return self.name("whatifbench naming secret fingerprint")


def name_key(secret_file: str | Path | None = None) -> NameKey:
    """The secret of ``secret_file`` (checked), else of ``$WHATIF_SECRET_FILE``, else the home
    secret (made the first time)."""
    secret_file = secret_file or os.environ.get(ENV) or None
    if secret_file is not None:
        return NameKey(_read(Path(secret_file)), "file")
    path = whatif_home() / HOME_FILE
    if not path.exists():
        _create(path)
    return NameKey(_read(path), "home")


def _read(path: Path) -> bytes:
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise WhatifError(f"The secret file {path} does not exist; pass a file holding at "
                          f"least {MIN_HEX} hex digits (make one with: {MAKE}).") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WhatifError(f"The secret file {path} cannot be read as text ({exc}); it must "
                          f"hold at least {MIN_HEX} hex digits (make one with: {MAKE}).") \
            from None
    if not HEX.fullmatch(text) or len(text) < MIN_HEX or len(text) % 2:
        raise WhatifError(f"The secret file {path} must hold an even number of hex digits, at "
                          f"least {MIN_HEX}, and nothing else; it holds {len(text)} characters "
                          f"that are not (make one with: {MAKE}).")
    return bytes.fromhex(text)


def _create(path: Path) -> None:
    """Write 32 random bytes (hex) to ``path`` unless another process got there first."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.{random_source.token_hex(4)}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(random_source.token_hex(32) + "\n")
            try:
                os.link(temp, path)  # atomic: the first process's secret wins
            except FileExistsError:
                pass
        finally:
            temp.unlink(missing_ok=True)
    except OSError as exc:
        raise WhatifError(f"The naming secret cannot be kept in {path} ({exc.strerror or exc}); "
                          f"pass --secret-file FILE (make one with: {MAKE}) or set WHATIF_HOME "
                          "to a writable folder.") from None
