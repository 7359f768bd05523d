"""Simulated datasets and populations of runs that behave like real VLMs, for measuring the key
model's flags (``keyflags``) on data unlike its own assumptions.

A dataset is ``pairs`` original/counterfactual pairs of four-option questions (C-VQA-like: the
counterfactual question offers the original's answer, what a model that believes its eyes
says). A run has an ability θ; on an item with discrimination a and difficulty b it knows the
answer with probability σ(a(θ − b)) and otherwise guesses. The kinds:

- ``independent``: guesses uniformly among the four options (a 2PL with 4-option guessing);
- ``shared-distractor``: a guess goes to the item's popular distractor with the item's pull
  (Beta(5, 2), mean 0.71), else uniformly: every run makes the same mistakes;
- ``believe-your-eyes``: on a counterfactual question a run answers the original question's
  answer with its susceptibility (Beta(2, 3), mean 0.4) before anything else;
- ``weak``: independent, abilities two units lower (about 35 % right).

Every question's difficulty is N(0, 1): in the believe-your-eyes population a run is right on
about 63 % of the original questions and 39 % of the counterfactual ones, the figures of the
runs that made the old key flags fire. Planted wrong keys replace the key of random items by
another option; the runs answer the true question.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from whatifbench.core.item import Item

KINDS = ("independent", "shared-distractor", "believe-your-eyes", "weak")
"""The populations."""
OPTIONS = 4
"""Options per question."""
MEAN_ABILITY = {"independent": 0.0, "shared-distractor": 0.0, "believe-your-eyes": 0.0,
                "weak": -2.0}
"""Mean ability of each population (standard deviation 1)."""


@dataclass(frozen=True)
class SimDataset:
    """A simulated dataset: items (with their keys as written, planted ones included) and
    what a run's answers depend on."""

    items: tuple[Item, ...]
    """The items (original, counterfactual, original, ...), keys as written."""
    truth: tuple[str, ...]
    """Each item's true answer."""
    a: np.ndarray
    """Discrimination per item."""
    b: np.ndarray
    """Difficulty per item."""
    popular: tuple[str, ...]
    """Each item's popular distractor (the shared-distractor population's)."""
    pull: np.ndarray
    """Share of guesses that go to it."""
    eyes: tuple[str | None, ...]
    """A counterfactual question's believe-your-eyes answer (the original's true answer)."""
    planted: frozenset[str]
    """Items whose key was changed."""


def dataset(pairs: int = 300, planted: int = 0, seed: int = 0) -> SimDataset:
    """``pairs`` pairs with ``planted`` random keys changed to another option."""
    rng = np.random.default_rng(seed)
    items: list[Item] = []
    truth: list[str] = []
    eyes: list[str | None] = []
    for p in range(pairs):
        values = [str(v) for v in rng.choice(30, size=6, replace=False)]
        original = values[:4]
        seen = values[0]
        # the counterfactual question offers the original's answer among its options
        cf = [values[4], values[5], seen, values[1]]
        order = rng.permutation(4)
        cf = [cf[k] for k in order]
        for role, choices, answer, eye in (("original", original, seen, None),
                                           ("counterfactual", cf, values[4], seen)):
            shuffled = [choices[k] for k in rng.permutation(4)]
            items.append(Item(f"p{p}-{role[0]}", (), "q", "choice", answer, tuple(shuffled),
                              f"p{p}", role, "g"))
            truth.append(answer)
            eyes.append(eye)
    a = np.exp(rng.normal(0.2, 0.3, size=len(items)))
    b = rng.normal(0.0, 1.0, size=len(items))
    popular = tuple(str(rng.choice([c for c in i.choices if c != i.target])) for i in items)
    pull = rng.beta(5.0, 2.0, size=len(items))
    changed = (set(rng.choice(len(items), size=planted, replace=False).tolist()) if planted
               else set())
    written = []
    for k, item in enumerate(items):
        if k in changed:
            wrong = [c for c in item.choices if c != item.target]
            item = replace(item, target=wrong[int(rng.integers(len(wrong)))])
        written.append(item)
    return SimDataset(tuple(written), tuple(truth), a, b, popular, pull, tuple(eyes),
                      frozenset(items[k].id for k in changed))


def answers(ds: SimDataset, kind: str, runs: int, seed: int = 0) -> list[dict[str, str]]:
    """Each run's answer (an option's text) to every item."""
    if kind not in KINDS:
        raise ValueError(f"unknown population {kind!r}; one of {', '.join(KINDS)}")
    rng = np.random.default_rng(seed)
    theta = rng.normal(MEAN_ABILITY[kind], 1.0, size=runs)
    susceptible = rng.beta(2.0, 3.0, size=runs) if kind == "believe-your-eyes" else np.zeros(runs)
    p_know = 1.0 / (1.0 + np.exp(-ds.a[None, :] * (theta[:, None] - ds.b[None, :])))
    know = rng.random(p_know.shape) < p_know
    pulled = rng.random(p_know.shape) < ds.pull[None, :]
    guess = rng.integers(0, OPTIONS, size=p_know.shape)
    eyes = rng.random(p_know.shape) < susceptible[:, None]
    out: list[dict[str, str]] = []
    for r in range(runs):
        mine = {}
        for k, item in enumerate(ds.items):
            eye = ds.eyes[k]
            if eye is not None and eyes[r, k]:
                mine[item.id] = eye
            elif know[r, k]:
                mine[item.id] = ds.truth[k]
            elif kind == "shared-distractor" and pulled[r, k]:
                mine[item.id] = ds.popular[k]
            else:
                mine[item.id] = item.choices[guess[r, k]]
        out.append(mine)
    return out


def sources(ds: SimDataset) -> dict[str, tuple[str, str]]:
    """The systematic distractors the dataset declares, as ``SuiteContract`` does by default:
    a counterfactual question is drawn to its original question's answer."""
    return {i.id: (f"{i.pair_id}-o", "the original question's answer: believes its eyes")
            for i in ds.items if i.role == "counterfactual"}
