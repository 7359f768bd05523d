"""Where audit results are kept: one JSON file per dataset under ``$WHATIF_HOME/audit/``, keyed by
the sha256 of the dataset's ``items.jsonl`` (the audit reads only the items: questions, options,
answers, pairs, ids, image file names and metadata; the file structure probe also the images
the card's hashes cover) and the audit's version (2: the metadata probes and Holm-corrected
flags; 3 was written by two branches of issue 41 apart, one with the joint guess and other
items probes and ``per_item.joint``, the other with the fields, export and file structure
probes and names decoded with public facts; 4: both, so that neither kind of version-3 file is
read for the other). ``whatif audit`` writes it; reports, which only read, show its blind
accuracy as a reference row when it is there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from whatifbench.core.fsutil import dumps, write_cache
from whatifbench.core.readfile import read_text
from whatifbench.runner.store import whatif_home

AUDIT_VERSION = "4"
"""Changes whenever what the audit computes changes, so older cached results are not read."""


def audit_path(items_sha256: str) -> Path:
    """The cache file of the audit of a dataset whose ``items.jsonl`` has this sha256."""
    return whatif_home() / "audit" / f"{items_sha256}.v{AUDIT_VERSION}.json"


def load_audit(items_sha256: str) -> dict[str, Any] | None:
    """The cached audit (the object ``whatif audit --json`` prints), or ``None`` when the dataset
    has not been audited by this version (or the file does not read as one)."""
    try:
        data = json.loads(read_text(audit_path(items_sha256)))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("blind"), dict) else None


def save_audit(items_sha256: str, result: dict[str, Any]) -> bool:
    """Cache an audit result (atomically); False when the home could not keep it (read-only,
    full, blocked: best-effort, ``core.fsutil.write_cache``)."""
    return write_cache(audit_path(items_sha256), dumps(result).encode("utf-8"))
