"""Metadata probes: blind guessers that read what a harness could show besides the question text.

Each reads one kind of metadata (``metadata.MetaView``), is trained and scored out of fold
(``learners``) on the items it can read anything on, and is run twice: on the dataset, and on a
*control* where that metadata is moved to other items of the same type by a seeded permutation
(``metadata.shuffled``), which keeps what the metadata says about the dataset as a whole (how
common an option value is, where answers sit) and removes what it says about an item's own
answer. A probe shows a leak when it beats both chance and its control:

- ``file names``: relations between an option's image name and the question image's name
  (the same number, a shared word, the difference of their numbers, the rank of the number
  among the options), words of option image names, an option named in an image's name, and for
  yes/no items the question image's name words with each answer;
- ``ids``: an option named in the item or pair id, the option's letter as a word of the id, and
  the id's number modulo 2–6 with each option position (a dealing that cycles with the ids);
- ``group decode``: for the groups that shared images and pair ids reveal, and for blocks of
  2–8 consecutive id numbers, how many other items of the same type in the group list each
  option (an answer dealt from a group's pool shows up in fewer or more of its lists);
- ``member order``: within a set of items of one type (a contrast set, a group's members), the
  member's rank in the file and by id: the answer (else the position) most often right for
  that rank.

The pair probes (the letter relation, a constant letter) are in ``letters``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from whatifbench.analysis.audit.baselines import SEED
from whatifbench.analysis.audit.learners import key_guesses, probe_folds, row_guesses
from whatifbench.analysis.audit.metadata import (
    BLOCKS,
    NAME_TOKEN,
    MetaView,
    block_keys,
    member_sets,
    option_identity,
    same_type_sets,
    shuffled,
)
from whatifbench.analysis.audit.text import answer_number, normal, tokens

MODULI = (2, 3, 4, 5, 6)
"""An id number modulo these, crossed with the option's position."""
MAX_DIFF = 3
"""Differences between image numbers are told apart up to this size."""
MAX_LISTED = 8
"""Group sizes told apart exactly up to this many other members (larger: in quarters)."""


@dataclass(frozen=True)
class ProbeOutcome:
    """One probe's out-of-fold guesses."""

    name: str
    """The probe's name (``file names``, ``ids`` ...)."""
    reads: str
    """What it reads, in a few words (for tables)."""
    unit: str
    """``item``, or ``pair`` when a whole pair is scored."""
    scored: tuple[int, ...]
    """Indexes (into the view's items) of the scored items; for a pair, its first member."""
    right: np.ndarray
    """Per scored item or pair: the guess is right."""
    control: np.ndarray
    """Per scored item or pair: the control's guess is right."""
    chance: np.ndarray
    """Per scored item or pair: the probability a guess is right by chance."""


Features = list[list[list[str]]]


def file_name_features(view: MetaView) -> Features:
    """Per item and option the file-name features (see the module docstring)."""
    out: Features = []
    for i in range(view.n):
        question = [view.named(p) for p in view.question_images[i]]
        q_words = frozenset().union(*(q.words for q in question))
        q_numbers = {n for q in question for n in q.numbers}
        first = next((q.numbers[-1] for q in question if q.numbers), None)
        every = question + [view.named(p) for p in view.option_images[i] if p is not None]
        all_words = frozenset().union(*(e.words for e in every))
        all_numbers = {n for e in every for n in e.numbers}
        options = view.option_images[i]
        names = [view.named(p) if p is not None else None for p in options]
        numbers = [nm.numbers[-1] if nm is not None and nm.numbers else None for nm in names]
        known = [v for v in numbers if v is not None]
        ranked = sorted(known) if len(known) == len(numbers) else None
        yes_no = {normal(c) for c in view.choices[i]} == {"yes", "no"}
        rows: list[list[str]] = []
        for j, choice in enumerate(view.choices[i]):
            feats: list[str] = []
            nm = names[j]
            if nm is not None:
                if q_numbers & set(nm.numbers):
                    feats.append("image has a number of the question image")
                if q_words & nm.words:
                    feats.append("image shares a word with the question image")
                feats += [f"image word={w}" for w in sorted(nm.words)]
                number = numbers[j]
                if number is not None and first is not None:
                    d = max(-MAX_DIFF, min(MAX_DIFF, number - first))
                    feats.append(f"image number - question number={d:+d}")
                if ranked is not None and number is not None:
                    feats.append(f"image number rank={ranked.index(number)}/{len(ranked)}")
            else:
                words = {w for w in tokens(choice) if w.isalpha() and len(w) > 1}
                if words and words <= all_words:
                    feats.append("option named in an image name")
                value = answer_number(choice)
                if value is not None and value.is_integer() and int(value) in all_numbers:
                    feats.append("option's number in an image name")
            if yes_no:
                feats += [f"question image word={w} -> {normal(choice)}" for w in sorted(q_words)]
            rows.append(feats)
        out.append(rows)
    return out


def id_features(view: MetaView) -> Features:
    """Per item and option the id features (see the module docstring)."""
    out: Features = []
    for i in range(view.n):
        found = view.named(view.ids[i], stem=False)
        pair = view.named(view.pair_ids[i] or "", stem=False)
        words = found.words | pair.words
        known = words | {str(n) for n in found.numbers + pair.numbers}
        number = view.id_number[i]
        rows: list[list[str]] = []
        for j, choice in enumerate(view.choices[i]):
            feats: list[str] = []
            parts = {(p.lstrip("0") or "0") if p.isdigit() else p
                     for p in NAME_TOKEN.findall(normal(choice))}
            if parts and parts <= known:
                feats.append("option named in the id")
            if chr(ord("a") + j) in words:
                feats.append("the option's letter is a word of the id")
            if number is not None:
                feats += [f"id number mod {m}={number % m}, option {j}" for m in MODULI]
            rows.append(feats)
        out.append(rows)
    return out


