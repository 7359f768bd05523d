"""Independent text-only probes of a generated suite: can its choice items be answered without
the image? (``bench/bench_shortcut_free.py`` runs them beside ``whatif audit``.)

Each probe sees only what a model without the image would see (question text, options, the
other question of the pair) and is trained and tested with 5-fold cross-validation grouped by
``pair_id`` (both questions of a pair are always in the same fold). Unlike the audit, which
combines its baselines by nested cross-validation, each probe is reported on its own:

- ``ngram-lr``: logistic regression scoring each option from hashed features: question word
  1-2-grams (and the partner question's) crossed with the option's text, position and rank
  (numbers); the best-scoring option is the answer;
- ``option-gbm``: gradient boosting on option features: position, value, rank and distances
  among the options, relation to the numbers in the question and to the partner question's
  options, option length, how often the option text occurs among the training options, a
  code of the masked question wording;
- ``wording-majority``: per masked question wording (digits as ``#``), the option text that was
  most often right in training (then the option rank most often right).

Slices: all items, each group, role, scalar ``meta`` value, and their crossings with role. A
slice result is flagged by the audit's rule: at least ``MIN_ITEMS`` items, more than ``MARGIN``
points above chance (``analysis.audit.chance``), Wilson 95 % lower end above chance. With three
probes and some fifty slices, a suite without any leak gets a few such flags by chance.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from whatifbench.analysis.audit.chance import chance_per_item
from whatifbench.core.item import Item
from whatifbench.metrics.stats import wilson_ci

MIN_ITEMS = 60
"""Slices smaller than this are reported, never flagged."""
MARGIN = 5.0
"""Points above chance a slice may reach before it is flagged."""
FOLDS = 5
WORD = re.compile(r"[a-z]+|\d+")
NUMBER = re.compile(r"\d+")
NUMBER_WORDS = {w: i for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"))}


@dataclass(frozen=True)
class SliceResult:
    """One probe's blind accuracy on one slice."""

    probe: str
    """Probe name."""
    slice: str
    """``all``, ``group=...``, ``role=...``, ``template=...``, ``group=...|role=...`` ..."""
    n: int
    """Items in the slice."""
    accuracy: float
    """Percent answered right by the probe (out-of-fold predictions)."""
    low: float
    """Lower end of the Wilson 95 % interval (percent)."""
    chance: float
    """Chance accuracy of the slice (percent)."""

    @property
    def flagged(self) -> bool:
        """The audit's rule: enough items, above chance + margin, interval above chance."""
        return (self.n >= MIN_ITEMS and self.accuracy > self.chance + MARGIN
                and self.low > self.chance)


def _number(text: str) -> float | None:
    text = text.strip().lower()
    if text.isdigit():
        return float(text)
    return float(NUMBER_WORDS[text]) if text in NUMBER_WORDS else None


def _question_numbers(question: str) -> list[float]:
    """Numbers written in the question stem (before the options, as digits or words)."""
    stem = question.split(" Select the correct answer:")[0].lower()
    found = [float(n) for n in NUMBER.findall(stem)]
    found += [float(NUMBER_WORDS[w]) for w in WORD.findall(stem) if w in NUMBER_WORDS]
    return found


def masked(question: str) -> str:
    """The question stem with digits as ``#`` (the wording key)."""
    return NUMBER.sub("#", question.split(" Select the correct answer:")[0].lower())


