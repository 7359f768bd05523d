"""The suite contract: everything the shared layers (reports, exports, human baselines, the
audit, backends' applicability, the program tools' oracle) need to know about a benchmark,
asked of the suite instead of written into those layers.

``SuiteContract`` is a base of ``core.suite.Suite``; every hook has a default that suits a
plain multiple-choice suite, and a benchmark overrides what differs. docs/adding-a-suite.md
lists the hooks with an example; tests/test_conformance.py checks every capability on every
registered suite (and on a toy suite defined outside the package).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.core.item import Item

if TYPE_CHECKING:
    from whatifbench.core.suite import Sample
    from whatifbench.report.figures import FigureSpec
    from whatifbench.report.table import Table
    from whatifbench.runner.results import RunResult

ACCURACY = "accuracy"
"""The metric every suite reports over all its scored items."""
PAIRED_METRICS = ("original_accuracy", "counterfactual_accuracy", "drop", "pair_accuracy")
"""What paired suites report (``metrics.paired.paired_metrics``), before accuracy."""


@dataclass(frozen=True)
class Headline:
    """A run's value on the suite's headline metric (the explorer's ranking, the human
    baseline's column, the best model)."""

    value: float | None
    """The value in percent; ``None`` when the run has nothing to compute it over."""
    ci: tuple[float, float] | None
    """Its 95 % interval, when the metrics hold one."""
    name: str
    """How the metric is named in tables (``acc+ (both questions of a pair right, %)``)."""


@dataclass(frozen=True)
class Demo:
    """A small generated dataset of the suite (the inspect task's default, ``example``)."""

    generator: str
    """The registered generator."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Its parameters (besides ``seed``)."""
    seed: int = 0
    """Its seed."""
    small: Mapping[str, Any] | None = None
    """Parameters of ``Suite.example``'s smaller dataset (default: ``params``)."""


class SuiteContract:
    """The hooks and declared attributes of a suite that the shared layers ask for."""

    name = "suite"

    # -- headline, units, reported metrics -------------------------------------------------
    headline_metric = ACCURACY
    """The key of ``metrics`` that models are ranked by (a percentage)."""
    headline_name = "accuracy (%)"
    """How the headline metric is named."""
    pair_roles: tuple[str, str] | None = None
    """The roles of a paired suite's two questions, first the one asked about the picture as
    it is (``original`` or ``basic``), then ``counterfactual``; ``None`` for unpaired suites."""
    scoring_unit = "questions"
    """What one unit of ``unit_outcomes`` is, in words (model-vs-humans tables)."""

    def headline(self, metrics: Mapping[str, Any]) -> Headline:
        """The run's headline value, read from its ``metrics``."""
        ci = (metrics.get("ci95") or {}).get(self.headline_metric)
        value = metrics.get(self.headline_metric)
        return Headline(value if isinstance(value, (int, float)) else None,
                        tuple(ci) if ci else None, self.headline_name)

    def unit_outcomes(self, samples: Sequence[Sample]) -> dict[str, bool]:
        """Right or wrong per scoring unit (``scoring_unit``), for paired comparisons of a
        model with people or with another model on the suite's own terms. The default: every
        scored item (free-text items, neither right nor wrong, are no unit)."""
        return {s.item_id: bool(s.correct) for s in samples if s.correct is not None}

    def reported_metrics(self, items: Sequence[Item]) -> tuple[str, ...]:
        """The names of ``metrics`` values that other tools' tasks report (inspect_ai's
        metrics, the lmms-eval task's metric list): the paired ones for paired suites, then
        accuracy and the unparsed share."""
        paired = self.pair_roles is not None and {*self.pair_roles} <= {i.role for i in items}
        return (*(PAIRED_METRICS if paired else ()), ACCURACY, "unparsed")

    def reported_groups(self, items: Sequence[Item]) -> tuple[str, ...]:
        """Groups whose accuracy other tools' tasks report apart (the lmms-eval task adds one
        metric per group); none by default."""
        return ()

    def option_words(self) -> dict[str, str]:
        """Groups whose options are named in words rather than listed with letters, and the
        phrase that names option ``{}`` (exports that re-implement the parser need it)."""
        return {}

    # -- what reports draw -------------------------------------------------------------------
    def figures(self, runs: Sequence[RunResult]) -> list[FigureSpec] | None:
        """The suite's figures over the runs of one dataset (the papers' figures, built from
        ``report.figures``); ``None``: the default figure, accuracy per group with intervals
        when the metrics have groups."""
        return None

    # -- guessing and the blind row ----------------------------------------------------------
    def guesses(self, items: Sequence[Item]) -> dict[str, tuple[str, ...]]:
        """Each item's equally likely guesses: its options, yes and no, or (an open answer)
        the most common answer of its kind among ``items``. The chance rows of every table and
        the audit's chance come from these."""
        counts: dict[str, Counter[str]] = {}
        for item in items:
            if not item.choices and item.kind != "yes-no":
                counts.setdefault(item.kind, Counter())[item.target] += 1
        majority = {kind: c.most_common(1)[0][0] for kind, c in counts.items()}
        return {item.id: (item.choices if item.choices else ("yes", "no")
                          if item.kind == "yes-no" else (majority[item.kind],))
                for item in items}

    # -- datasets ------------------------------------------------------------------------------
    scene_generators: tuple[str, ...] = ()
    """The generators whose pictures of this suite whatifbench's scene engine draws (what the
    scene reader and the oracle can see); with no generator recorded, a dataset of a suite
    that has some is taken to be such pictures too."""
    demo: Demo | None = None
    """A small generated dataset of the suite, if it has a generator."""
    private_meta: tuple[str, ...] = ()
    """Keys of its items' ``meta`` that only whatifbench needs (answer-bearing or internal):
    exports leave them out unless asked (``--with-answers``), the inspect task never shows
    them, and the audit does not read them as shown (``core.public``)."""

    def how_answers(self, generator: str | None) -> str | None:
        """How the answers of a dataset made by ``generator`` (the card's) were computed, for
        dataset cards of exports; ``None``: an imported release (its own answers)."""
        return None

    def example(self, out: Path, seed: int = 0) -> None:
        """Write a small dataset of this suite to ``out`` (tests and demonstrations): the
        ``demo`` generator's by default."""
        from whatifbench.core.registry import lookup
        from whatifbench.errors import WhatifError

        if self.demo is None:
            raise WhatifError(f"The suite {self.name} has no example dataset; import or build "
                              "one (see 'whatif suites').")
        generator = lookup("generator", self.demo.generator).obj
        params = self.demo.params if self.demo.small is None else self.demo.small
        generator.generate(out, seed=seed, **dict(params))

    def source_stats(self, path: Path) -> list[Table] | None:
        """Statistics of a source file this suite builds or imports datasets from (``whatif
        stats FILE``), or ``None`` when it does not read such files."""
        return None

    # -- people ------------------------------------------------------------------------------
    def with_references(self, item: Item, replies: Sequence[str]) -> tuple[Item, int]:
        """``item`` with people's free-text answers added as references for the judge, and
        how many were added (``whatif human references``); suites without judged free text
        keep the item."""
        return item, 0

    # -- ablations -----------------------------------------------------------------------------
    def ablation_refusal(self, kind: str, items: Sequence[Item]) -> str | None:
        """Why ``--image-ablation KIND`` means nothing on ``items`` of this suite, as the end
        of a sentence (``None``: it applies). The default refuses an ablation of items that
        show no image, and ``shuffled`` with fewer than two units showing images."""
        shown = [i for i in items if i.images]
        if not shown:
            return "none of its questions shows an image, so there is nothing to take away"
        if kind == "shuffled" and len({i.unit for i in shown}) < 2:
            return "fewer than two of its pairs show images, so there is nothing to swap"
        return None
