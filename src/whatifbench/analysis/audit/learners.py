"""The two guessers behind the metadata probes, both scored out of fold with folds grouped by
group (``metadata.MetaView.component``: a pair and every item sharing an image with it), so that
nothing learned on one item is tested on an item it is linked to.

- ``row_guesses``: a logistic-regression scorer of each option from the option's features (the
  same learner as the text baselines' ``learned``), trained on the other folds;
- ``key_guesses``: per key the answer (else the option position) most often right in the other
  folds.

Ties are broken at random (seeded), never by taking the first option, so that a guesser that
reads nothing scores chance whatever the answer positions are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from whatifbench.analysis.audit.baselines import FOLDS, SEED, _sgd, answer_folds
from whatifbench.analysis.audit.metadata import MetaView
from whatifbench.analysis.audit.text import normal

JITTER = 1e-9
"""Seeded noise added to scores: breaks exact ties at random and nothing else."""


def probe_folds(view: MetaView, keys: Sequence[str] | None = None) -> np.ndarray:
    """Per item its fold: whole groups (``component``, or ``keys``) dealt to ``FOLDS`` folds,
    each group and its answers spread evenly (``answer_folds``)."""
    units = [f"c{c}" for c in view.component] if keys is None else list(keys)
    count = min(FOLDS, len(set(units)))
    answers = [(int(view.target[k]), str(item.target)) for k, item in enumerate(view.items)]
    return answer_folds(units, [i.group or "" for i in view.items], answers, max(count, 1))


def _pick(scores: np.ndarray, row_item: np.ndarray, row_option: np.ndarray,
          n: int) -> np.ndarray:
    """Per item the option with the highest score (−1 for items without rows); rows of an item
    are adjacent."""
    chosen = np.full(n, -1, dtype=np.int64)
    if not len(row_item):
        return chosen
    starts = np.flatnonzero(np.r_[True, np.diff(row_item) != 0])
    best = np.maximum.reduceat(scores, starts)
    of_row = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(row_item)]))
    hits = np.flatnonzero(scores == best[of_row])
    _, first = np.unique(of_row[hits], return_index=True)
    chosen[row_item[starts]] = row_option[hits[first]]
    return chosen


def row_guesses(view: MetaView, features: Sequence[Sequence[Sequence[str]]],
                scope: np.ndarray, folds: np.ndarray) -> np.ndarray:
    """Out-of-fold right/wrong per item in ``scope`` of a scorer of options from their features
    (``features[i][j]``: names of option ``j`` of item ``i``)."""
    from scipy.sparse import csr_matrix

    vocab: dict[str, int] = {}
    row_item: list[int] = []
    row_option: list[int] = []
    rows: list[int] = []
    cols: list[int] = []
    for i in np.flatnonzero(scope).tolist():
        for j, names in enumerate(features[i]):
            rows += [len(row_item)] * len(names)
            cols += [vocab.setdefault(name, len(vocab)) for name in names]
            row_item.append(i)
            row_option.append(j)
    items = np.array(row_item, dtype=np.int64)
    options = np.array(row_option, dtype=np.int64)
    x = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(row_item), max(1, len(vocab))))
    x.sum_duplicates()
    x.data[:] = 1.0
    label = view.target[items] == options if len(items) else np.zeros(0, dtype=bool)
    jitter = np.random.default_rng(SEED).random(len(items)) * JITTER
    right = np.zeros(view.n, dtype=bool)
    for k in sorted(set(folds[scope].tolist())):
        test_rows = folds[items] == k
        train_rows = ~test_rows
        scores = jitter.copy()
        labels = label[train_rows]
        if vocab and labels.any() and not labels.all():
            model = _sgd().fit(x[train_rows], labels)
            scores[test_rows] += model.decision_function(x[test_rows])
        picked = _pick(scores[test_rows], items[test_rows], options[test_rows], view.n)
        tested = np.unique(items[test_rows])
        right[tested] = picked[tested] == view.target[tested]
    return right


def key_guesses(view: MetaView, keys: Sequence[str | None], folds: np.ndarray,
                by_text: bool = True) -> np.ndarray:
    """Out-of-fold right/wrong per item with a key: the position most often right for the same
    key in the other folds; for a yes/no item (``by_text``) the answer most often right first,
    whatever its position. Other answers' texts are not counted: that is a text prior, which
    the text baselines measure."""
    rng = np.random.default_rng(SEED)
    jitter = [rng.random(len(c)) * JITTER for c in view.choices]
    right = np.zeros(view.n, dtype=bool)
    keyed = [i for i, k in enumerate(keys) if k is not None]
    scale = float(view.n + 1)
    yes_no = [by_text and {normal(c) for c in choices} == {"yes", "no"}
              for choices in view.choices]
    for k in sorted({int(folds[i]) for i in keyed}):
        answers: dict[str, Counter[str]] = {}
        positions: dict[str, Counter[int]] = {}
        for i in keyed:
            if folds[i] != k and view.target[i] >= 0:
                key = str(keys[i])
                answers.setdefault(key, Counter())[normal(view.choices[i][view.target[i]])] += 1
                positions.setdefault(key, Counter())[int(view.target[i])] += 1
        for i in keyed:
            if folds[i] != k:
                continue
            key = str(keys[i])
            said, where = answers.get(key, Counter()), positions.get(key, Counter())
            scores = [said[normal(c)] * scale * yes_no[i] + where[j] + jitter[i][j]
                      for j, c in enumerate(view.choices[i])]
            right[i] = int(np.argmax(scores)) == view.target[i]
    return right
