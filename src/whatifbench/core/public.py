"""An item's public view: what a harness may show a model and what an export carries.

``items.jsonl`` is the whole record, answers included (the target, the program's value, the
dealt answer, the worlds behind every picture): whatifbench scores with it, nobody is shown it.
A harness that builds its prompt from other tools' columns, an agent that reads a sample's
metadata or a solver that looks at its task state sees what the export wrote, so exports write
the public view: the item's fields (id, images, question, kind, choices, target, pair, role,
group), its ``meta`` without the keys its suite declares private (``Suite.private_meta``:
answer-bearing or internal, e.g. MuCR's ``candidates`` and ``record``, CELLO's ``answer_index``
and ``option_kinds``), and of its ``provenance`` only ``PUBLIC_PROVENANCE`` (what the question
text already says). ``whatif export --with-answers`` writes the whole record instead (a round
trip to another whatifbench, byte for byte).

The audit reads the public view as a model could (``analysis.audit.fields``): any field of it
that predicts the answer above chance is flagged.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from whatifbench.core.item import Item

PUBLIC_PROVENANCE = ("generator", "version", "design", "template", "premise", "premise_kind")
"""The provenance keys an export carries by default: the generator, and what the question text
already shows. Every other key (the answer, the dealt answer, seeds, programs, explanations,
the worlds behind the pictures, the intervened scene's file) stays in ``items.jsonl``."""
ANSWER_FIELDS = ("target",)
"""Fields of the public view that are the answer itself (the scorer's key, never shown)."""


def public_meta(meta: Mapping[str, Any], private: Collection[str]) -> dict[str, Any]:
    """``meta`` without the ``private`` keys."""
    return {k: v for k, v in meta.items() if k not in private}


def public_provenance(provenance: Mapping[str, Any]) -> dict[str, Any]:
    """``provenance`` with only ``PUBLIC_PROVENANCE``."""
    return {k: provenance[k] for k in PUBLIC_PROVENANCE if k in provenance}


def public_item(item: Item, private_meta: Collection[str] = ()) -> Item:
    """The item as exports write it by default (see the module docstring)."""
    return replace(item, meta=public_meta(item.meta, private_meta),
                   provenance=public_provenance(item.provenance))


def shown(item: Item, with_answers: bool, private_meta: Collection[str] = ()) -> Item:
    """``item`` itself with ``with_answers``, else its public view."""
    return item if with_answers else public_item(item, private_meta)
