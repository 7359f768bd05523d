"""What a harness could show a model besides the question text: image file names, item and pair
ids (read through what public facts decode them to, ``decode``), which image each option is,
the order items are written in, and the groups that shared images, pairs or consecutive ids
reveal. The metadata probes (``probes``, ``letters``) read
only this view, never the images, and ``meta`` only for ``image_labels`` (the label a harness
writes before each image)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

import numpy as np

from whatifbench.analysis.audit.text import closed_choices, normal
from whatifbench.core.item import Item

NAME_TOKEN = re.compile(r"[a-z0-9]+")
LABEL_CHARS = 3
"""Options this short ("A", "B", "1") may be labels of images (MuCR's candidates)."""
SHARED_IMAGE_LIMIT = 16
"""An image shown with more items than this links none of them into a group (a placeholder,
a logo, one picture for a whole test set)."""
BLOCKS = (2, 3, 4, 5, 6, 8)
"""Sizes of the blocks of consecutive id numbers taken as possible groups."""


@dataclass(frozen=True)
class Name:
    """The tokens of a file name or id."""

    words: frozenset[str]
    """Tokens with a letter (``cause``, ``c2e``, ``effect``)."""
    numbers: tuple[int, ...]
    """Tokens of digits only, as numbers, in order (``000017`` → 17)."""


def name_of(text: str, stem: bool = True) -> Name:
    """The tokens of a path's file name (extension dropped) or of an id (``stem=False``)."""
    base = PurePosixPath(text).stem if stem else text
    parts = NAME_TOKEN.findall(base.lower())
    return Name(frozenset(p for p in parts if not p.isdigit()),
                tuple(int(p) for p in parts if p.isdigit() and len(p) <= 12))


@dataclass(frozen=True)
class MetaView:
    """The closed items (options or yes/no) as a harness could show them."""

    items: tuple[Item, ...]
    """The closed items, in file order."""
    choices: tuple[tuple[str, ...], ...]
    """Per item its options (yes/no for a yes/no item)."""
    target: np.ndarray
    """Per item the index of its answer among ``choices`` (−1 when it is none of them)."""
    option_images: tuple[tuple[str | None, ...], ...]
    """Per item and option the image that option is (MuCR's candidates), else ``None``."""
    question_images: tuple[tuple[str, ...], ...]
    """Per item the images that are not options."""
    types: tuple[str, ...]
    """Per item its type: role, group, kind and number of options (members of a set are
    compared within one type)."""
    ids: tuple[str, ...]
    """Per item its id."""
    pair_ids: tuple[str | None, ...]
    """Per item its pair id."""
    id_number: tuple[int | None, ...]
    """Per item the last all-digit token of its id (``1-c2e`` → 1, ``count-000017-b`` → 17)."""
    component: np.ndarray
    """Per item its group: items linked by a pair id or by an image they share (an image shown
    with at most ``SHARED_IMAGE_LIMIT`` items)."""
    decoded: Mapping[str, str] = field(default_factory=dict)
    """Opaque names decoded with public facts (``decode``): name → what it was hashed from,
    past the generator and seed (``image:5:cause``)."""

    @property
    def n(self) -> int:
        """Number of items."""
        return len(self.items)

    def named(self, text: str, stem: bool = True) -> Name:
        """``name_of(text, stem)``, read through ``decoded`` when the name was decoded."""
        base = PurePosixPath(text).stem if stem else text
        found = self.decoded.get(base)
        return name_of(found, stem=False) if found is not None else name_of(text, stem)


def _option_images(item: Item, choices: tuple[str, ...]) -> tuple[tuple[str | None, ...],
                                                                  tuple[str, ...]]:
    """Which image each option is: by ``meta["image_labels"]`` (an image labelled with the
    option's text), else, when options are short labels and there are at least as many images,
    the last ``K`` images in order; the rest are the question's images."""
    images = item.images
    labels = item.meta.get("image_labels")
    of: list[str | None] = [None] * len(choices)
    if isinstance(labels, list) and len(labels) == len(images):
        where = {str(label).strip(): images[k] for k, label in enumerate(labels)}
        of = [where.get(c.strip()) for c in choices]
    elif choices and len(images) >= len(choices) and item.choices \
            and all(len(c.strip()) <= LABEL_CHARS for c in choices):
        of = list(images[len(images) - len(choices):])
    used = {p for p in of if p is not None}
    return tuple(of), tuple(p for p in images if p not in used)


def _components(items: Sequence[Item]) -> np.ndarray:
    """Union-find over items sharing a pair id or a (not too widely shared) image."""
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(members: list[int]) -> None:
        root = find(members[0])
        for m in members[1:]:
            other = find(m)
            if other != root:
                parent[max(root, other)] = min(root, other)
                root = min(root, other)

    by_key: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        if item.pair_id is not None:
            by_key.setdefault(f"pair:{item.pair_id}", []).append(i)
        for path in dict.fromkeys(item.images):
            by_key.setdefault(f"image:{path}", []).append(i)
    for key, members in by_key.items():
        if len(members) > 1 and (key.startswith("pair:") or len(members) <= SHARED_IMAGE_LIMIT):
            join(members)
    roots = [find(i) for i in range(len(items))]
    index = {r: k for k, r in enumerate(dict.fromkeys(roots))}
    return np.array([index[r] for r in roots], dtype=np.int64)


def meta_view(items: Sequence[Item], decoded: Mapping[str, str] | None = None) -> MetaView:
    """The metadata view of the closed items among ``items`` (``decoded``: opaque names
    decoded with public facts, name → the guess that hashes to it)."""
    tails = {name: guess.split(":", 2)[-1] for name, guess in (decoded or {}).items()}
    closed = [item for item in items if closed_choices(item)]
    choices, targets, option_images, question_images, types, numbers = [], [], [], [], [], []
    for item in closed:
        options = closed_choices(item)
        normal_options = [normal(c) for c in options]
        answer = normal(item.target)
        of, rest = _option_images(item, options)
        choices.append(options)
        targets.append(normal_options.index(answer) if answer in normal_options else -1)
        option_images.append(of)
        question_images.append(rest)
        types.append(f"{item.role or ''}|{item.group or ''}|{item.kind}|{len(options)}")
        found = name_of(tails.get(item.id, item.id), stem=False).numbers
        numbers.append(found[-1] if found else None)
    return MetaView(items=tuple(closed), choices=tuple(choices),
                    target=np.array(targets, dtype=np.int64),
                    option_images=tuple(option_images), question_images=tuple(question_images),
                    types=tuple(types), ids=tuple(i.id for i in closed),
                    pair_ids=tuple(i.pair_id for i in closed), id_number=tuple(numbers),
                    component=_components(closed), decoded=tails)


def option_identity(view: MetaView, i: int, j: int) -> str:
    """What option ``j`` of item ``i`` is across items: its image, else its text."""
    image = view.option_images[i][j]
    return f"image:{image}" if image is not None else f"text:{normal(view.choices[i][j])}"


def same_type_sets(view: MetaView, keys: Sequence[object]) -> dict[tuple[object, str],
                                                                    list[int]]:
    """Items grouped by (``keys[i]``, type), in file order; items without a key left out."""
    sets: dict[tuple[object, str], list[int]] = {}
    for i, key in enumerate(keys):
        if key is not None:
            sets.setdefault((key, view.types[i]), []).append(i)
    return sets


def block_keys(view: MetaView, size: int) -> list[object]:
    """Per item its block of ``size`` consecutive id numbers within its type (numbered from the
    type's smallest id number), or ``None`` without an id number."""
    lowest: dict[str, int] = {}
    for t, n in zip(view.types, view.id_number, strict=True):
        if n is not None:
            lowest[t] = min(n, lowest.get(t, n))
    return [None if n is None else (n - lowest[t]) // size
            for t, n in zip(view.types, view.id_number, strict=True)]


def member_sets(view: MetaView) -> list[list[int]]:
    """Sets of exchangeable members, in file order: items of one type within a pair (a
    contrast set's members), else within a group (``component``); sets of one item left out."""
    by_pair = same_type_sets(view, list(view.pair_ids))
    out: list[list[int]] = []
    placed: set[int] = set()
    for members in by_pair.values():
        if len(members) > 1:
            out.append(members)
            placed.update(members)
    rest = [int(c) if i not in placed else None for i, c in enumerate(view.component)]
    out += [m for m in same_type_sets(view, rest).values() if len(m) > 1]
    return out


def shuffled(view: MetaView, fields: Sequence[str], seed: int,
             within: Sequence[object] | None = None) -> MetaView:
    """A control: ``view`` with ``fields`` moved together to other items of the same type (and
    ``within`` key), by one seeded permutation; what the fields said about an item's answer is
    gone, what they say about the dataset as a whole stays."""
    rng = np.random.default_rng(seed)
    keys = [(t, None if within is None else within[i]) for i, t in enumerate(view.types)]
    order = np.arange(view.n)
    groups: dict[object, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    for members in groups.values():
        order[members] = np.array(members)[rng.permutation(len(members))]
    changes: dict[str, object] = {}
    for name in fields:
        value = getattr(view, name)
        if isinstance(value, np.ndarray):
            changes[name] = value[order]
        else:
            changes[name] = tuple(value[k] for k in order)
    return replace(view, **changes)  # type: ignore[arg-type]
