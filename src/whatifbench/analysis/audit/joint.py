"""The pair-aware blind guesser: a whole pair (or contrast set) guessed at once from the texts
of all its members.

A guesser of one question at a time misses what the members of a pair say about each other:
C-VQA's "if 3 were removed" makes every counterfactual option an original option minus 3, a
CELLO contrast set always splits Yes and No, a CFMM premise that changes the answer in 80 % of
the pairs makes "the other option" right 80 % of the time. Reading both texts, a guesser picks
the pair's two answers together, and its share of whole pairs right is the blind floor of the
paired metrics (acc+, pair accuracy, all-right per set).

``joint_guess`` enumerates every joint answer of a unit (a pair id with two or more closed
members; at most ``JOINT_LIMIT`` joint answers) and scores each with a logistic-regression
scorer (the text baselines' learner) of its features: each member's option position and
numeric rank, and between the first member and each other one how their two options relate
(equal, the other of the same two, their difference and its sign, a difference the later
question names, their positions and ranks), crossed with the group and with the later
question's masked wording (so that "mirrored left to right" can learn "the other one"); for
yes/no members the number of Yes answers. It is trained and scored out of fold (folds by unit,
stratified by group), ties broken at random.

**Joint chance.** Guessing each member alone is right on a whole pair with the product of 1/K.
A pair whose texts fix how its answers relate can do better without any shortcut: if every
counterfactual of a template is its original minus the number its premise names, a guess of
the original gives the counterfactual. The joint chance of a unit is 1 / (the number of its
joint answers that keep every relation holding for *all* units of its group: equal answers,
the other of the same two options, a difference the later question names, the sign of the
difference, the number of Yes answers of a yes/no set, every member's answer another one: 1/24
for a CELLO set of four). It is the figure the guesser is set
beside (and flagged against), and what the documentation calls the chance of a pair or set
metric. The control recombines later members across units of the same group and types.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from whatifbench.analysis.audit.baselines import FOLDS, SEED, _sgd, assign_folds
from whatifbench.analysis.audit.learners import JITTER
from whatifbench.analysis.audit.metadata import MetaView
from whatifbench.analysis.audit.probes import ProbeOutcome
from whatifbench.analysis.audit.text import (
    answer_number,
    name_words,
    normal,
    question_numbers,
    strip_listing,
    tokens,
    wording,
)
from whatifbench.core.item import ROLES

JOINT_LIMIT = 256
"""Units with more joint answers than this are left out."""
MAX_DIFF = 15
"""Differences of numeric options are told apart up to this size (larger: clipped)."""
NAME = "joint guess"
"""The probe's name in the audit."""


@dataclass(frozen=True)
class Unit:
    """One pair or set guessed at once."""

    members: tuple[int, ...]
    """Indexes into the view's items: the first role first, then file order."""
    group: str
    """The first member's group (the stratum)."""


def units_of(view: MetaView) -> list[Unit]:
    """The units of a view: per pair id its closed members (two or more, with answers among
    their options and at most ``JOINT_LIMIT`` joint answers)."""
    found: dict[str, list[int]] = {}
    for i, item in enumerate(view.items):
        if item.pair_id is not None:
            found.setdefault(item.pair_id, []).append(i)
    out = []
    for members in found.values():
        if len(members) < 2 or any(view.target[i] < 0 for i in members):
            continue
        if int(np.prod([len(view.choices[i]) for i in members])) > JOINT_LIMIT:
            continue
        ordered = sorted(members, key=lambda i: (_role_rank(view, i), i))
        out.append(Unit(tuple(ordered), view.items[ordered[0]].group or ""))
    return out


def _role_rank(view: MetaView, i: int) -> int:
    role = view.items[i].role
    return ROLES.index(role) if role in ROLES else len(ROLES)


def _ranks(values: Sequence[str]) -> list[int] | None:
    numbers = [answer_number(v) for v in values]
    known = [n for n in numbers if n is not None]
    if len(known) != len(numbers):
        return None
    ordered = sorted(set(known))
    return [ordered.index(n) for n in known]


class _Texts:
    """What the features read of each item: masked wording, named numbers, option ranks."""

    def __init__(self, view: MetaView) -> None:
        names = name_words(view.items)
        self.wording: list[str] = []
        self.named: list[set[float]] = []
        self.ranks: list[list[int] | None] = []
        for item, choices in zip(view.items, view.choices, strict=True):
            words = tokens(strip_listing(item.question, item.choices))
            self.wording.append(wording(words, names))
            self.named.append({abs(n) for n in question_numbers(words) if n})
            self.ranks.append(_ranks(choices))