def group_features(view: MetaView) -> Features:
    """Per item and option how many other same-type members of its groups list the option."""
    out: Features = [[[] for _ in c] for c in view.choices]
    groupings: list[tuple[str, list[object]]] = [("group", [int(c) for c in view.component])]
    groupings += [(f"ids in blocks of {b}", block_keys(view, b)) for b in BLOCKS]
    own = [[option_identity(view, i, j) for j in range(len(c))]
           for i, c in enumerate(view.choices)]
    for label, keys in groupings:
        for members in same_type_sets(view, keys).values():
            if len(members) < 2:
                continue
            listed = Counter(o for i in members for o in set(own[i]))
            others = len(members) - 1
            for i in members:
                for j, option in enumerate(own[i]):
                    k = listed[option] - 1
                    share = (f"{k} of {others}" if others <= MAX_LISTED
                             else f"{round(4 * k / others)}/4 of {MAX_LISTED}+")
                    out[i][j] += [f"{label}: listed by {share}",
                                  f"{label}: listed by " + ("none" if k == 0 else
                                                            "all" if k == others else "some")]
    return out


def _natural(text: str) -> tuple[object, ...]:
    """Sort key: digit runs as numbers."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def order_keys(view: MetaView, seed: int | None = None) -> list[str | None]:
    """Per item in a set of exchangeable members: its type, the set's size and its rank in the
    file and by id; ``None`` elsewhere. With a ``seed`` (the control) both orders of each set
    are shuffled."""
    rng = None if seed is None else np.random.default_rng(seed)
    keys: list[str | None] = [None] * view.n
    for members in member_sets(view):
        in_file = list(members)
        by_id = sorted(members, key=lambda i: _natural(view.ids[i]))
        if rng is not None:
            in_file = [in_file[k] for k in rng.permutation(len(in_file))]
            by_id = [by_id[k] for k in rng.permutation(len(by_id))]
        for i in members:
            keys[i] = (f"{view.types[i]}|{len(members)}|file {in_file.index(i)}|"
                       f"id {by_id.index(i)}")
    return keys


def _informative(features: Features) -> np.ndarray:
    """Items whose options the features tell apart (some option's features differ)."""
    return np.array([len({tuple(sorted(f)) for f in rows}) > 1 for rows in features],
                    dtype=bool)


def _outcome(view: MetaView, name: str, reads: str, scope: np.ndarray, right: np.ndarray,
             control: np.ndarray) -> ProbeOutcome:
    """The scored items of an item-level probe (answers that are an option only)."""
    scope = scope & (view.target >= 0)
    scored = np.flatnonzero(scope)
    return ProbeOutcome(name=name, reads=reads, unit="item",
                        scored=tuple(int(i) for i in scored), right=right[scored],
                        control=control[scored],
                        chance=np.array([1.0 / len(view.choices[i]) for i in scored]))


def _image_layout(view: MetaView) -> list[object]:
    """Per item how many images it has and which options are images (file names move only
    between items laid out alike)."""
    return [(len(q), tuple(o is None for o in opts))
            for q, opts in zip(view.question_images, view.option_images, strict=True)]


ROW_PROBES: tuple[tuple[str, str, Callable[[MetaView], Features], tuple[str, ...]], ...] = (
    ("file names", "image file names vs the question image's and the options", file_name_features,
     ("option_images", "question_images")),
    ("ids", "item and pair ids vs the options (named, letter, id number modulo 2-6)",
     id_features, ("ids", "pair_ids", "id_number")),
    ("group decode", ("each option's count in the lists of its group (shared images, pair ids, "
                      "consecutive ids)"), group_features, ("component", "id_number")),
)


def item_probes(view: MetaView) -> list[ProbeOutcome]:
    """The item-level metadata probes, in order: file names, ids, group decode, member order;
    each with its control scored on the same items and folds."""
    folds = probe_folds(view)
    layout = _image_layout(view)
    out = []
    for k, (name, reads, build, fields) in enumerate(ROW_PROBES):
        features = build(view)
        scope = _informative(features)
        control = shuffled(view, fields, SEED + 1 + k,
                           within=layout if name == "file names" else None)
        out.append(_outcome(view, name, reads, scope, row_guesses(view, features, scope, folds),
                            row_guesses(view, build(control), scope, folds)))
    keys = order_keys(view)
    scope = np.array([key is not None for key in keys], dtype=bool)
    out.append(_outcome(view, "member order",
                        "a member's rank within its set (contrast set, group) in the file and by "
                        "id", scope, key_guesses(view, keys, folds),
                        key_guesses(view, order_keys(view, SEED + 1), folds)))
    return out


def row_probe(view: MetaView, name: str, reads: str, features: Features, control: Features,
              folds: np.ndarray) -> ProbeOutcome:
    """An item-level probe of other modules (``fields``, ``files``): the option scorer on
    ``features`` and on its ``control``'s, scored on the items the features tell apart."""
    scope = _informative(features)
    return _outcome(view, name, reads, scope, row_guesses(view, features, scope, folds),
                    row_guesses(view, control, scope, folds))


def image_layout(view: MetaView) -> list[object]:
    """Per item how many images it has and which options are images (``_image_layout``)."""
    return _image_layout(view)