def _partners(items: Sequence[Item]) -> list[Item | None]:
    by_pair: dict[str, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        if item.pair_id is not None:
            by_pair[item.pair_id].append(i)
    out: list[Item | None] = []
    for i, item in enumerate(items):
        mates = [j for j in by_pair.get(item.pair_id or "", []) if j != i]
        out.append(items[mates[0]] if mates else None)
    return out


def folds(items: Sequence[Item], k: int = FOLDS) -> np.ndarray:
    """The fold of each item: pairs are dealt to folds by a hash of their id."""
    keys = [item.pair_id or item.id for item in items]
    return np.array([int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % k
                     for key in keys])


@dataclass(frozen=True)
class Rows:
    """The option rows of every choice item (one row per option)."""

    item: np.ndarray
    """Index of the row's item."""
    position: np.ndarray
    """Position of the option (0 = A)."""
    correct: np.ndarray
    """The option is the target."""
    text: list[str]
    """The option text, lower-cased."""
    numeric: np.ndarray
    """Numeric option features (see ``_numeric``)."""
    tokens: list[list[str]]
    """Hashed-feature tokens of the row (``ngram-lr``)."""


def _numeric(options: Sequence[str], j: int, question: str, partner: Item | None,
             wording: int, role: int) -> list[float]:
    values = [_number(o) for o in options]
    k = len(options)
    own = options[j].strip().lower()
    numbers = _question_numbers(question)
    partner_opts = [o.strip().lower() for o in partner.choices] if partner else []
    feats: list[float] = [j, k, len(own), wording, role,
                          float(own in WORD.findall(question.lower())),
                          float(own in partner_opts),
                          float(partner_opts.index(own) == j) if own in partner_opts else -1.0]
    if all(v is not None for v in values):
        vals = [float(v) for v in values if v is not None]
        v = vals[j]
        others = [x for i, x in enumerate(vals) if i != j]
        mean = sum(vals) / k
        pvals = [x for x in (_number(o) for o in partner_opts) if x is not None]
        feats += [v, sorted(vals).index(v), v - min(vals), max(vals) - v, v - mean,
                  min(abs(v - x) for x in others), sum(abs(v - x) <= 2 for x in others),
                  max(vals) - min(vals),
                  v - numbers[0] if numbers else -99.0, float(v in numbers),
                  sum(x < v for x in pvals) if pvals else -1.0,
                  min((abs(v - x) for x in pvals), default=-1.0),
                  (v - numbers[0]) in pvals if numbers and pvals else -1.0,
                  (v + numbers[0]) in pvals if numbers and pvals else -1.0]
    else:
        feats += [-1.0] * 14
    return feats


def _grams(question: str) -> list[str]:
    words = WORD.findall(question.split(" Select the correct answer:")[0].lower())
    return words + [f"{a}_{b}" for a, b in zip(words, words[1:], strict=False)]


def option_rows(items: Sequence[Item]) -> Rows:
    """Rows for every option of every choice item in ``items`` (others get none)."""
    partners = _partners(items)
    wordings: dict[str, int] = {}
    roles: dict[str, int] = {}
    item_i, pos, correct, text, numeric, toks = [], [], [], [], [], []
    for i, item in enumerate(items):
        if not item.choices:
            continue
        stem = masked(item.question)
        code = wordings.setdefault(" ".join(stem.split()[:4]), len(wordings))
        role = roles.setdefault(item.role or "", len(roles))
        grams = _grams(item.question)
        words = set(WORD.findall(item.question.lower()))
        partner = partners[i]
        partner_grams = _grams(partner.question) if partner is not None else []
        values = [_number(o) for o in item.choices]
        ranks = (sorted(range(len(values)), key=lambda x: values[x] or 0.0)
                 if all(v is not None for v in values) else [])
        for j, option in enumerate(item.choices):
            own = option.strip().lower()
            rank = f"rank{ranks.index(j)}" if ranks else "rank-"
            row = [f"opt={own}", f"pos={j}", rank, f"role={item.role}|opt={own}",
                   f"role={item.role}|{rank}"]
            row += [f"{g}|opt={own}" for g in grams] + [f"{g}|{rank}" for g in grams]
            row += [f"{g}|pos={j}" for g in grams[:3]]
            row += [f"partner:{g}|opt={own}" for g in partner_grams]
            if own in words:
                row.append("in-question")
            item_i.append(i)
            pos.append(j)
            correct.append(option == item.target)
            text.append(own)
            numeric.append(_numeric(item.choices, j, item.question, partners[i], code, role))
            toks.append(row)
    return Rows(np.array(item_i), np.array(pos), np.array(correct), text,
                np.array(numeric, dtype=float), toks)


def _pick(rows: Rows, scores: np.ndarray, n_items: int) -> np.ndarray:
    """Per item: did the highest-scoring option (ties: a hash of the option, never its
    position) hit the target? Items without rows count as wrong."""
    best: dict[int, tuple[float, int, bool]] = {}
    for r, (i, s) in enumerate(zip(rows.item.tolist(), scores.tolist(), strict=True)):
        tie = int(hashlib.sha256(f"{i}:{rows.text[r]}".encode()).hexdigest()[:6], 16)
        if i not in best or (s, tie) > best[i][:2]:
            best[i] = (s, tie, bool(rows.correct[r]))
    return np.array([best[i][2] if i in best else False for i in range(n_items)])


def _cross_scores(rows: Rows, fold: np.ndarray,
                  fit: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    scores = np.zeros(len(rows.item))
    row_fold = fold[rows.item]
    for f in np.unique(row_fold):
        test = row_fold == f
        scores[test] = fit(~test, test)
    return scores


def probe_ngram(rows: Rows, fold: np.ndarray) -> np.ndarray:
    """``ngram-lr`` option scores."""
    from sklearn.feature_extraction import FeatureHasher
    from sklearn.linear_model import LogisticRegression

    hashed = FeatureHasher(n_features=2 ** 18, input_type="string",
                           alternate_sign=False).transform(rows.tokens)

    def fit(train: np.ndarray, test: np.ndarray) -> np.ndarray:
        model = LogisticRegression(C=0.2, solver="liblinear", tol=1e-3)
        model.fit(hashed[train], rows.correct[train])
        return np.asarray(model.decision_function(hashed[test]))

    return _cross_scores(rows, fold, fit)


def probe_gbm(rows: Rows, fold: np.ndarray) -> np.ndarray:
    """``option-gbm`` option scores (the option text's frequency among training options and
    as a training target added per fold)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    def fit(train: np.ndarray, test: np.ndarray) -> np.ndarray:
        seen = Counter(t for t, keep in zip(rows.text, train, strict=True) if keep)
        right = Counter(t for t, keep, c in zip(rows.text, train, rows.correct, strict=True)
                        if keep and c)
        extra = np.array([[seen[t], (right[t] + 1) / (seen[t] + 2)] for t in rows.text])
        x = np.hstack([rows.numeric, extra])
        model = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.08,
                                               max_leaf_nodes=15, random_state=0)
        model.fit(x[train], rows.correct[train])
        return np.asarray(model.predict_proba(x[test])[:, 1])

    return _cross_scores(rows, fold, fit)


def probe_majority(rows: Rows, fold: np.ndarray, items: Sequence[Item]) -> np.ndarray:
    """``wording-majority`` option scores: smoothed rate of (wording, option text) being
    right in training, then of (wording, rank)."""
    keys = [masked(items[i].question) for i in rows.item.tolist()]
    ranks = rows.numeric[:, 9].tolist()

    def fit(train: np.ndarray, test: np.ndarray) -> np.ndarray:
        hit: Counter[tuple[str, str]] = Counter()
        seen: Counter[tuple[str, str]] = Counter()
        for r in np.flatnonzero(train).tolist():
            for key in ((keys[r], "t:" + rows.text[r]), (keys[r], f"r:{ranks[r]}")):
                seen[key] += 1
                hit[key] += bool(rows.correct[r])
        out = []
        for r in np.flatnonzero(test).tolist():
            a, b = (keys[r], "t:" + rows.text[r]), (keys[r], f"r:{ranks[r]}")
            out.append((hit[a] + 1) / (seen[a] + 2) + 1e-3 * (hit[b] + 1) / (seen[b] + 2))
        return np.array(out)

    return _cross_scores(rows, fold, fit)


PROBES = ("ngram-lr", "option-gbm", "wording-majority")
"""Probe names, in report order."""


def blind_correct(items: Sequence[Item], probes: Sequence[str] = PROBES
                  ) -> dict[str, np.ndarray]:
    """Per probe, whether each item was answered right out of fold."""
    # loaded before the thread limit is set, so that it applies to their OpenMP runtime
    import sklearn.ensemble
    import sklearn.linear_model  # noqa: F401
    from threadpoolctl import threadpool_limits

    rows = option_rows(items)
    fold = folds(items)
    out = {}
    with threadpool_limits(1):  # one thread: far faster than several on a busy machine
        for name in probes:
            out[name] = _pick(rows, _scores(name, rows, fold, items), len(items))
    return out


def _scores(name: str, rows: Rows, fold: np.ndarray, items: Sequence[Item]) -> np.ndarray:
    if name == "ngram-lr":
        return probe_ngram(rows, fold)
    if name == "option-gbm":
        return probe_gbm(rows, fold)
    if name == "wording-majority":
        return probe_majority(rows, fold, items)
    raise ValueError(f"unknown probe {name!r}; the probes are {', '.join(PROBES)}")


def slices(items: Sequence[Item]) -> dict[str, list[int]]:
    """Slices of the choice items: all, per group, role, scalar meta value (keys with few
    values), and each of those crossed with role."""
    found: dict[str, list[int]] = defaultdict(list)
    choice = [i for i, item in enumerate(items) if item.choices]
    keys = Counter(k for i in choice for k, v in items[i].meta.items()
                   if isinstance(v, (str, int)) and not isinstance(v, bool))
    few = {k for k in keys if len({str(items[i].meta.get(k)) for i in choice})
           <= max(2, len(choice) // 20)}
    for i in choice:
        item = items[i]
        found["all"].append(i)
        role = f"role={item.role}"
        found[role].append(i)
        names = [f"group={item.group}"] if item.group else []
        names += [f"{k}={item.meta[k]}" for k in sorted(few) if k in item.meta]
        for name in dict.fromkeys(names):
            found[name].append(i)
            found[f"{name}|{role}"].append(i)
    unique: dict[tuple[int, ...], str] = {}
    for name, members in found.items():
        unique.setdefault(tuple(members), name)  # template=1 is group=abs_counting_1 ...
    return {name: found[name] for name in unique.values()}


def audit(items: Sequence[Item], probes: Sequence[str] = PROBES) -> list[SliceResult]:
    """Every probe's blind accuracy on every slice."""
    correct = blind_correct(items, probes)
    chance = np.array(chance_per_item(items))
    out = []
    for name, members in slices(items).items():
        idx = np.array(members)
        for probe, hits in correct.items():
            k = int(hits[idx].sum())
            low, _ = wilson_ci(k, len(idx))
            out.append(SliceResult(probe, name, len(idx), round(100 * k / len(idx), 2), low,
                                   round(100 * float(chance[idx].mean()), 2)))
    return out


def flagged(results: Sequence[SliceResult]) -> list[SliceResult]:
    """The flagged slice results."""
    return [r for r in results if r.flagged]


def table(results: Sequence[SliceResult], min_items: int = 0) -> str:
    """Plain-text table: one line per slice, one column per probe (``*`` marks a flag)."""
    probes = list(dict.fromkeys(r.probe for r in results))
    by: dict[str, dict[str, SliceResult]] = defaultdict(dict)
    for r in results:
        by[r.slice][r.probe] = r
    lines = [f"{'slice':<44} {'n':>5} {'chance':>6} " + " ".join(f"{p:>17}" for p in probes)]
    for name, cells in by.items():
        first = next(iter(cells.values()))
        if first.n < min_items:
            continue
        lines.append(f"{name:<44} {first.n:>5} {first.chance:>6.1f} " + " ".join(
            f"{cells[p].accuracy:>16.1f}{'*' if cells[p].flagged else ' '}" for p in probes))
    return "\n".join(lines)
