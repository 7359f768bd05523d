"""A text-only check of generated suites (question and options only, never the image), for the
mucr-synthetic and CELLO tests until ``whatif audit`` (issue 24) lands and replaces it.

Three blind classifiers, each cross-validated in 5 folds grouped by pair (``pair_id``: a
CELLO contrast set is one; else the item), predict every closed item (options or yes/no;
free-text items are left out):

- ``ngram-lr``: logistic regression scoring each option from hashed n-grams of the option, the
  option's position, whether the question names it, and every (question word, option word)
  pair (so "would ... drop?" × "Yes" is a feature); the best-scoring option is the answer;
- ``option-gb``: gradient boosting on option features: position, length in words and
  characters, words shared with the question, the option's number of words among its siblings,
  and how often other folds saw the option (and the option under the same masked question
  wording, and with each question word) as the answer or as an option (nested out-of-fold
  encoding: a training row is never encoded with its own fold's answers);
- ``masked-majority``: the question with its object names masked (words outside the wording
  shared by at least half of its group's questions, and numbers) is the key; the answer is the
  training folds' most frequent answer text for that key when it is an option, else their most
  frequent answer position.

A slice (the whole set; each ``group``, ``role`` and meta key in ``SLICE_KEYS``) is flagged under
the audit's rule: at least ``MIN_N`` items, blind accuracy more than ``MARGIN`` above chance, and
the 95 % Wilson interval's lower end above chance. Chance is ``analysis.audit.chance``'s.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from whatifbench.analysis.audit.chance import item_chance
from whatifbench.core.item import Item
from whatifbench.metrics.stats import wilson_ci

MIN_N = 60
"""Slices smaller than this are reported, never flagged."""
MARGIN = 5.0
"""Points above chance a slice may reach before it is flagged."""
FOLDS = 5
SLICE_KEYS = ("task_type", "rung", "graph_type", "format", "category", "style", "template")
"""Meta keys that define slices (besides ``group`` and ``role``)."""
WORD = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True)
class SliceResult:
    """One classifier's blind accuracy on one slice."""

    classifier: str
    """``ngram-lr``, ``option-gb`` or ``masked-majority``."""
    slice: str
    """``all``, or ``key=value``."""
    n: int
    """Items in the slice."""
    accuracy: float
    """Blind accuracy, percent."""
    chance: float
    """Chance accuracy, percent."""
    low: float
    """Lower end of the 95 % Wilson interval, percent."""
    high: float
    """Upper end of the 95 % Wilson interval, percent."""

    @property
    def flagged(self) -> bool:
        """The audit's rule: n ≥ MIN_N, above chance + MARGIN and the interval above chance."""
        return (self.n >= MIN_N and self.accuracy > self.chance + MARGIN
                and self.low > self.chance)

    def line(self) -> str:
        """One printable line."""
        mark = "  FLAGGED" if self.flagged else ""
        return (f"{self.classifier:<16} {self.slice:<44} n={self.n:<5} blind "
                f"{self.accuracy:5.1f} % [{self.low:5.1f}, {self.high:5.1f}]  chance "
                f"{self.chance:5.1f} %{mark}")


def words(text: str) -> list[str]:
    """Lower-case word tokens."""
    return WORD.findall(text.lower())


def closed_items(items: Iterable[Item]) -> list[Item]:
    """The items a blind classifier can answer: options, or yes/no."""
    return [i for i in items if item_chance(i) is not None]


def options_of(item: Item) -> tuple[str, ...]:
    """The options of a closed item (``Yes``/``No`` for a yes/no item)."""
    return item.choices or ("yes", "no")


def answer_of(item: Item) -> int:
    """Index of the answer among ``options_of``."""
    opts = options_of(item)
    return opts.index(item.target) if item.choices else int(item.target.lower() != "yes")


def unit(item: Item) -> str:
    """What a fold keeps together: the item's pair (a CELLO contrast set), else the item."""
    return item.pair_id or item.id


def fold_ids(items: Sequence[Item], group: Callable[[Item], str] = unit) -> np.ndarray:
    """Fold (0 … FOLDS-1) of each item; items of one ``group`` share a fold (grouped CV)."""
    from sklearn.model_selection import GroupKFold

    groups = [group(i) for i in items]
    folds = np.zeros(len(items), dtype=int)
    n = min(FOLDS, len(set(groups)))
    for k, (_, test) in enumerate(GroupKFold(n_splits=n).split(items, groups=groups)):
        folds[test] = k
    return folds


