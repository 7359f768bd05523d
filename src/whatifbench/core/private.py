"""A dataset's private file, ``private/names.json``: what only its makers need.

Opaque names (``core.namekey``) hide what each image, item and pair is; the telling names
behind them (``count_000001.png``, ``12-cause.png``, a candidate's pair and side in a MuCR
build) are kept here, by section, so that a maker can still find a picture by its old name and
a review sheet can still show which candidate is which. The file also names the secret the
names were keyed with (its fingerprint, ``NameKey.fingerprint``: it says nothing about the
secret), so that ``--secret-file`` can regenerate the dataset byte for byte.

Nothing released reads it: no exporter (``whatif export``, the Hugging Face, lmms-eval,
VLMEvalKit and inspect tasks), not the audit, not the explorer or the annotation app; the card's
hashes do not cover it. Never publish the ``private`` folder with a dataset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from whatifbench.core.layout import PRIVATE
from whatifbench.errors import WhatifError

NAMES = "names.json"
"""The private file under ``private/``."""
ABOUT = ("Private to the dataset's makers: the telling names behind the opaque ones. Never "
         "publish this folder; no exporter reads it.")


def private_path(root: str | Path) -> Path:
    """``root/private/names.json``."""
    return Path(root) / PRIVATE / NAMES


def write_private(root: Path, sections: dict[str, Any]) -> None:
    """Write ``sections`` (JSON) to the private file under ``root`` (keys sorted: the same
    sections give the same bytes)."""
    path = private_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"about": ABOUT, **sections}
    path.write_text(json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def carried(root: str | Path) -> dict[str, Any]:
    """The sections of a dataset's private file, for a dataset made from it under the same
    names (a review, people's references): ``{}`` when it has none."""
    return {k: v for k, v in read_private(root).items() if k != "about"}


def read_private(root: str | Path, needed: str | None = None) -> dict[str, Any]:
    """The private file's sections (``{}`` when the dataset has none); with ``needed``, a
    ``WhatifError`` when that section is missing."""
    path = private_path(root)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        body = {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WhatifError(f"The private file {path} cannot be read ({exc}); restore it from "
                          "the folder the dataset was written to.") from None
    if not isinstance(body, dict):
        raise WhatifError(f"The private file {path} does not hold a JSON object; restore it "
                          "from the folder the dataset was written to.")
    if needed is not None and not isinstance(body.get(needed), dict):
        raise WhatifError(f"The dataset {Path(root)} has no private '{needed}' records ({path} "
                          "is missing or was not written by this step); use the folder the "
                          "dataset was written to, with its private folder.")
    return body
