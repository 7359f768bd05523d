"""What a harness can show besides the question, per item, as the fields probes read it: the
item's public view (``core.public``) and each export's columns (``integrations.views``, the
functions the exporters write with), the answer columns left out.

The ``prompt`` column of the Hugging Face and lmms-eval rows and the inspect sample's prompt are
the question and its options as whatifbench poses them: the text baselines read those; here
they are left empty (an option named in them would be named for every option alike)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from whatifbench.answers.letters import letter_for
from whatifbench.core.item import Item
from whatifbench.core.public import public_item
from whatifbench.integrations.views import (
    ANSWER_COLUMNS,
    hf_columns,
    inspect_fields,
    vlmevalkit_columns,
)


@dataclass(frozen=True)
class Shown:
    """Where a dataset's items would be shown (``None``: unknown, every meta key is read)."""

    suite: str | None = None
    """The suite (its ``private_meta`` stays out of the public view)."""
    name: str = ""
    """The dataset's name (the inspect samples carry it)."""
    items_sha256: str = ""
    """Its ``items.jsonl`` hash (likewise)."""


def _private(shown: Shown) -> tuple[str, ...]:
    if shown.suite is None:
        return ()
    from whatifbench.core.suite import suite_for

    return suite_for(shown.suite).private_meta


def _hf(item: Item) -> dict[str, Any]:
    row = hf_columns(item, "")
    for column in ("meta", "provenance"):
        row[column] = json.loads(row[column])
    return {k: v for k, v in row.items() if k not in ANSWER_COLUMNS["hf"]}


def shown_views(items: Sequence[Item], shown: Shown
                ) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Per fields probe: what it reads (a few words) and, per item, the fields shown."""
    public = [public_item(item, _private(shown)) for item in items]
    width = max((len(i.choices) for i in public if i.kind == "choice"), default=1)
    letters = [letter_for(k) for k in range(width)]
    choice = [i for i in public if i.kind == "choice"]
    index = {item.id: k for k, item in enumerate(choice)}
    vlm = [{k: v for k, v in vlmevalkit_columns(i, index[i.id], letters).items()
            if k not in ANSWER_COLUMNS["vlmevalkit"]} if i.id in index else {} for i in public]
    inspect = [{k: v for k, v in inspect_fields(i, shown.suite or "", "", shown.name,
                                                shown.items_sha256).items()
                if k not in ANSWER_COLUMNS["inspect"]} for i in public]
    return {
        "fields": ("items' metadata and provenance as exports write them (core.public)",
                   [{"meta": i.meta, "provenance": i.provenance} for i in public]),
        "export hf/lmms-eval": ("every column of a Hugging Face / lmms-eval row but the target",
                               [_hf(i) for i in public]),
        "export vlmevalkit": ("every column of the VLMEvalKit TSV but the answer and image",
                              vlm),
        "export inspect": ("an inspect sample's id, target and metadata (a solver's state)",
                           inspect),
    }
