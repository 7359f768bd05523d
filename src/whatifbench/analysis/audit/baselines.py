"""Blind baselines, cross-validated and grouped by pair, and their honest combination.

Five guessers read the question and the options, never the image:

- ``position``, ``numeric rank``, ``length``: option-only priors; pick the option whose
  position (numeric rank among the options, length rank) was most often right in training;
- ``wording``: the answer most often right for the same masked wording (numbers and object names
  masked), else that wording's most often right position;
- ``learned``: a logistic-regression scorer of each option from its features crossed with the
  question's words (scikit-learn ``SGDClassifier``, log loss); a linear classifier of the answer
  for open items.

An open item (a number without options) is guessed by the majority answer of its kind in training
under the option-only priors. Items are split into ``FOLDS`` folds by pair, so an original and its
counterfactual never straddle folds (each group, and each group's answers, spread evenly over the
folds: ``answer_folds``). The combined guesser takes, for each group of items (the suite's
``group``: template, category, task type ...), the baseline that scored best *inside the training
folds* (a nested cross-validation over the other folds); the test fold never chooses.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from whatifbench.analysis.audit.features import Features

FOLDS = 5
BASELINES = ("position", "numeric rank", "length", "wording", "learned")
"""In order of preference when two score the same inside the training folds."""
SEED = 0


@dataclass(frozen=True)
class BlindResult:
    """Out-of-fold predictions of every baseline and of the combination."""

    folds: np.ndarray
    """Per item its fold (0 .. number of folds − 1)."""
    correct: dict[str, np.ndarray]
    """Per baseline, per item: its out-of-fold guess is right."""
    combined: np.ndarray
    """Per item: the guess of the baseline chosen inside the training folds is right."""
    chosen: dict[str, dict[str, int]]
    """Per selection group, how many test folds each baseline was chosen for."""


def assign_folds(pair_keys: Sequence[str], strata: Sequence[str] | None = None,
                 folds: int = FOLDS, seed: int = SEED) -> np.ndarray:
    """Per item its fold: whole pairs are dealt round-robin to folds, stratum by stratum (each
    group spread evenly over the folds), in a seeded order of their keys (the same for the same
    dataset, whatever the file order)."""
    stratum: dict[str, str] = {}
    for k, key in enumerate(pair_keys):
        stratum.setdefault(key, "" if strata is None else strata[k])
    unique = sorted(stratum)
    shuffled = np.random.default_rng(seed).permutation(len(unique))
    order = sorted(range(len(unique)), key=lambda i: (stratum[unique[i]], shuffled[i]))
    fold_of = {unique[i]: rank % folds for rank, i in enumerate(order)}
    return np.array([fold_of[k] for k in pair_keys], dtype=np.int64)


def answer_folds(pair_keys: Sequence[str], groups: Sequence[str],
                 answers: Sequence[tuple[int, str]], folds: int = FOLDS, seed: int = SEED,
                 ) -> np.ndarray:
    """Per item its fold: whole pairs dealt so that every fold holds each group's answers in
    the shares of the whole, for each member of a pair and for all together (answer positions
    and texts; on 200 dealt pairs within 3–4 items of each other, against 8–11 by group alone).

    Dealt by group alone, an exactly balanced suite (answers dealt evenly, as shortcut-free
    generators deal them) teaches each training fold the answers its test fold has least of,
    and blind guessers score below chance, which would hide a leak of the same size. Pairs go,
    in a seeded order of their keys, to the fold that holds the fewest of their labels (group,
    answer positions and texts) so far, ties to the smaller fold, then the first.
    """
    labels: dict[str, Counter[tuple[str, ...]]] = {}
    member: Counter[str] = Counter()
    for key, group, (position, text) in zip(pair_keys, groups, answers, strict=True):
        j = str(member[key])
        member[key] += 1
        labels.setdefault(key, Counter({("group", group): 1})).update([
            ("position", group, j, str(position)), ("text", group, j, text),
            ("position", group, str(position)), ("text", group, text)])
    unique = sorted(labels)
    column = {label: c for c, label in enumerate(set().union(*labels.values()))}
    count = np.zeros((folds, len(column)))
    size = np.zeros(folds)
    fold_of: dict[str, int] = {}
    for i in np.random.default_rng(seed).permutation(len(unique)):
        key = unique[i]
        cols = [column[label] for label in labels[key]]
        times = np.array(list(labels[key].values()), dtype=np.float64)
        load = count[:, cols] @ times
        best = min(range(folds), key=lambda f: (load[f], size[f], f))
        count[best, cols] += times
        size[best] += 1
        fold_of[key] = best
    return np.array([fold_of[k] for k in pair_keys], dtype=np.int64)


def _top(counts: Counter[str]) -> str | None:
    """The most common value (ties: the smallest), or ``None`` when there is none."""
    if not counts:
        return None
    best = max(counts.values())
    return min(v for v, c in counts.items() if c == best)


class _Guesser:
    """Fits the baselines on training items and says which test guesses are right."""

    def __init__(self, features: Features) -> None:
        self.f = features
        self.n = len(features.items)
        self.closed = np.array([bool(c) for c in features.choices], dtype=bool)

    def _rows(self, items: np.ndarray) -> np.ndarray:
        """Mask of the option rows that belong to the items in the mask ``items``."""
        return items[self.f.row_item]

    def _pick(self, scores: np.ndarray, test: np.ndarray) -> np.ndarray:
        """Right or wrong per item, when each closed test item picks its highest-scoring option
        (ties: the first)."""
        right = np.zeros(self.n, dtype=bool)
        rows = np.flatnonzero(self._rows(test & self.closed))
        if not len(rows):
            return right
        owners = self.f.row_item[rows]
        values = scores[rows]
        starts = np.flatnonzero(np.r_[True, np.diff(owners) != 0])
        best = np.maximum.reduceat(values, starts)
        of_row = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(rows)]))
        hits = np.flatnonzero(values == best[of_row])
        _, first = np.unique(of_row[hits], return_index=True)
        right[owners[starts]] = self.f.row_label[rows[hits[first]]]
        return right

    def _open_majority(self, train: np.ndarray, test: np.ndarray) -> np.ndarray:
        """Open test items answered by the training majority of their kind."""
        right = np.zeros(self.n, dtype=bool)
        tests = np.flatnonzero(test & ~self.closed)
        if not len(tests):
            return right
        by_kind: dict[str, Counter[str]] = {}
        for i in np.flatnonzero(train & ~self.closed):
            by_kind.setdefault(self.f.kinds[i], Counter())[self.f.answers[i]] += 1
        guess = {kind: _top(counts) for kind, counts in by_kind.items()}
        for i in tests:
            right[i] = self.f.answers[i] == guess.get(self.f.kinds[i])
        return right

    # -- baselines --------------------------------------------------------------------------
    def prior(self, name: str, train: np.ndarray, test: np.ndarray) -> np.ndarray:
        """An option-only prior: the code most often right in training scores highest."""
        codes = self.f.row_prior[name]
        rows = self._rows(train)
        wins = Counter(codes[rows & self.f.row_label].tolist())
        scores = np.array([wins.get(c, 0) for c in codes.tolist()], dtype=np.float64)
        return self._pick(scores, test) | self._open_majority(train, test)

    def wording(self, train: np.ndarray, test: np.ndarray) -> np.ndarray:
        """The answer (else the position) most often right for the same masked wording."""
        f = self.f
        answers: dict[str, Counter[str]] = {}
        for i in np.flatnonzero(train):
            answers.setdefault(f.keys[i], Counter())[f.answers[i]] += 1
        codes = f.row_prior["position"]
        won = np.flatnonzero(self._rows(train) & f.row_label)
        overall = Counter(codes[won].tolist())
        positions: dict[str, Counter[int]] = {}
        for r in won:
            positions.setdefault(f.keys[f.row_item[r]], Counter())[int(codes[r])] += 1
        none: Counter[Any] = Counter()
        scale = float(self.n + 1)  # answer count first, then position for the wording, overall
        scores = np.zeros(len(f.row_item))
        for r in np.flatnonzero(self._rows(test)):
            item = int(f.row_item[r])
            key, code = f.keys[item], int(codes[r])
            option = f.choices[item][f.row_option[r]].strip().lower()
            scores[r] = ((answers.get(key, none)[option] * scale
                          + positions.get(key, none)[code]) * scale + overall[code])
        right = self._pick(scores, test) | self._open_majority(train, test)
        for i in np.flatnonzero(test & ~self.closed):
            if f.keys[i] in answers:
                right[i] = f.answers[i] == _top(answers[f.keys[i]])
        return right

    def learned(self, train: np.ndarray, test: np.ndarray) -> np.ndarray:
        """Logistic regression on option rows (closed items) and on open items."""
        right = np.zeros(self.n, dtype=bool)
        rows_train, rows_test = self._rows(train & self.closed), self._rows(test & self.closed)
        if rows_test.any():
            labels = self.f.row_label[rows_train]
            if labels.any() and not labels.all():
                model = _sgd().fit(self.f.closed[rows_train], labels)
                scores = np.zeros(len(self.f.row_item))
                scores[rows_test] = model.decision_function(self.f.closed[rows_test])
                right |= self._pick(scores, test)
            else:
                right |= self.prior("position", train, test) & self.closed
        open_idx = self.f.open_items
        if len(open_idx):
            tr, te = train[open_idx], test[open_idx]
            answers = np.array([self.f.answers[i] for i in open_idx], dtype=object)
            if te.any():
                if len(set(answers[tr])) >= 2:
                    model = _sgd().fit(self.f.open_x[tr], answers[tr])
                    guess = model.predict(self.f.open_x[te])
                    right[open_idx[te]] = guess == answers[te]
                else:
                    right |= self._open_majority(train, test)
        return right

    def run(self, name: str, train: np.ndarray, test: np.ndarray) -> np.ndarray:
        """Right or wrong per test item for baseline ``name`` trained on ``train``."""
        if name == "wording":
            return self.wording(train, test)
        if name == "learned":
            return self.learned(train, test)
        return self.prior(name, train, test)


def _sgd() -> Any:
    """The learned scorer: a seeded, L2-regularised linear model with log loss."""
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(loss="log_loss", alpha=1e-4, max_iter=20, tol=None, random_state=SEED)


def blind_baselines(features: Features, pair_keys: Sequence[str], groups: Sequence[str],
                    folds: int = FOLDS, answers: Sequence[tuple[int, str]] | None = None,
                    ) -> BlindResult:
    """Every baseline's out-of-fold guesses and the combination chosen inside training folds.

    For each test fold ``k``, a baseline's inner guesses on another fold ``j`` come from training
    on the folds other than ``j`` and ``k``. The baseline with the most inner hits over all
    items is the default; a group switches to its own best baseline only when that one beats the
    default on the group's inner items clearly (by more than two standard errors of a sign test
    over the items where the two disagree), so that small groups do not chase noise. The chosen
    baseline's guesses (trained on all folds but ``k``) count for the group's items of fold
    ``k``. Pairs are dealt to folds by group, and by ``answers`` (per item its answer's
    position and text: ``answer_folds``) where given.
    """
    n = len(features.items)
    count = min(folds, len(set(pair_keys)))
    fold = (assign_folds(pair_keys, groups, count) if answers is None
            else answer_folds(pair_keys, groups, answers, count))
    guesser = _Guesser(features)
    outer: dict[str, np.ndarray] = {b: np.zeros(n, dtype=bool) for b in BASELINES}
    for k in range(count):
        test = fold == k
        for b in BASELINES:
            outer[b] |= guesser.run(b, ~test, test) & test
    inner = {(b, k): np.zeros(n, dtype=bool) for b in BASELINES for k in range(count)}
    seen = {k: np.zeros(n, dtype=bool) for k in range(count)}
    for j, k in itertools.combinations(range(count), 2):
        held = (fold == j) | (fold == k)
        if held.all():
            continue
        for b in BASELINES:
            right = guesser.run(b, ~held, held)
            inner[b, k] |= right & (fold == j)
            inner[b, j] |= right & (fold == k)
        seen[k] |= fold == j
        seen[j] |= fold == k
    group_arr = np.array(groups, dtype=object)
    combined = np.zeros(n, dtype=bool)
    chosen: dict[str, Counter[str]] = {}
    for k in range(count):
        default = _best({b: inner[b, k] for b in BASELINES}, seen[k])
        for g in sorted(set(group_arr[fold == k])):
            members = group_arr == g
            best = _best({b: inner[b, k] for b in BASELINES}, seen[k] & members, default)
            chosen.setdefault(str(g), Counter())[best] += 1
            combined[members & (fold == k)] = outer[best][members & (fold == k)]
    return BlindResult(folds=fold, correct=outer, combined=combined,
                       chosen={g: dict(sorted(c.items())) for g, c in sorted(chosen.items())})


def _best(right: dict[str, np.ndarray], where: np.ndarray, default: str | None = None) -> str:
    """The baseline with the most hits ``where`` (ties: the earlier in ``BASELINES``); with a
    ``default``, only when it beats the default by more than two standard errors of a sign test
    on the items where the two disagree."""
    hits = {b: int((right[b] & where).sum()) for b in BASELINES}
    best = max(BASELINES, key=lambda b: (hits[b], -BASELINES.index(b)))
    if default is None or best == default:
        return best
    disagree = int(((right[best] != right[default]) & where).sum())
    return best if hits[best] - hits[default] > 2 * disagree ** 0.5 else default