def relations(b: str, c: str, first: Sequence[str], later: Sequence[str],
              named: set[float]) -> list[str]:
    """How a later member's option ``c`` relates to the first member's option ``b``."""
    out = ["equal" if normal(b) == normal(c) else "differ"]
    if normal(b) != normal(c) and {normal(x) for x in first} == {normal(x) for x in later} \
            and len(first) == 2:
        out.append("other")
    x, y = answer_number(b), answer_number(c)
    if x is not None and y is not None:
        d = y - x
        out.append(f"sign{'+' if d > 0 else '-' if d < 0 else '0'}")
        out.append(f"diff{int(max(-MAX_DIFF, min(MAX_DIFF, d)))}")
        if d and abs(d) in named:
            out.append("named")
    return out


def _features(view: MetaView, texts: _Texts, unit: Sequence[int], joint: Sequence[int]
              ) -> list[str]:
    group = view.items[unit[0]].group or ""
    out = []
    yes = 0
    for i, j in zip(unit, joint, strict=True):
        kind = view.types[i]
        ranks = texts.ranks[i]
        answer = normal(view.choices[i][j])
        out += [f"{kind}|pos{j}", f"{kind}|{texts.wording[i]}|pos{j}",
                f"{kind}|{texts.wording[i]}|{answer}"]
        if ranks is not None:
            out.append(f"{kind}|rank{ranks[j]}")
        yes += answer == "yes"
    first, j0 = unit[0], joint[0]
    b = view.choices[first][j0]
    for i, j in zip(unit[1:], joint[1:], strict=True):
        rel = relations(b, view.choices[i][j], view.choices[first], view.choices[i],
                        texts.named[i])
        ranks0, ranks = texts.ranks[first], texts.ranks[i]
        rel.append(f"pos{j0}>{j}")
        if ranks0 is not None and ranks is not None:
            rel.append(f"rank{ranks0[j0]}>{ranks[j]}")
        out += [f"{group}|{r}" for r in rel]
        out += [f"{group}|{texts.wording[i]}|{r}" for r in rel]
    if all(normal(c) in ("yes", "no") for i in unit for c in view.choices[i]):
        out.append(f"{group}|{len(unit)}|yes{yes}")
    return out


def _rule_keys(view: MetaView, texts: _Texts, unit: Sequence[int], joint: Sequence[int]
               ) -> frozenset[str]:
    """The relations a joint answer keeps (what ``joint_chance`` looks for in every unit)."""
    keys: set[str] = set()
    first, j0 = unit[0], joint[0]
    for k, (i, j) in enumerate(zip(unit[1:], joint[1:], strict=True), start=1):
        for r in relations(view.choices[first][j0], view.choices[i][j], view.choices[first],
                           view.choices[i], texts.named[i]):
            if not r.startswith("diff"):
                keys.add(f"{k}:{r}")
    answers = [normal(view.choices[i][j]) for i, j in zip(unit, joint, strict=True)]
    if all(a in ("yes", "no") for a in answers):
        keys.add(f"yes{answers.count('yes')}")
    if len(set(answers)) == len(answers):  # a contrast set: every member another answer
        keys.add("distinct")
    return frozenset(keys)


def _joints(view: MetaView, unit: Sequence[int]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(len(view.choices[i])) for i in unit)))


def joint_chances(view: MetaView, units: Sequence[Unit], texts: _Texts) -> np.ndarray:
    """Per unit its joint chance (module docstring): 1 / the joint answers that keep every
    relation the group's units all keep."""
    truth = [tuple(int(view.target[i]) for i in u.members) for u in units]
    kept: dict[tuple[str, int], frozenset[str]] = {}
    for u, t in zip(units, truth, strict=True):
        key = (u.group, len(u.members))
        keys = _rule_keys(view, texts, u.members, t)
        kept[key] = kept[key] & keys if key in kept else keys
    out = []
    for u in units:
        rules = kept[(u.group, len(u.members))]
        fits = sum(1 for joint in _joints(view, u.members)
                   if rules <= _rule_keys(view, texts, u.members, joint))
        out.append(1.0 / max(1, fits))
    return np.array(out)


