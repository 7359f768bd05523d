"""The metadata probes as the audit reports them: per probe its figures beside chance and its
slices (the same default keys as the text baselines), each a test of ``flags``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from whatifbench.analysis.audit.exports import Shown, shown_views
from whatifbench.analysis.audit.fields import field_probes
from whatifbench.analysis.audit.files import file_probe
from whatifbench.analysis.audit.flags import scored_entry
from whatifbench.analysis.audit.learners import probe_folds
from whatifbench.analysis.audit.letters import constant_letter, letter_relation, same_letter
from whatifbench.analysis.audit.metadata import MetaView, meta_view
from whatifbench.analysis.audit.probes import ProbeOutcome, item_probes
from whatifbench.analysis.audit.slices import natural_order, slice_keys, slice_value
from whatifbench.core.item import Item

PROBES = ("file names", "ids", "group decode", "member order", "letter relation",
          "constant letter", "fields", "export hf/lmms-eval", "export vlmevalkit",
          "export inspect", "file structure", "joint guess", "other items")
"""Every metadata probe, in the order reported (``file structure`` only when the dataset's
folder is known)."""


def _entry(outcome: ProbeOutcome, members: Sequence[int]) -> dict[str, Any]:
    """The test of an outcome's scored entries ``members`` (positions in ``scored``)."""
    chosen = list(members)
    entry = scored_entry(outcome.right[chosen], outcome.chance[chosen].tolist(),
                         outcome.control[chosen])
    return {**entry, "flagged": False}


def probe_entry(view: MetaView, outcome: ProbeOutcome) -> dict[str, Any]:
    """One probe's figures and slices (``flagged`` is set over the whole audit)."""
    items = [view.items[i] for i in outcome.scored]
    keys = [k for k in slice_keys(items) if not (outcome.unit == "pair" and k == "role")]
    slices = []
    for key in keys:
        groups: dict[str, list[int]] = {}
        for position, item in enumerate(items):
            value = slice_value(item, key)
            if value is not None:
                groups.setdefault(value, []).append(position)
        for value in sorted(groups, key=natural_order):
            slices.append({"key": key, "value": value, **_entry(outcome, groups[value])})
    return {"name": outcome.name, "reads": outcome.reads, "unit": outcome.unit,
            **_entry(outcome, range(len(outcome.scored))), "slices": slices}


def metadata_probes(items: Sequence[Item], shown: Shown | None = None,
                    decoded: Mapping[str, str] | None = None, root: Path | None = None
                    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every metadata probe of ``items`` (those with nothing to read: ``n`` 0) and the
    same-letter shares of their pairs. ``shown``: the suite and dataset (what exports show);
    ``decoded``: opaque names decoded with public facts (``decode``); ``root``: the dataset's
    folder (the file structure probe reads its images)."""
    view = meta_view(items, decoded)
    folds = probe_folds(view)
    outcomes = [*item_probes(view), letter_relation(view), constant_letter(view),
                *field_probes(view, shown_views(view.items, shown or Shown()), folds)]
    if root is not None:
        outcomes.append(file_probe(view, root, folds))
    return [probe_entry(view, o) for o in outcomes], same_letter(view)
