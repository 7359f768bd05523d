"""The text columns each export writes per item, in one place: the exporters write them and the
audit reads them (``analysis.audit.exports``) as a harness built on the export would see them,
so the two cannot drift apart. Image bytes are left out (the audit's file probes read files).
``item`` is the item as exported (``core.public``: its public view unless ``--with-answers``).
"""

from __future__ import annotations

from typing import Any

from whatifbench.answers.letters import letter_for
from whatifbench.core.fsutil import dumps
from whatifbench.core.item import Item
from whatifbench.integrations.common import image_labels

ANSWER_COLUMNS = {"hf": ("target",), "vlmevalkit": ("answer",), "inspect": ("target",)}
"""Per export the columns that hold the answer itself (the scorer's key, never shown)."""
VLMEVALKIT_OURS = ("item_id", "pair_id", "role")
"""Our columns of the VLMEvalKit TSV (kept in its prediction files)."""


def hf_columns(item: Item, prompt: str) -> dict[str, Any]:
    """A Hugging Face (and lmms-eval) row without its image bytes."""
    return {"id": item.id, "image_paths": list(item.images), "question": item.question,
            "kind": item.kind, "choices": list(item.choices), "target": item.target,
            "pair_id": item.pair_id, "role": item.role, "group": item.group,
            "meta": dumps(item.meta), "provenance": dumps(item.provenance), "prompt": prompt}


def vlmevalkit_columns(item: Item, index: int, letters: list[str]) -> dict[str, str]:
    """A VLMEvalKit TSV row without its ``image`` column (``letters``: the option columns)."""
    labels = image_labels(item)
    hint = f"The images are shown in this order: {', '.join(labels)}." if labels else ""
    options = [*item.choices, *[""] * (len(letters) - len(item.choices))]
    return {"index": str(index), "question": item.question, **dict(zip(letters, options,
                                                                        strict=True)),
            "answer": letter_for(item.target_index), "category": item.group or "",
            "hint": hint, "item_id": item.id, "pair_id": item.pair_id or "",
            "role": item.role or ""}


def inspect_fields(item: Item, suite: str, prompt: str, dataset: str, items_sha256: str,
                   with_answers: bool = False) -> dict[str, Any]:
    """An inspect sample's id, target and metadata (what a solver's ``TaskState`` holds
    besides the conversation): no answer unless ``with_answers``."""
    metadata: dict[str, Any] = {"suite": suite, "prompt": prompt, "dataset": dataset,
                                "items_sha256": items_sha256}
    if with_answers:
        metadata["item"] = item.to_json()
    return {"id": item.id, "target": item.target if with_answers else "",
            "metadata": metadata}
