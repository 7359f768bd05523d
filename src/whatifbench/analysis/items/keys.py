"""How likely each answer key is wrong, from everyone's answers: a latent-class model whose
mistakes may be shared, so that a disagreement a systematic mistake explains is no evidence
against the key.

Each item has a true answer T. The key equals T with probability 1 − ε (ε learned under a
Beta(20, 1980) prior and kept within 0.2–5 %; a key the item's own program computed, and no
review changed, gets ε = ``EPS_COMPUTED``: only evidence that would overturn a program moves it).
A respondent r answers T with probability σ(α_r,s + δ_i): its ability in the item's stratum s
(the role: a model that ignores premises is weak on counterfactual questions only) plus the
item's difficulty δ_i (normal, its spread τ learned; integrated over by Gauss–Hermite nodes).
Otherwise it errs, and an error

- goes to the item's declared systematic distractor D (``Suite.systematic_distractors``: the
  true answer of another item, such as a counterfactual question's original question, what a
  model that believes its eyes answers, when the item offers it), when D ≠ T, with the
  respondent's susceptibility β_r,s; D is that item's key, or, when its key is itself doubted,
  its most likely answer (a second pass);
- else goes to the item's popular distractor P (unknown, any answer but T, integrated over)
  with probability γ, or to any of the other answers at random.

EM alternates the posterior of (T, P, δ) for every item and the parameters (α and β per
respondent and stratum, γ, τ, ε). A popular distractor chosen by the weaker runs, or the
believe-your-eyes answer chosen by susceptible runs, is explained by γ and β; a wrong key shows
as runs that are strong elsewhere agreeing on another answer. docs/item-quality.md and
docs/statistics.md give its measured precision and recall on simulated populations.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from whatifbench.core.item import Item
from whatifbench.core.suite import Sample

EPS_PRIOR = (20.0, 1980.0)
"""Beta prior of the share of wrong keys: mean 1 %, the weight of 2,000 items, so that the
doubt of many uncertain items (weak runs) cannot feed back into a larger share and more
doubt."""
EPS_BOUNDS = (0.002, 0.05)
"""Bounds of the learned share of wrong keys."""
EPS_COMPUTED = 1e-6
"""Prior probability that a key its item's program computed is wrong."""
NODES = 7
"""Gauss–Hermite nodes of the difficulty."""
ROUNDS = 25
"""Most EM rounds."""
TOL = 1e-4
"""EM stops when no item's posterior moves more than this in a round."""
NEWTON = 2
"""Newton steps per round for the abilities."""
ABILITY_SD = 2.0
"""Standard deviation of the normal prior on an ability (logit scale)."""
SHRINK = 5.0
"""Pseudo-errors pulling a respondent's susceptibility towards the population's."""
GAMMA_PRIOR = (10.0, 20.0)
"""Pseudo-errors for and against the popular distractor (a share of 1/3 weighing as 30
errors): with few errors in all, one item's shared mistake must not teach the model that every
mistake is shared."""
KEY = "\0key"
"""The answer value of a reply the suite scored right."""


@dataclass(frozen=True)
class KeyDoubt:
    """What the answers say about one item's key."""

    p_wrong: float
    """Posterior probability that the key is wrong."""
    likely: str | None
    """The most probable answer other than the key (``None``: nobody gave one)."""
    p_likely: float
    """Its posterior probability."""
    systematic: str | None = None
    """When ``likely`` is the item's declared systematic distractor: why it attracts answers
    (e.g. ``the original question's answer: believes its eyes``)."""


def answer_value(sample: Sample) -> str | None:
    """The answer a sample gives, comparable across runs: ``KEY`` when scored right, the
    normalised prediction when wrong, ``None`` when there is none (unparsed, failed, unsure,
    free text)."""
    if sample.error is not None or sample.correct is None or sample.flag == "unsure":
        return None
    if sample.correct:
        return KEY
    if sample.prediction is None:
        return None
    return normalise(sample.prediction)


def normalise(value: str) -> str:
    """Answers written differently but meaning the same (``3``, ``3.0``; ``Yes``, ``yes``)."""
    text = value.strip().lower()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else str(number)


def options(item: Item, open_sizes: Mapping[str, int]) -> int:
    """How many answers the item has: its options, two for yes/no, else the number of
    different keys of its kind in the dataset (at least two)."""
    if item.choices:
        return len(item.choices)
    if item.kind == "yes-no":
        return 2
    return max(2, open_sizes.get(item.kind, 2))


def offered(value: str | None, item: Item) -> str | None:
    """``value`` when ``item`` offers it as an answer (or has no options), else ``None``. (Not
    the nearest number: in counting questions that is often the counterfactual answer itself,
    and a right answer would be explained away as a believe-your-eyes mistake.)"""
    if value is None or not item.choices:
        return value
    return value if value in {normalise(c) for c in item.choices} else None


@dataclass
class _Layout:
    """The items' answers as arrays: slot 0 the key, then the declared distractor (if any),
    then the other answers given; the last slot (``other``) stands for every answer nobody
    gave."""

    ids: list[str]
    values: list[list[str]]
    m: np.ndarray          # answers per item
    real: np.ndarray       # answers with a slot
    unvoted: np.ndarray    # answers nobody gave (the ``other`` slot's multiplicity)
    dslot: np.ndarray      # the distractor's slot, -1 for none
    stratum: np.ndarray    # the item's stratum index
    eps_fixed: np.ndarray  # NaN, or the prior of a computed key
    vr: np.ndarray         # votes: respondent
    vi: np.ndarray         # votes: item
    vc: np.ndarray         # votes: slot
    slots: int             # K (the last is ``other``)
    strata: int
    respondents: int


def _layout(items: Sequence[Item], answers: Sequence[Mapping[str, str | None]],
            distractors: Mapping[str, str], computed: Collection[str]) -> _Layout:
    open_keys: dict[str, set[str]] = {}
    for item in items:
        if not item.choices and item.kind not in ("yes-no", "text"):
            open_keys.setdefault(item.kind, set()).add(normalise(item.target))
    sizes = {kind: len(keys) for kind, keys in open_keys.items()}
    chosen = [i for i in items if i.kind != "text"]
    index = {item.id: k for k, item in enumerate(chosen)}
    given: list[set[str]] = [set() for _ in chosen]
    vr: list[int] = []
    vi: list[int] = []
    raw: list[str] = []
    for r, mine in enumerate(answers):
        for item_id, value in mine.items():
            k = index.get(item_id)
            if k is not None and value is not None:
                vr.append(r)
                vi.append(k)
                raw.append(value)
                if value != KEY:
                    given[k].add(value)
    values: list[list[str]] = []
    dslot = np.full(len(chosen), -1)
    for k, item in enumerate(chosen):
        row = [KEY]
        d = offered(distractors.get(item.id), item)
        if d is not None and d != normalise(item.target):
            row.append(d)
            dslot[k] = 1
        row += sorted(given[k] - set(row))
        values.append(row)
    m = np.array([max(options(i, sizes), len(v)) for i, v in zip(chosen, values, strict=True)])
    real = np.array([len(v) for v in values])
    slot_of = [{v: s for s, v in enumerate(row)} for row in values]
    vc = [slot_of[k][v] for k, v in zip(vi, raw, strict=True)]
    names: dict[str, int] = {}
    stratum = np.array([names.setdefault(str(i.role), len(names)) for i in chosen])
    eps = np.array([EPS_COMPUTED if i.id in computed else np.nan for i in chosen])
    return _Layout([i.id for i in chosen], values, m, real, m - real, dslot, stratum, eps,
                   np.array(vr, dtype=int), np.array(vi, dtype=int), np.array(vc, dtype=int),
                   int(real.max(initial=1)) + 1, max(len(names), 1), len(answers))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(x, -30.0, 30.0))))


def key_doubts(items: Sequence[Item], answers: Sequence[Mapping[str, str | None]],
               sources: Mapping[str, tuple[str, str]] | None = None,
               computed: Collection[str] = ()) -> dict[str, KeyDoubt]:
    """The doubt about every item's key (free-text items left out) from ``answers``: per
    respondent, the answer value of each item it answered (``answer_value``).
    ``sources``: per item, the item whose true answer is its systematic distractor and why
    that answer attracts mistakes (``Suite.systematic_distractors``); ``computed``: items
    whose key their program computed."""
    by_id = {i.id: i for i in items}
    sources = {k: v for k, v in (sources or {}).items() if k in by_id and v[0] in by_id}
    written = {k: normalise(by_id[src].target) for k, (src, _) in sources.items()}
    found = _doubts(items, answers, written, computed, sources)
    resolved = dict(written)
    for k, (src, _) in sources.items():
        source = found.get(src)
        if source is not None and source.p_wrong >= 0.5 and source.likely is not None:
            resolved[k] = source.likely  # the source's key is doubted: its likely answer
    if resolved != written:
        found = _doubts(items, answers, resolved, computed, sources)
    return found


def _doubts(items: Sequence[Item], answers: Sequence[Mapping[str, str | None]],
            distractors: Mapping[str, str], computed: Collection[str],
            sources: Mapping[str, tuple[str, str]]) -> dict[str, KeyDoubt]:
    lay = _layout(items, answers, distractors, computed)
    if not lay.ids:
        return {}
    post = _fit(lay)
    out: dict[str, KeyDoubt] = {}
    for k, item_id in enumerate(lay.ids):
        others = [(float(post[k, s]), s) for s in range(1, lay.real[k])]
        best = max(others, default=(0.0, -1), key=lambda ps: (ps[0], -ps[1]))
        likely = lay.values[k][best[1]] if best[1] > 0 else None
        why = sources[item_id][1] if best[1] == lay.dslot[k] and best[1] > 0 else None
        out[item_id] = KeyDoubt(float(1.0 - post[k, 0]), likely, best[0], why)
    return out


def _fit(lay: _Layout) -> np.ndarray:
    """EM; the posterior of T over the slots of every item (the last: an answer nobody
    gave). Votes are summed through sparse count matrices (cells × respondent-strata, items ×
    respondent-strata): a respondent's probabilities depend only on its stratum and the node."""
    from numpy.polynomial.hermite_e import hermegauss
    from scipy.sparse import csr_matrix

    n_items, k_slots = len(lay.ids), lay.slots
    size = lay.respondents * lay.strata
    other = k_slots - 1
    nodes, weights = hermegauss(NODES)
    log_w = np.log(weights / weights.sum())
    slot = np.arange(k_slots)
    real_t = slot[None, :] < lay.real[:, None]
    valid_t = real_t | ((slot[None, :] == other) & (lay.unvoted[:, None] > 0))
    has_d = (lay.dslot[:, None] >= 0) & (slot[None, :] != lay.dslot[:, None])  # [i, t]
    is_d = slot[None, :] == lay.dslot[:, None]                                  # [i, P]
    r_s = lay.vr * lay.strata + lay.stratum[lay.vi]
    ones = np.ones(len(r_s))
    cells = csr_matrix((ones, (lay.vi * k_slots + lay.vc, r_s)), shape=(n_items * k_slots, size))
    by_item = csr_matrix((ones, (lay.vi, r_s)), shape=(n_items, size))
    n = np.asarray(cells.sum(axis=1)).reshape(n_items, k_slots)
    total = n.sum(axis=1)
    unvoted_p = lay.unvoted[:, None] - (slot[None, :] == other)                 # [i, t]
    valid_p = (valid_t[:, :, None] & valid_t[:, None, :]
               & (slot[None, :, None] != slot[None, None, :])
               & ~((slot[None, None, :] == other) & (unvoted_p[:, :, None] <= 0)))
    log_m1 = np.log(lay.m - 1.0)
    lp_p = np.where(slot[None, None, :] == other,
                    np.log(np.maximum(unvoted_p[:, :, None], 1)) - log_m1[:, None, None],
                    -log_m1[:, None, None])
    d_vote = lay.vc == lay.dslot[lay.vi]
    d_items, d_rs = lay.vi[d_vote], r_s[d_vote]
    rows = np.arange(n_items)
    d_idx = np.maximum(lay.dslot, 0)
    n_d = np.where(lay.dslot >= 0, n[rows, d_idx], 0.0)

    share = np.bincount(r_s, weights=(lay.vc == 0).astype(float), minlength=size)
    seen = np.bincount(r_s, minlength=size)
    # nobody is credited with less than guessing: without this floor "every answer is a
    # mistake and the truth is one nobody gave" explains any data
    floor = float(np.log(1.0 / (np.median(lay.m) - 1.0)))
    alpha = np.maximum(np.log((share + 1.0) / (seen - share + 1.0)), floor)
    beta = np.full(size, 0.2)
    gamma, tau, eps = 0.3, 1.0, 0.01
    post = np.zeros((n_items, k_slots))
    for _ in range(ROUNDS):
        delta = tau * nodes
        q = _sigmoid(alpha[:, None] + delta[None, :])                            # [rs, g]
        s1 = np.asarray(cells @ np.log(q)).reshape(n_items, k_slots, NODES)
        s0 = np.asarray(cells @ np.log1p(-q)).reshape(n_items, k_slots, NODES)
        a_term = s1 - s0 + s0.sum(axis=1, keepdims=True)                        # [i, t, g]
        xm = (1.0 - gamma) / (lay.m - 1.0)
        xh = gamma + xm
        log_xm, log_gain = np.log(xm), np.log(xh) - np.log(xm)
        lb = np.asarray(cells @ np.log1p(-beta)).reshape(n_items, k_slots)
        b_d = beta[d_rs]
        dd_hit = np.bincount(d_items, weights=np.log(b_d + (1.0 - b_d) * xh[d_items]),
                             minlength=n_items)
        dd_miss = np.bincount(d_items, weights=np.log(b_d + (1.0 - b_d) * xm[d_items]),
                              minlength=n_items)
        lb_d = np.where(lay.dslot >= 0, lb[rows, d_idx], 0.0)
        base = np.where(has_d,
                        lb.sum(axis=1, keepdims=True) - lb - lb_d[:, None]
                        + (total[:, None] - n - n_d[:, None]) * log_xm[:, None],
                        (total[:, None] - n) * log_xm[:, None])                # [i, t]
        d_term = np.where(has_d[:, :, None],
                          np.where(is_d[:, None, :], dd_hit[:, None, None],
                                   dd_miss[:, None, None]), 0.0)
        pop = np.where(has_d[:, :, None] & is_d[:, None, :], 0.0,
                       n[:, None, :] * log_gain[:, None, None])
        # P is independent of the difficulty given T: sum it out first
        lp_dp = np.where(valid_p, lp_p + d_term + pop, -np.inf)                    # [i, t, P]
        top_p = np.max(lp_dp, axis=2, keepdims=True)
        top_p = np.where(np.isfinite(top_p), top_p, 0.0)
        w_p = np.exp(lp_dp - top_p)
        mass_p = w_p.sum(axis=2, keepdims=True)
        share_p = np.divide(w_p, mass_p, out=np.zeros_like(w_p), where=mass_p > 0)
        with np.errstate(divide="ignore"):
            lb_t = np.log(mass_p[:, :, 0]) + top_p[:, :, 0]                        # [i, t]
        eps_i = np.where(np.isnan(lay.eps_fixed), eps, lay.eps_fixed)
        lp_t = np.where(slot[None, :] == 0, np.log1p(-eps_i)[:, None],
                        np.log(eps_i)[:, None] - log_m1[:, None]
                        + np.where(slot[None, :] == other,
                                   np.log(np.maximum(lay.unvoted, 1))[:, None], 0.0))
        log_tg = (lp_t + base + lb_t)[:, :, None] + log_w[None, None, :] + a_term
        log_tg = np.where(valid_t[:, :, None], log_tg, -np.inf)
        log_tg -= log_tg.max(axis=(1, 2), keepdims=True)
        ptg = np.exp(log_tg)
        ptg /= ptg.sum(axis=(1, 2), keepdims=True)                              # [i, t, g]
        pg = ptg.sum(axis=1)                                                    # [i, g]
        previous = post
        post = ptg.sum(axis=2)                                                  # [i, t]
        ptp = post[:, :, None] * share_p                                        # [i, t, P]
        right = np.asarray(cells.T @ ptg.reshape(n_items * k_slots, NODES))     # [rs, g]
        weight = np.asarray(by_item.T @ pg)                                     # [rs, g]
        alpha = np.maximum(_abilities(alpha, right, weight, delta), floor)
        # a vote is an error under T = t ≠ its slot, where the item has a distractor ≠ t
        chance = (np.where(has_d, post, 0.0).sum(axis=1, keepdims=True)
                  - np.where(has_d, post, 0.0))                                 # [i, c]
        chances = np.asarray(cells.T @ chance.ravel())
        beta = _susceptibility(post, ptp, has_d, beta, xh, xm, d_items, d_rs,
                               lay.dslot, chances)
        gamma = _attraction(n, post, ptp, has_d, b_d, xh, xm, d_items, lay.dslot, gamma)
        spread = float(np.mean(pg @ nodes ** 2))
        tau = float(min(max(tau * math.sqrt(max(spread, 1e-6)), 0.3), 3.0))
        free = np.isnan(lay.eps_fixed)
        doubt = float(np.sum(1.0 - post[free, 0]))
        eps = (doubt + EPS_PRIOR[0] - 1.0) / (int(free.sum()) + sum(EPS_PRIOR) - 2.0)
        eps = min(max(eps, EPS_BOUNDS[0]), EPS_BOUNDS[1])
        if float(np.max(np.abs(post - previous))) < TOL:
            break
    return post


def _abilities(alpha: np.ndarray, right: np.ndarray, weight: np.ndarray,
               delta: np.ndarray) -> np.ndarray:
    """Newton steps for every respondent's ability per stratum: summed over its votes, the
    posterior that a vote named T at each difficulty node (``right``) against the node's
    weight (``weight``)."""
    for _ in range(NEWTON):
        q = _sigmoid(alpha[:, None] + delta[None, :])
        grad = (right - weight * q).sum(axis=1) - alpha / ABILITY_SD ** 2
        hess = (weight * q * (1.0 - q)).sum(axis=1) + 1.0 / ABILITY_SD ** 2
        alpha = alpha + np.clip(grad / hess, -2.0, 2.0)
    return alpha


def _susceptibility(post: np.ndarray, ptp: np.ndarray, has_d: np.ndarray, beta: np.ndarray,
                    xh: np.ndarray, xm: np.ndarray, d_items: np.ndarray, d_rs: np.ndarray,
                    dslot: np.ndarray, chances: np.ndarray) -> np.ndarray:
    """Each respondent's share of errors that went to the systematic distractor, over the
    errors it could have made there (``chances``), shrunk towards the population's share."""
    # a vote for the distractor was systematic with β / (β + (1 − β) x)
    hit = ptp[d_items, :, dslot[d_items]]                                      # [v, t]
    miss = post[d_items] - hit
    bv = beta[d_rs]
    sys_hit = bv / (bv + (1.0 - bv) * xh[d_items])
    sys_miss = bv / (bv + (1.0 - bv) * xm[d_items])
    mass = np.where(has_d[d_items], hit * sys_hit[:, None] + miss * sys_miss[:, None], 0.0)
    made = np.bincount(d_rs, weights=mass.sum(axis=1), minlength=len(beta))
    pooled = (made.sum() + 1.0) / (chances.sum() + 2.0)
    return np.asarray(np.clip((made + SHRINK * pooled) / (chances + SHRINK), 0.0, 0.95))


def _attraction(n: np.ndarray, post: np.ndarray, ptp: np.ndarray, has_d: np.ndarray,
                bv: np.ndarray, xh: np.ndarray, xm: np.ndarray, d_items: np.ndarray,
                dslot: np.ndarray, gamma: float) -> float:
    """The share of free errors (not the systematic distractor's) that go to an item's
    popular distractor."""
    k_slots = n.shape[1]
    slot = np.arange(k_slots)
    # counted per item and slot for every vote, then the distractor's votes corrected by their
    # systematic share
    not_t = 1.0 - np.eye(k_slots)[None, :, :]                                  # [., t, c]
    free = (post[:, :, None] * not_t).sum(axis=1)                              # [i, c]
    pop = (ptp * not_t).sum(axis=1) * gamma / xh[:, None]                      # P = c
    e_free = float(np.sum(n * free))
    e_pop = float(np.sum(n * pop))
    if len(d_items):
        vi = d_items
        d_slot = dslot[vi]
        hit = ptp[vi, :, d_slot]                                               # P = D
        miss = post[vi] - hit
        keep_hit = (1.0 - bv) * xh[vi] / (bv + (1.0 - bv) * xh[vi])
        keep_miss = (1.0 - bv) * xm[vi] / (bv + (1.0 - bv) * xm[vi])
        errs = has_d[vi] & (slot[None, :] != d_slot[:, None])
        over = np.where(errs, 1.0, 0.0)
        # remove what the per-item count credited these votes with, add their free share
        e_free -= float(np.sum(over * (hit + miss)))
        e_pop -= float(np.sum(over * hit * gamma / xh[vi][:, None]))
        e_free += float(np.sum(over * (hit * keep_hit[:, None] + miss * keep_miss[:, None])))
        e_pop += float(np.sum(over * hit * keep_hit[:, None] * gamma / xh[vi][:, None]))
    return float(min(max((e_pop + GAMMA_PRIOR[0]) / (e_free + sum(GAMMA_PRIOR)), 0.0), 0.95))
