"""Turn validated MuCR records into the four items of each pair (C2E, E2C, Cue, Exp).

Answer positions are computed, not written: for each choice metric the correct option's
position is drawn from a balanced list (each of A–D equally often over the dataset, in a seeded
order), and the distractors are shuffled with a seed derived from the pair's id. The same records
and seed always give the same items.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.scenes.options import arrange, deal
from whatifbench.suites.mucr.prompts import (
    CHOICE_METRICS,
    IMAGE_LABELS,
    LETTERS,
    QUESTIONS,
    exp_answer,
)
from whatifbench.suites.mucr.records import Record

PROGRAM = "mucr-items"
"""Name recorded in each item's provenance (the program that placed the answers)."""


def balanced_positions(n: int, seed: int, metric: str) -> list[int]:
    """``n`` answer positions, each of 0–3 used ⌊n/4⌋ or ⌈n/4⌉ times, in a seeded order."""
    return deal(random.Random(f"mucr-positions:{seed}:{metric}"), range(len(LETTERS)), n)


def _place(correct: str, others: Sequence[str], position: int, seed: int, key: str) -> list[str]:
    """``others`` in a seeded order with ``correct`` inserted at ``position``."""
    return list(arrange(correct, others, position, random.Random(f"mucr-order:{seed}:{key}")))


def default_id(record: Record, metric: str) -> str:
    """``<record id>-<metric>`` (``12-c2e``)."""
    return f"{record.id}-{metric}"


def make_items(records: Sequence[Record], images: Mapping[str, str], seed: int,
               source: str, item_id: Callable[[Record, str], str] | None = None,
               order_key: Callable[[str], str] | None = None) -> list[Item]:
    """Four items per record, in record order; ``images`` maps a record's image names to the
    dataset-relative paths; ``source`` names the input file in provenance; ``item_id`` names
    the item of a record and metric (default ``default_id``; opaque names: ``scenes.opaque``);
    ``order_key`` gives the name of a record id that seeds the order of its options (default:
    the id; opaque ids pass the telling one, so that no option order depends on the naming
    secret)."""
    ident = item_id or default_id
    key = order_key or str
    by_id = {r.id: r for r in records}
    positions = {m: balanced_positions(len(records), seed, m) for m in CHOICE_METRICS}
    items: list[Item] = []
    for k, r in enumerate(records):
        base_meta, common = record_meta(r), record_provenance(r, seed, source)
        links = [by_id[link] for link in r.links]
        for metric, shown, own, pick in (
            ("c2e", r.cause_image, r.effect_image, lambda x: x.effect_image),
            ("e2c", r.effect_image, r.cause_image, lambda x: x.cause_image),
        ):
            pos = positions[metric][k]
            order = _place(r.id, [x.id for x in links], pos, seed, f"{metric}:{key(r.id)}")
            files = [own if pid == r.id else pick(by_id[pid]) for pid in order]
            items.append(Item(
                id=ident(r, metric), images=(images[shown], *(images[f] for f in files)),
                question=QUESTIONS[metric], kind="choice", target=LETTERS[pos],
                choices=LETTERS, pair_id=r.id, role=metric, group=metric,
                meta={**base_meta, "image_labels": list(IMAGE_LABELS[metric]),
                      "candidates": order},
                provenance={**common, "metric": metric, "position": pos},
            ))
        items += cue_and_exp(r, positions["cue"][k], images, ident, seed, base_meta, common,
                             key(r.id))
    return items


def record_meta(r: Record) -> dict[str, Any]:
    """The ``meta`` every item of a record has."""
    return {"category": r.category, "style": r.style, "record": r.id,
            "group_of_four": sorted({r.id, *r.links})}


def record_provenance(r: Record, seed: int, source: str) -> dict[str, Any]:
    """The ``provenance`` every item of a record has."""
    return {"program": PROGRAM, "seed": seed, "source": {"file": source, "line": r.line},
            "explanation": r.explanations[2][0]}


def cue_and_exp(r: Record, pos: int, images: Mapping[str, str],
                ident: Callable[[Record, str], str], seed: int, base_meta: dict[str, Any],
                common: dict[str, Any], order: str) -> list[Item]:
    """The Cue item (the right phrase at position ``pos``; ``order`` seeds the order of the
    others) and the Exp item of a record."""
    phrases = _place(r.cue, r.false_cues, pos, seed, f"cue:{order}")
    cue = Item(
        id=ident(r, "cue"), images=(images[r.cause_image], images[r.effect_image]),
        question=QUESTIONS["cue"], kind="choice", target=r.cue, choices=tuple(phrases),
        pair_id=r.id, role="cue", group="cue",
        meta={**base_meta, "image_labels": list(IMAGE_LABELS["cue"])},
        provenance={**common, "metric": "cue", "position": pos},
    )
    first = (r.explanations[0][0], r.explanations[1][0], r.explanations[2][0])
    # an annotator's explanation that does not split is the reference of every part
    target = first[0] if len(set(first)) == 1 else exp_answer(first)
    exp = Item(
        id=ident(r, "exp"), images=(images[r.cause_image], images[r.effect_image]),
        question=QUESTIONS["exp"].format(cue=r.cue), kind="text", target=target,
        pair_id=r.id, role="exp", group="exp",
        meta={**base_meta, "image_labels": list(IMAGE_LABELS["exp"]), "cue": r.cue,
              "references": [list(p) for p in r.explanations],
              "reference_reading": r.reading,
              "captions": [r.cause_caption, r.effect_caption]},
        provenance={**common, "metric": "exp",
                    "explanation": f'The cue "{r.cue}" links the two images.'},
    )
    return [cue, exp]
