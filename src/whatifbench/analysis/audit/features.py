"""Features of the blind baselines: per item its closed options (or none), masked wording and
question features; per option its position, numeric rank, extremes, length rank, words and
relation to the question's numbers. Everything here is read from questions and options, never
from images, metadata or answers (answers only become labels)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from whatifbench.analysis.audit.text import (
    answer_number,
    closed_choices,
    name_words,
    normal,
    number_of,
    question_numbers,
    strip_listing,
    tokens,
    wording,
)
from whatifbench.core.item import Item

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

MAX_DIFF = 12
"""Differences between numeric options are told apart up to this size (larger ones pooled)."""
MAX_VALUE = 50
"""Numeric option values are told apart up to this value (larger ones pooled)."""
CODE = 100_000
"""Prior codes: number of options × CODE + the option's position (or CODE/2 + its numeric
rank), so that items with different numbers of options never share a code."""
SHIFT = 24
DIFF, CROSS, NEAR = 1 << 56, 2 << 56, 3 << 56
"""Column-id ranges of the closed rows: option features (from 0), numeric differences, option
features crossed with question features (question id << SHIFT | option id), differences
crossed with the wording. Ids are compacted afterwards."""


@dataclass(frozen=True)
class Features:
    """The audited items as the baselines see them."""

    items: tuple[Item, ...]
    """The audited items (free-text items are left out before)."""
    choices: tuple[tuple[str, ...], ...]
    """Per item the options a guesser picks from; empty for an open item."""
    answers: tuple[str, ...]
    """Per item its normalised target (the label; never a feature)."""
    keys: tuple[str, ...]
    """Per item its wording with numbers and object names masked."""
    kinds: tuple[str, ...]
    """Per item its answer kind."""
    row_item: np.ndarray
    """Per option row (closed items only) the index of its item; rows of an item are adjacent."""
    row_option: np.ndarray
    """Per option row the option's index among its item's choices."""
    row_label: np.ndarray
    """Per option row: it is the item's target."""
    row_prior: dict[str, np.ndarray]
    """Per option-only prior ("position", "numeric rank", "length") each row's value as an
    integer code: the guesser picks the option whose code was most often right."""
    closed: csr_matrix
    """The learned scorer's rows: option features and their crosses with question features."""
    open_items: np.ndarray
    """Indexes of the open items (numbers without options)."""
    open_x: csr_matrix
    """The learned classifier's rows of the open items: question features and numbers."""


def _index(vocab: dict[str, int], names: Sequence[str]) -> list[int]:
    """Column ids of feature names, adding new names in first-seen order (deterministic)."""
    return [vocab.setdefault(name, len(vocab)) for name in names]


def _question_features(question_tokens: list[str], key: str) -> list[str]:
    """Words and word pairs of a question (numbers masked, names kept) and its masked wording."""
    words = ["<num>" if number_of(t) is not None else t for t in question_tokens]
    grams = set(words) | {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)}
    return sorted(grams) + [f"key={key}"]


