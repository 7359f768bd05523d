"""``audit_dataset``: what a score on a dataset can mean, computed once per dataset and cached.

The result is the JSON object ``whatif audit --json`` prints: ``dataset`` (what was audited),
``blind`` (the combined blind accuracy beside chance, with each baseline's own figure),
``slices`` (per key and value), ``pairs`` (pair rules and same-letter shares) and ``probes``
(the metadata probes: file names, ids, groups, member order, letters), every figure beside
chance flagged by one Holm-corrected rule (``flags``). The cached copy also holds
``per_item`` (ids, blind right/wrong, chance), so that other slices (``--by``) and the reports'
tables need no second audit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from whatifbench.analysis.audit.baselines import BASELINES, blind_baselines
from whatifbench.analysis.audit.chance import chance_per_item
from whatifbench.analysis.audit.cross import HARNESS, other_items
from whatifbench.analysis.audit.decode import OPAQUE, decode, facts_of
from whatifbench.analysis.audit.exports import Shown
from whatifbench.analysis.audit.features import build_features
from whatifbench.analysis.audit.flags import apply_flags
from whatifbench.analysis.audit.joint import joint_entry, joint_guess
from whatifbench.analysis.audit.metadata import meta_view
from whatifbench.analysis.audit.pairs import pair_rules
from whatifbench.analysis.audit.probe_results import metadata_probes, probe_entry
from whatifbench.analysis.audit.slices import check_keys, slice_keys, slices, summary
from whatifbench.analysis.audit.store import AUDIT_VERSION, load_audit, save_audit
from whatifbench.analysis.audit.text import closed_choices
from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.item import Item
from whatifbench.errors import WhatifError
from whatifbench.metrics.stats import percent, wilson_ci

DECODE_BUDGET = 1_000_000
"""Guesses hashed when decoding names (about a second; the card's generator and seed first)."""
MIN_PAIRS = 3
"""Fewer pairs (or unpaired items) than this cannot be cross-validated."""
METHOD = ("{folds}-fold cross-validation grouped by pair (an original and its counterfactual "
          "never straddle folds), balanced by group and answer; the combination takes the "
          "baseline that scored best inside the training folds (nested cross-validation), a "
          "group's own best where it is clearly better there; the test fold never chooses")
PUBLIC = ("dataset", "blind", "slices", "pairs", "probes")
"""The keys ``--json`` prints (the cache holds ``per_item`` too)."""


def audited(item: Item) -> bool:
    """Items a blind guess can be scored on: options, yes/no, or a number (exact match). Free
    text is judged by similarity, so guessing it by exact match says nothing; it is left out."""
    return bool(closed_choices(item)) or item.kind == "number"


def audit_items(items: Sequence[Item], card: Card | None = None,
                root: Path | None = None) -> dict[str, Any]:
    """Blind baselines, slices (default keys), pair rules and metadata probes of ``items`` (no
    ``dataset`` part), flagged; raises ``WhatifError`` when too few items can be audited.
    ``card``: the dataset's card (its suite says what exports show; its public facts decode
    names, ``decode``); ``root``: its folder (the file structure probe reads the images)."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise WhatifError("The audit needs scikit-learn, a dependency of whatifbench that is "
                          "missing here: pip install scikit-learn.") \
            from None
    chosen = [item for item in items if audited(item)]
    keys = [item.unit for item in chosen]
    if len(set(keys)) < MIN_PAIRS:
        raise WhatifError(
            f"The dataset has {len(set(keys))} pair(s) of items a blind guess can be scored on "
            f"(options, yes/no or numbers); the audit cross-validates over pairs and needs at "
            f"least {MIN_PAIRS}. Audit a larger dataset.")
    groups = [i.group or "" for i in chosen]
    answers = [(i.target_index if i.target in i.choices else -1, str(i.target)) for i in chosen]
    result = blind_baselines(build_features(chosen), keys, groups, answers=answers)
    right = result.combined
    overall = summary(chosen, right)
    folds = int(result.folds.max()) + 1
    baselines = {}
    for name in BASELINES:
        hits = int(result.correct[name].sum())
        baselines[name] = {"accuracy": percent(hits, len(chosen)),
                           "interval": list(wilson_ci(hits, len(chosen)))}
    shown = Shown() if card is None else Shown(card.suite, card.name)
    decoded = decoded_names(chosen, card)
    probes, letters = metadata_probes(chosen, shown, decoded, root)
    view = meta_view(chosen, decoded)
    joint = joint_guess(view)
    probes.append(joint_entry(view, joint))
    probes.append({**probe_entry(view, other_items(view, items)), "harness": HARNESS})
    position = {item.id: k for k, item in enumerate(view.items)}
    return apply_flags({
        "blind": {"accuracy": overall["blind"], "chance": overall["chance"],
                  "n": overall["n"], "interval": overall["interval"],
                  "hits": overall["hits"], "p": overall["p"], "null": overall["null"],
                  "flagged": False, "method": METHOD.format(folds=folds),
                  "folds": folds, "baselines": baselines,
                  "chosen": result.chosen},
        "slices": slices(chosen, right, slice_keys(chosen)),
        "pairs": {**pair_rules(items), "letters": letters},
        "probes": probes,
        "per_item": {"ids": [i.id for i in chosen], "blind": [int(x) for x in right],
                     "chance": [round(c, 6) for c in chance_per_item(chosen)],
                     "joint": [_joint_outcome(joint.per_item, position.get(i.id))
                               for i in chosen]},
    })


def _joint_outcome(per_item: dict[int, bool], position: int | None) -> int:
    """1/0: the joint guess of the item's pair is right/wrong on it; −1: not in a pair."""
    found = per_item.get(position) if position is not None else None
    return -1 if found is None else int(found)


def decoded_names(items: Sequence[Item], card: Card | None) -> dict[str, str]:
    """The items' opaque image names, ids and pair ids that public facts decode (``decode``:
    the card's names and seed, the words the items show, record numbers up to the item count),
    when most of them look opaque; else nothing is tried."""
    names = {PurePosixPath(p).stem for i in items for p in i.images}
    names |= {i.id for i in items} | {i.pair_id for i in items if i.pair_id is not None}
    if sum(bool(OPAQUE.fullmatch(n)) for n in names) * 2 < len(names):
        return {}
    words = {w for i in items for w in (i.group, i.role) if w}
    words |= {str(v) for i in items for v in i.meta.values()
              if isinstance(v, (str, int)) and len(str(v)) <= 40}
    facts = facts_of(card.to_json() if card is not None else None, words, len(items) + 10,
                     tokens=[i.pair_id for i in items if i.pair_id is not None])
    return decode(names, facts, budget=DECODE_BUDGET)


def _dataset_part(ds: Dataset) -> dict[str, Any]:
    """What was audited: the dataset's identity and how many items were left out."""
    left_out = sum(1 for item in ds.items if not audited(item))
    return {"name": ds.card.name, "suite": ds.card.suite, "path": str(ds.root),
            "generator": ds.card.generator, "items_sha256": ds.items_sha256,
            "items": len(ds.items), "audited": len(ds.items) - left_out,
            "left_out_free_text": left_out, "audit_version": AUDIT_VERSION}


def audit_dataset(path: str | Path, by: Sequence[str] = (), refresh: bool = False,
                  ) -> dict[str, Any]:
    """The audit of the dataset at ``path`` (the ``--json`` object), from the cache when this
    audit version has seen the same ``items.jsonl``; ``by`` adds slices by other keys (which
    join the family the flags are Holm-corrected over)."""
    ds = load_dataset(path, check_images=False)
    check_keys(ds.items, by, str(ds.root))
    cached = None if refresh else load_audit(ds.items_sha256)
    if cached is None or not _usable(cached):
        cached = {"dataset": _dataset_part(ds), **audit_items(ds.items, ds.card, ds.root)}
        save_audit(ds.items_sha256, cached)
    result = {key: cached[key] for key in PUBLIC}
    result["dataset"] = {**cached["dataset"], "path": str(ds.root), "name": ds.card.name}
    extra = [k for k in by if k not in {s["key"] for s in result["slices"]}]
    if extra:
        per_item = cached["per_item"]
        index = {item.id: item for item in ds.items}
        chosen = [index[i] for i in per_item["ids"]]
        right = np.array(per_item["blind"], dtype=bool)
        result["slices"] = result["slices"] + slices(chosen, right, extra)
        apply_flags(result)
    return result


def _usable(cached: dict[str, Any]) -> bool:
    """A cached audit has every part this version writes."""
    per_item = cached.get("per_item")
    return all(k in cached for k in PUBLIC) and isinstance(per_item, dict) \
        and all(isinstance(per_item.get(k), list) for k in ("ids", "blind"))


def flagged_slices(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The flagged slices of an audit result (text baselines)."""
    return [s for s in result["slices"] if s.get("flagged")]


def flagged_probes(result: dict[str, Any], whole_dataset: bool = False) -> list[str]:
    """The flagged metadata probes and probe slices, as ``probe`` or ``probe: key=value``;
    probes of what only a whole-dataset reader sees (``cross.HARNESS``) only with
    ``whole_dataset``."""
    out = []
    for probe in result.get("probes") or []:
        if probe.get("harness") == HARNESS and not whole_dataset:
            continue
        if probe.get("flagged"):
            out.append(probe["name"])
        out += [f"{probe['name']}: {s['key']}={s['value']}" for s in probe.get("slices") or []
                if s.get("flagged")]
    return out


def flag_labels(result: dict[str, Any]) -> list[str]:
    """Everything flagged in an audit result: ``all``, ``key=value`` slices, then probes."""
    return (["all"] * bool(result["blind"].get("flagged"))
            + [f"{s['key']}={s['value']}" for s in flagged_slices(result)]
            + flagged_probes(result))