def template_words(items: Sequence[Item]) -> dict[str | None, set[str]]:
    """Per group: the words in at least half of its questions (the wording, not the names)."""
    by_group: dict[str | None, list[Item]] = defaultdict(list)
    for item in items:
        by_group[item.group].append(item)
    out = {}
    for group, members in by_group.items():
        counts = Counter(w for i in members for w in set(words(i.question)))
        out[group] = {w for w, c in counts.items() if 2 * c >= len(members)}
    return out


def masked(item: Item, keep: dict[str | None, set[str]]) -> str:
    """The question with names and numbers masked."""
    own = keep[item.group]
    return " ".join(w if w in own and not w.isdigit() else "_" for w in words(item.question))


Predictor = Callable[[Sequence[Item], np.ndarray, dict[str | None, set[str]]], np.ndarray]


def _rows(items: Sequence[Item]) -> list[tuple[int, int]]:
    return [(k, j) for k, item in enumerate(items) for j in range(len(options_of(item)))]


def _pick(items: Sequence[Item], rows: list[tuple[int, int]], scores: np.ndarray) -> np.ndarray:
    best: dict[int, tuple[float, int]] = {}
    for (k, j), s in zip(rows, scores, strict=True):
        if k not in best or s > best[k][0]:
            best[k] = (float(s), j)
    return np.array([best[k][1] for k in range(len(items))])


def _ngram_features(item: Item, j: int) -> list[str]:
    option = options_of(item)[j]
    ow = words(option) or ["_empty"]
    qw = words(item.question)
    feats = [f"o:{w}" for w in ow] + [f"o2:{a}_{b}" for a, b in zip(ow, ow[1:], strict=False)]
    feats += [f"p:{j}", f"n:{len(ow)}", f"inq:{' '.join(ow) in ' '.join(qw)}"]
    feats += [f"g:{item.group}|o:{w}" for w in ow]
    qgrams = qw + [f"{a}_{b}" for a, b in zip(qw, qw[1:], strict=False)]
    feats += [f"x:{q}|{o}" for q in qgrams for o in ow]
    return feats


def ngram_lr(items: Sequence[Item], folds: np.ndarray,
             keep: dict[str | None, set[str]]) -> np.ndarray:
    """Out-of-fold answers of the option-scoring logistic regression on n-grams."""
    from sklearn.feature_extraction import FeatureHasher
    from sklearn.linear_model import LogisticRegression

    rows = _rows(items)
    x = FeatureHasher(n_features=2 ** 18, input_type="string").transform(
        _ngram_features(items[k], j) for k, j in rows)
    y = np.array([int(answer_of(items[k]) == j) for k, j in rows])
    row_fold = np.array([folds[k] for k, _ in rows])
    scores = np.zeros(len(rows))
    for f in sorted(set(folds)):
        train, test = row_fold != f, row_fold == f
        if len(set(y[train])) < 2:
            continue
        model = LogisticRegression(C=1.0, solver="liblinear").fit(x[train], y[train])
        scores[test] = model.decision_function(x[test])
    return _pick(items, rows, scores)


def _counts(items: Sequence[Item], keep: dict[str | None, set[str]]
            ) -> tuple[Counter[tuple], Counter[tuple]]:
    """(key → times seen as an option, key → times the answer) for the encoding keys."""
    seen: Counter[tuple] = Counter()
    right: Counter[tuple] = Counter()
    for item in items:
        mask = masked(item, keep)
        qw = set(words(item.question))
        for j, opt in enumerate(options_of(item)):
            o = opt.lower()
            keys = [("o", item.group, o), ("m", mask, o)] + [("q", q, o) for q in qw]
            seen.update(keys)
            if j == answer_of(item):
                right.update(keys)
    return seen, right


def _encode(item: Item, j: int, keep: dict[str | None, set[str]], seen: Counter[tuple],
            right: Counter[tuple]) -> list[float]:
    opt = options_of(item)[j].lower()
    mask = masked(item, keep)
    qw = set(words(item.question))

    def rate(key: tuple) -> tuple[float, float]:
        return (seen[key], (right[key] + 0.25) / (seen[key] + 1))

    feats = [*rate(("o", item.group, opt)), *rate(("m", mask, opt))]
    q_rates = [rate(("q", q, opt))[1] for q in qw] or [0.25]
    ow = words(opt)
    lengths = [len(words(o)) for o in options_of(item)]
    feats += [max(q_rates), float(np.mean(q_rates)), j, len(ow), len(opt),
              len(set(ow) & qw), len(ow) - float(np.mean(lengths)),
              sorted(lengths).index(len(ow)), len(options_of(item))]
    return feats