def _option_features(choices: Sequence[str], question_tokens: list[str],
                     numbers: list[float]) -> tuple[list[list[str]], list[list[str]],
                                                    dict[str, list[int]]]:
    """Per option: features crossed with the question, numeric-difference features (crossed with
    the wording only), and the prior codes."""
    k = len(choices)
    read = [answer_number(c) for c in choices]
    values = [v for v in read if v is not None]
    numeric = len(values) == k
    lengths = [len(c) for c in choices]
    length_rank = [sorted(range(k), key=lambda j: (lengths[j], j)).index(j) for j in range(k)]
    rank = [0] * k
    if numeric:
        ordered = sorted(range(k), key=lambda j: (values[j], j))
        rank = [ordered.index(j) for j in range(k)]
    in_question = set(question_tokens)
    crossed: list[list[str]] = []
    diffs: list[list[str]] = []
    priors: dict[str, list[int]] = {"position": [], "numeric rank": [], "length": []}
    for j, choice in enumerate(choices):
        feats = [f"pos={j}/{k}", f"len={length_rank[j]}/{k}"]
        words = tokens(choice)
        feats += [f"word={'<num>' if number_of(w) is not None else w}" for w in words]
        if any(w in in_question for w in words if w.isalpha() and len(w) > 1):
            feats.append("named in question")
        near: list[str] = []
        if numeric:
            v = values[j]
            feats += [f"rank={rank[j]}/{k}", f"value={min(v, MAX_VALUE):g}"]
            feats += ["smallest"] * (rank[j] == 0) + ["largest"] * (rank[j] == k - 1)
            for n in numbers[:3]:
                feats.append("= question number" if v == n else
                             ("< question number" if v < n else "> question number"))
            near += [f"diff={max(-MAX_DIFF, min(MAX_DIFF, values[i] - v)):+.0f}"
                     for i in range(k) if i != j]
            near += [f"above min={min(MAX_DIFF, v - min(values)):.0f}",
                     f"below max={min(MAX_DIFF, max(values) - v):.0f}"]
        crossed.append(feats)
        diffs.append(near)
        priors["position"].append(k * CODE + j)
        priors["numeric rank"].append(k * CODE + CODE // 2 + rank[j] if numeric else k * CODE + j)
        priors["length"].append(k * CODE + length_rank[j])
    return crossed, diffs, priors


def build_features(items: Sequence[Item]) -> Features:
    """The features of ``items`` (the baselines' whole input)."""
    names = name_words(items)
    q_vocab: dict[str, int] = {}
    o_vocab: dict[str, int] = {}
    d_vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[np.ndarray] = []
    row_item: list[int] = []
    row_label: list[bool] = []
    row_option: list[int] = []
    priors: dict[str, list[int]] = {"position": [], "numeric rank": [], "length": []}
    choices_all, answers, keys, open_idx = [], [], [], []
    open_rows: list[int] = []
    open_cols: list[np.ndarray] = []
    open_vocab: dict[str, int] = {}
    for index, item in enumerate(items):
        choices = closed_choices(item)
        question = tokens(strip_listing(item.question, item.choices))
        key = wording(question, names)
        numbers = question_numbers(question)
        q_feats = _question_features(question, key)
        choices_all.append(choices)
        answers.append(normal(item.target))
        keys.append(key)
        if not choices:
            open_idx.append(index)
            feats = q_feats + [f"number={n:g}" for n in numbers]
            open_cols.append(np.array(_index(open_vocab, feats), dtype=np.int64))
            open_rows.append(len(open_idx) - 1)
            continue
        target = normal(item.target)
        crossed, diffs, codes = _option_features(choices, question, numbers)
        q_ids = np.array(_index(q_vocab, q_feats), dtype=np.int64)
        key_id = q_vocab[f"key={key}"]
        for j, choice in enumerate(choices):
            o_ids = np.array(_index(o_vocab, crossed[j]), dtype=np.int64)
            d_ids = np.array(_index(d_vocab, diffs[j]), dtype=np.int64)
            cross = CROSS + (q_ids[:, None] << SHIFT) + o_ids[None, :]
            near = NEAR + (key_id << SHIFT) + d_ids
            cols.append(np.concatenate([o_ids, DIFF + d_ids, cross.ravel(), near]))
            rows.append(len(row_item))
            row_item.append(index)
            row_option.append(j)
            row_label.append(normal(choice) == target)
            for name, values in codes.items():
                priors[name].append(values[j])
    closed = _matrix(rows, cols)
    open_x = _matrix(open_rows, open_cols)
    return Features(
        items=tuple(items), choices=tuple(choices_all), answers=tuple(answers),
        keys=tuple(keys), kinds=tuple(item.kind for item in items),
        row_item=np.array(row_item, dtype=np.int64),
        row_option=np.array(row_option, dtype=np.int64), row_label=np.array(row_label, dtype=bool),
        row_prior={name: np.array(values, dtype=np.int64) for name, values in priors.items()},
        closed=closed, open_items=np.array(open_idx, dtype=np.int64), open_x=open_x)


def _matrix(rows: list[int], cols: list[np.ndarray]) -> csr_matrix:
    """A binary sparse matrix from per-row column ids (ids compacted to the ones used)."""
    from scipy.sparse import csr_matrix

    if not rows:
        return csr_matrix((0, 1), dtype=np.float64)
    lengths = np.array([len(c) for c in cols], dtype=np.int64)
    row_ids = np.repeat(np.array(rows, dtype=np.int64), lengths)
    col_ids = np.concatenate(cols)
    used, compact = np.unique(col_ids, return_inverse=True)
    matrix = csr_matrix((np.ones(len(col_ids)), (row_ids, compact)),
                        shape=(len(rows), len(used)))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix
