"""The two-parameter logistic (2PL) IRT model: fitting item parameters from a response matrix
with missing cells (marginal maximum likelihood by EM, Bock & Aitkin 1981, with normal priors on
the parameters: Bayes modal), and a respondent's ability on a fixed bank (EAP).

P(right | θ) = 1 / (1 + exp(-(a·θ + d))): ``a`` is the discrimination, ``d`` the intercept and
``b = -d / a`` the difficulty. Abilities are standard normal in the population of respondents
that fitted the bank (that fixes the scale). The discrimination's prior is normal, not
log-normal, so that an item whose stronger respondents get it wrong more often (a wrong key)
can show a negative ``a``.

Written here rather than taken from a library: girth's MML took over eight minutes on a
1,000-item, 60-respondent matrix; mirt (Python) fits quickly without priors but took longer
than ten minutes with the priors we need (items every run gets right, negative
discrimination); py-irt needs pyro and torch. See docs/item-quality.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GRID = np.linspace(-6.0, 6.0, 61)
"""Quadrature points of the ability scale."""
A_PRIOR = (1.0, 1.0)
"""Mean and standard deviation of the normal prior on the discrimination ``a``."""
D_PRIOR = (0.0, 2.0)
"""Mean and standard deviation of the normal prior on the intercept ``d``."""


@dataclass(frozen=True)
class Fit:
    """Fitted 2PL parameters of each column of a response matrix."""

    a: np.ndarray
    """Discrimination per item."""
    d: np.ndarray
    """Intercept per item (``P = σ(a·θ + d)``)."""
    theta: np.ndarray
    """Each respondent's ability (EAP under the fitted parameters)."""
    iterations: int
    """EM cycles run."""
    converged: bool
    """The largest parameter change fell below the tolerance."""

    @property
    def b(self) -> np.ndarray:
        """Difficulty ``-d / a`` (``nan`` where ``|a|`` is below 0.05: no usable difficulty)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.abs(self.a) >= 0.05, -self.d / self.a, np.nan)


def _prior_weights() -> np.ndarray:
    w = np.exp(-0.5 * GRID ** 2)
    return w / w.sum()


def prob(a: np.ndarray, d: np.ndarray, theta: np.ndarray | float) -> np.ndarray:
    """P(right) of each item (rows) at each ability (columns)."""
    z = np.outer(a, np.atleast_1d(theta)) + d[:, None]
    return 1.0 / (1.0 + np.exp(-np.clip(z, -35.0, 35.0)))


def information(a: np.ndarray, d: np.ndarray, theta: float) -> np.ndarray:
    """Fisher information of each item at ``theta``: a² P (1 - P)."""
    p = prob(a, d, theta)[:, 0]
    return np.asarray(a ** 2 * p * (1.0 - p))


def _log_likelihood(y: np.ndarray, m: np.ndarray, a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Log-likelihood of each respondent's answers (rows of ``y``, observed where ``m``) at each
    grid point."""
    p = prob(a, d, GRID)
    logp, logq = np.log(p), np.log1p(-p)
    return np.asarray(_dot(y, logp) + _dot(m - y, logq))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` without BLAS threads: these products are small, and BLAS's threads spin
    against every other process on a shared machine (25 times slower under load)."""
    return np.asarray(np.einsum("ij,jk->ik", a, b))


def posterior(y: np.ndarray, m: np.ndarray, a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Each respondent's posterior over ``GRID`` (rows sum to one)."""
    log_post = _log_likelihood(y, m, a, d) + np.log(_prior_weights())[None, :]
    log_post -= log_post.max(axis=1, keepdims=True)
    post = np.exp(log_post)
    return np.asarray(post / post.sum(axis=1, keepdims=True))


def fit_2pl(responses: np.ndarray, observed: np.ndarray, max_iter: int = 500,
            tol: float = 1e-4) -> Fit:
    """Fit a 2PL to ``responses`` (respondents × items, 1 right, 0 wrong) where ``observed``
    is true; other cells are missing. Deterministic."""
    m = observed.astype(float)
    y = np.where(observed, responses, 0).astype(float)
    n_items = y.shape[1]
    share = (y.sum(axis=0) + 0.5) / (m.sum(axis=0) + 1.0)
    a = np.ones(n_items)
    d = np.log(share / (1.0 - share))
    (ma, sa), (md, sd) = A_PRIOR, D_PRIOR
    converged = False
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        post = posterior(y, m, a, d)
        right = _dot(y.T, post)     # expected right answers per item and grid point
        total = _dot(m.T, post)     # expected answers per item and grid point
        a_old, d_old = a.copy(), d.copy()
        for _ in range(2):          # Newton steps of the M-step, every item at once
            p = prob(a, d, GRID)
            resid = right - total * p
            w = total * p * (1.0 - p)
            ga = resid @ GRID - (a - ma) / sa ** 2
            gd = resid.sum(axis=1) - (d - md) / sd ** 2
            haa = -(w @ GRID ** 2) - 1.0 / sa ** 2
            hdd = -w.sum(axis=1) - 1.0 / sd ** 2
            had = -(w @ GRID)
            det = haa * hdd - had ** 2
            step_a = (hdd * ga - had * gd) / det
            step_d = (haa * gd - had * ga) / det
            a = a - np.clip(step_a, -1.0, 1.0)
            d = d - np.clip(step_d, -2.0, 2.0)
        change = max(float(np.max(np.abs(a - a_old))), float(np.max(np.abs(d - d_old))))
        if change < tol:
            converged = True
            break
    theta = posterior(y, m, a, d) @ GRID
    return Fit(a, d, theta, iterations, converged)


@dataclass(frozen=True)
class Ability:
    """A respondent's ability on a bank: the posterior over ``GRID`` and its summary."""

    weights: np.ndarray
    """Posterior probability of each grid point."""
    mean: float
    """EAP estimate."""
    sd: float
    """Posterior standard deviation."""


def ability(a: np.ndarray, d: np.ndarray, answers: np.ndarray) -> Ability:
    """The ability of one respondent who answered items with parameters ``a``, ``d``
    (``answers``: 1 right, 0 wrong), under the standard normal prior."""
    y = np.asarray(answers, dtype=float)[None, :]
    post = posterior(y, np.ones_like(y), np.asarray(a, float), np.asarray(d, float))[0]
    mean = float(post @ GRID)
    sd = float(np.sqrt(max(post @ (GRID - mean) ** 2, 0.0)))
    return Ability(post, mean, sd)