def option_gb(items: Sequence[Item], folds: np.ndarray,
              keep: dict[str | None, set[str]]) -> np.ndarray:
    """Out-of-fold answers of gradient boosting on option features. The answer counts a row is
    encoded with come from other folds only: a test row's from the training folds, a training
    row's from the training folds but its own (nested out-of-fold target encoding)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rows = _rows(items)
    y = np.array([int(answer_of(items[k]) == j) for k, j in rows])
    row_fold = np.array([folds[k] for k, _ in rows])
    scores = np.zeros(len(rows))
    names = sorted(set(folds))
    counts = {frozenset(c): _counts([i for i, g in zip(items, folds, strict=True) if g in c],
                                    keep)
              for c in [set(names) - {f} for f in names]
              + [set(names) - {f, g} for f in names for g in names if g != f]}
    for f in names:
        x = np.array([_encode(items[k], j, keep,
                              *counts[frozenset(set(names) - {f, int(row_fold[r])})])
                      for r, (k, j) in enumerate(rows)])
        train, test = row_fold != f, row_fold == f
        if len(set(y[train])) < 2:
            continue
        model = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.1,
                                               random_state=0).fit(x[train], y[train])
        scores[test] = model.predict_proba(x[test])[:, 1]
    return _pick(items, rows, scores)


def masked_majority(items: Sequence[Item], folds: np.ndarray,
                    keep: dict[str | None, set[str]]) -> np.ndarray:
    """Out-of-fold answers of the majority per masked question wording."""
    out = np.zeros(len(items), dtype=int)
    keys = [(i.group, masked(i, keep)) for i in items]
    for f in sorted(set(folds)):
        texts: dict[tuple, Counter[str]] = defaultdict(Counter)
        positions: dict[tuple, Counter[int]] = defaultdict(Counter)
        for item, key, g in zip(items, keys, folds, strict=True):
            if g == f:
                continue
            answer = options_of(item)[answer_of(item)].lower()
            for k in (key, (item.group, None)):
                texts[k][answer] += 1
                positions[k][answer_of(item)] += 1
        for idx in np.flatnonzero(folds == f):
            item = items[idx]
            opts = [o.lower() for o in options_of(item)]
            choice = 0
            for k in (keys[idx], (item.group, None)):
                known = [(c, t) for t, c in texts[k].items() if t in opts]
                if known:
                    choice = opts.index(max(known)[1])
                    break
                if positions[k]:
                    choice = min(positions[k].most_common(1)[0][0], len(opts) - 1)
                    break
            out[idx] = choice
    return out


CLASSIFIERS: dict[str, Predictor] = {
    "ngram-lr": ngram_lr, "option-gb": option_gb, "masked-majority": masked_majority}
"""The blind classifiers, by name."""


def slices_of(item: Item) -> list[str]:
    """The slices an item belongs to."""
    out = ["all"]
    if item.group is not None:
        out.append(f"group={item.group}")
    if item.role is not None and item.role != item.group:
        out.append(f"role={item.role}")
    for key in SLICE_KEYS:
        value = item.meta.get(key)
        if isinstance(value, str | int) and str(value) != item.group:
            out.append(f"{key}={value}")
    return out


def blind_check(items: Iterable[Item], classifiers: Sequence[str] = tuple(CLASSIFIERS),
                group: Callable[[Item], str] = unit) -> list[SliceResult]:
    """Every classifier's blind accuracy on every slice of the closed items (folds keep each
    ``group`` together)."""
    closed = closed_items(items)
    if not closed:
        return []
    folds = fold_ids(closed, group)
    keep = template_words(closed)
    truth = np.array([answer_of(i) for i in closed])
    chances = np.array([100.0 * (item_chance(i) or 0.0) for i in closed])
    members: dict[str, list[int]] = defaultdict(list)
    for k, item in enumerate(closed):
        for name in slices_of(item):
            members[name].append(k)
    from threadpoolctl import threadpool_limits

    results = []
    for name in classifiers:
        with threadpool_limits(1):  # small problems: threads only contend on a shared machine
            hits = CLASSIFIERS[name](closed, folds, keep) == truth
        for slice_name, idx in sorted(members.items()):
            n, right = len(idx), int(hits[idx].sum())
            low, high = wilson_ci(right, n)
            results.append(SliceResult(name, slice_name, n, round(100.0 * right / n, 2),
                                       round(float(chances[idx].mean()), 2), low, high))
    return results


def flagged(results: Iterable[SliceResult]) -> list[SliceResult]:
    """The flagged slices."""
    return [r for r in results if r.flagged]