def _guess(view: MetaView, texts: _Texts, units: Sequence[Unit],
           members: Sequence[tuple[int, ...]], truth: Sequence[tuple[int, ...]],
           unit_fold: np.ndarray) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Out-of-fold: per unit whether the best-scored joint answer is the truth, and that
    answer."""
    from scipy.sparse import csr_matrix

    vocab: dict[str, int] = {}
    row_unit: list[int] = []
    row_joint: list[tuple[int, ...]] = []
    rows: list[int] = []
    cols: list[int] = []
    for u, m in enumerate(members):
        for joint in _joints(view, m):
            names = _features(view, texts, m, joint)
            rows += [len(row_unit)] * len(names)
            cols += [vocab.setdefault(n, len(vocab)) for n in names]
            row_unit.append(u)
            row_joint.append(joint)
    of_row = np.array(row_unit, dtype=np.int64)
    x = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(row_unit), max(1, len(vocab))))
    x.sum_duplicates()
    x.data[:] = 1.0
    label = np.array([row_joint[r] == truth[row_unit[r]] for r in range(len(row_unit))])
    jitter = np.random.default_rng(SEED + 21).random(len(row_unit)) * JITTER
    picked: list[tuple[int, ...]] = [() for _ in units]
    for k in sorted(set(unit_fold.tolist())):
        test = unit_fold[of_row] == k
        scores = jitter.copy()
        train = ~test
        if vocab and label[train].any() and not label[train].all():
            model = _sgd().fit(x[train], label[train])
            scores[test] += model.decision_function(x[test])
        best: dict[int, tuple[float, int]] = {}
        for r in np.flatnonzero(test).tolist():
            u = row_unit[r]
            if u not in best or scores[r] > best[u][0]:
                best[u] = (float(scores[r]), r)
        for u, (_, r) in best.items():
            picked[u] = row_joint[r]
    right = np.array([picked[u] == truth[u] for u in range(len(units))], dtype=bool)
    return right, picked


def _recombined(view: MetaView, units: Sequence[Unit]) -> list[tuple[int, ...]]:
    """The control's units: every later member swapped with the same member of another unit of
    the same group and member types (a seeded permutation)."""
    shapes: dict[tuple[str, ...], list[int]] = {}
    for u, unit in enumerate(units):
        key = (unit.group, *(view.types[i] for i in unit.members),
               *(str(len(view.choices[i])) for i in unit.members))
        shapes.setdefault(key, []).append(u)
    rng = np.random.default_rng(SEED + 22)
    mixed = [list(u.members) for u in units]
    for found in shapes.values():
        for position in range(1, len(units[found[0]].members)):
            donors = [found[k] for k in rng.permutation(len(found))]
            for u, d in zip(found, donors, strict=True):
                mixed[u][position] = units[d].members[position]
    return [tuple(m) for m in mixed]


@dataclass(frozen=True)
class JointResult:
    """The pair-aware guesser's outcome."""

    probe: ProbeOutcome
    """Per unit: right, control, joint chance (``scored``: each unit's first member)."""
    per_item: dict[int, bool]
    """Per member (view index): the joint guess is right on it."""
    independent: np.ndarray
    """Per unit: the chance of guessing each member alone (the product of 1/K)."""


def joint_guess(view: MetaView) -> JointResult:
    """The ``joint guess`` probe: every unit guessed at once, out of fold, with its control."""
    units = units_of(view)
    texts = _Texts(view)
    if not units:
        empty = np.zeros(0)
        return JointResult(ProbeOutcome(NAME, READS, "pair", (), empty.astype(bool),
                                        empty.astype(bool), empty), {}, empty)
    count = min(FOLDS, len(units))
    unit_fold = assign_folds([view.items[u.members[0]].pair_id or str(k)
                              for k, u in enumerate(units)], [u.group for u in units],
                             max(count, 1))
    members = [u.members for u in units]
    truth = [tuple(int(view.target[i]) for i in m) for m in members]
    right, picked = _guess(view, texts, units, members, truth, unit_fold)
    mixed = _recombined(view, units)
    mixed_truth = [tuple(int(view.target[i]) for i in m) for m in mixed]
    control, _ = _guess(view, texts, units, mixed, mixed_truth, unit_fold)
    per_item = {i: bool(j == int(view.target[i]))
                for m, joint in zip(members, picked, strict=True)
                for i, j in zip(m, joint, strict=True)}
    independent = np.array([float(np.prod([1.0 / len(view.choices[i]) for i in m]))
                            for m in members])
    return JointResult(ProbeOutcome(NAME, READS, "pair", tuple(m[0] for m in members), right,
                                    control, joint_chances(view, units, texts)),
                       per_item, independent)


READS = ("the questions and options of every member of a pair or set at once (how their "
         "answers relate), out of fold")


def joint_entry(view: MetaView, result: JointResult) -> dict[str, object]:
    """The probe's audit entry (as ``probe_results.probe_entry``) with the chance of guessing
    each member alone beside the joint chance."""
    from whatifbench.analysis.audit.probe_results import probe_entry

    entry = probe_entry(view, result.probe)
    n = len(result.independent)
    entry["chance_independent"] = round(100.0 * float(result.independent.mean()), 2) if n \
        else None
    return entry
