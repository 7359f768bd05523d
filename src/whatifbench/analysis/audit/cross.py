"""Cross-item leakage: what a reader of the whole dataset (an agent, a long-context harness,
few-shot examples from the same file) learns about one item's answer from the *other* items.

A harness that shows one item at a time shows none of this, and few-shot demonstrations never
come from the question's own pair, set or picture (``Suite.may_demonstrate``); but a model
given the dataset, or an agent browsing it, sees every question, picture path and line. The
``other items`` probe reads, per option of a scored item:

- **texts of linked items**: whether the option is said (as a phrase) in the question of an
  item of the same pair or set, or showing one of the item's pictures (MuCR's Exp question
  names the Cue answer; CELLO's other questions about a scene name its objects), and how many
  such items say it;
- **neighbouring lines**: whether it is said in the questions of the items up to two lines
  before or after in ``items.jsonl``;
- **shared pictures**: whether the option's picture is another item's question picture
  (anywhere, or of an item of the same pair), or another item's option, and how often (the
  paper MuCR's E2C shows the pair's effect as its question, the right one of its C2E's
  candidates).

It is the learned scorer of the metadata probes (``learners.row_guesses``), scored out of fold
with folds by group, beside a control where each item's features move to another item of its
type. It is reported and flagged like the other probes, but ``--strict`` leaves it alone:
what it reads is not shown by a harness that asks one item at a time (``HARNESS``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from whatifbench.analysis.audit.baselines import SEED
from whatifbench.analysis.audit.learners import probe_folds, row_guesses
from whatifbench.analysis.audit.metadata import MetaView
from whatifbench.analysis.audit.probes import ProbeOutcome
from whatifbench.analysis.audit.text import normal, strip_listing
from whatifbench.core.item import Item

NAME = "other items"
"""The probe's name."""
READS = ("the other items' question texts (same pair or picture, neighbouring lines) and "
         "pictures vs the options")
HARNESS = "whole dataset"
"""What a harness must show for the probe's figure to matter (``--strict`` skips it)."""
NEAR = 2
"""Lines before and after an item that count as its neighbours."""
SKIP = frozenset({"yes", "no", "a", "b", "c", "d"})
"""Options too short or too common to be "said" by another question."""


def _said(option: str, text: str) -> bool:
    """``option`` occurs in ``text`` as a whole phrase (case-insensitive)."""
    word = normal(option)
    if len(word) < 2 or word in SKIP:
        return False
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def _bucket(n: int) -> str:
    return str(n) if n <= 3 else "4+"


def cross_features(view: MetaView, items: Sequence[Item]) -> list[list[list[str]]]:
    """Per scored item of ``view`` and per option, the names of what other items say of it
    (``items``: every item of the dataset, in file order, free text included)."""
    texts = [normal(strip_listing(i.question, i.choices)) for i in items]
    line = {i.id: k for k, i in enumerate(items)}
    by_pair: dict[str, list[int]] = {}
    by_image: dict[str, list[int]] = {}
    for k, item in enumerate(items):
        if item.pair_id is not None:
            by_pair.setdefault(item.pair_id, []).append(k)
        for image in item.images:
            by_image.setdefault(image, []).append(k)
    shown_as_question: Counter[str] = Counter()
    shown_as_option: Counter[str] = Counter()
    for q, opts in zip(view.question_images, view.option_images, strict=True):
        shown_as_question.update(set(q))
        shown_as_option.update({o for o in opts if o is not None})
    out = []
    for i, item in enumerate(view.items):
        k = line[item.id]
        linked = set(by_pair.get(item.pair_id, [])) if item.pair_id is not None else set()
        for image in item.images:
            linked |= set(by_image.get(image, []))
        linked.discard(k)
        near = {j for j in range(k - NEAR, k + NEAR + 1) if 0 <= j < len(items) and j != k}
        own_question = set(view.question_images[i])
        mates = by_pair.get(item.pair_id, []) if item.pair_id is not None else []
        linked_questions = {image for x in mates if x != k for image in items[x].images}
        linked_questions -= own_question
        rows = []
        for j, option in enumerate(view.choices[i]):
            names = []
            said = sum(_said(option, texts[x]) for x in linked)
            if said:
                names += ["linked: says it", f"linked: says it {_bucket(said)} times"]
            if any(_said(option, texts[x]) for x in near):
                names.append("neighbour: says it")
            picture = view.option_images[i][j]
            if picture is not None:
                as_question = shown_as_question[picture] - (picture in own_question)
                if as_question:
                    names.append("picture: another item's question")
                if picture in linked_questions and picture in shown_as_question:
                    names.append("picture: the question of a pair mate")
                names.append(f"picture: an option of {_bucket(shown_as_option[picture] - 1)} "
                             "other items")
            rows.append(names)
        out.append(rows)
    return out


def _moved(view: MetaView, features: list[list[list[str]]]) -> list[list[list[str]]]:
    """The control: each item's features moved to another item of its type (one seeded
    permutation), so that they no longer line up with its own answer."""
    rng = np.random.default_rng(SEED + 31)
    groups: dict[tuple[str, int], list[int]] = {}
    for i, kind in enumerate(view.types):
        groups.setdefault((kind, len(view.choices[i])), []).append(i)
    out = list(features)
    for members in groups.values():
        for i, j in zip(members, [members[k] for k in rng.permutation(len(members))],
                        strict=True):
            out[i] = features[j]
    return out


def other_items(view: MetaView, items: Sequence[Item]) -> ProbeOutcome:
    """The ``other items`` probe on the items whose options its features tell apart."""
    features = cross_features(view, items)
    scope = np.array([len({tuple(sorted(f)) for f in rows}) > 1 for rows in features],
                     dtype=bool) & (view.target >= 0)
    folds = probe_folds(view)
    right = row_guesses(view, features, scope, folds)
    control = row_guesses(view, _moved(view, features), scope, folds)
    scored = np.flatnonzero(scope)
    return ProbeOutcome(NAME, READS, "item", tuple(int(i) for i in scored), right[scored],
                        control[scored],
                        np.array([1.0 / len(view.choices[i]) for i in scored]))
