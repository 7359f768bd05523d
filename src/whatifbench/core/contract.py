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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.core.facts import (
    ACCURACY,
    CLASS_FACTS,
    FIRST_ROLE,
    PAIRED_METRICS,
    SuiteFacts,
)
from whatifbench.core.item import Item
from whatifbench.core.records.metrics import Metrics
from whatifbench.core.records.score import Score

if TYPE_CHECKING:
    from whatifbench.core.figure import FigureSpec
    from whatifbench.core.records.run import RunResult
    from whatifbench.core.records.sample import Sample
    from whatifbench.core.table import Table

__all__ = ["ACCURACY", "PAIRED_METRICS", "Demo", "Headline", "SuiteContract", "SuiteFacts"]


def Headline(value: float | None, ci: tuple[float, float] | None, name: str,
             method: str | None = None) -> Score:
    """A run's value on the suite's headline metric, as a ``Score`` (the record's name before
    scores were typed: ``Headline(value, ci, name)``)."""
    return Score(value, tuple(ci) if ci else None, method, name=name)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Demo:
    """A small generated dataset of the suite (the inspect task's default, ``example``)."""

    generator: str = ""
    """The registered generator (a generator's own ``demo`` leaves it out)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Its parameters (besides ``seed``)."""
    seed: int = 0
    """Its seed."""
    small: Mapping[str, Any] | None = None
    """Parameters of ``Suite.example``'s smaller dataset (default: ``params``)."""


class SuiteContract:
    """The hooks and declared attributes of a suite that the shared layers ask for."""

    name = "suite"

    # -- facts ------------------------------------------------------------------------------
    facts: SuiteFacts = SuiteFacts()
    """What the suite declares about itself, as data (``core.facts``)."""
    headline_metric = ACCURACY
    """``facts.headline`` (the name of earlier versions; kept in step with ``facts``)."""
    headline_name = "accuracy (%)"
    """``facts.headline_name``."""
    pair_roles: tuple[str, str] | None = None
    """``facts.pair_roles``."""
    scoring_unit = "questions"
    """``facts.unit``."""
    metrics_schema: Any = Metrics
    """``facts.metrics_schema``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Keep ``facts`` and the class attributes of earlier versions in step: a suite that
        declares ``facts`` gets the attributes from it; one that sets the attributes (the API
        before facts) gets ``facts`` made of them."""
        super().__init_subclass__(**kwargs)
        if "facts" in cls.__dict__:
            for attribute, fact in CLASS_FACTS.items():
                setattr(cls, attribute, getattr(cls.facts, fact))
            return
        changed = {fact: getattr(cls, attribute) for attribute, fact in CLASS_FACTS.items()
                   if getattr(cls, attribute) != getattr(cls.facts, fact)}
        if changed:
            cls.facts = replace(cls.facts, **changed)
        old = [a for a in (*CLASS_FACTS, "scene_generators", "demo") if a in cls.__dict__]
        if old:
            import warnings

            from whatifbench.errors import WhatifDeprecationWarning

            given = ", ".join(f"{CLASS_FACTS[a]}=..." for a in old if a in CLASS_FACTS)
            moved = [a for a in old if a not in CLASS_FACTS]
            warnings.warn(
                f"{cls.__module__}.{cls.__name__} sets {', '.join(old)} as class attributes, the "
                "suite API before issue 39 (it still works): "
                + (f"declare them as facts = SuiteFacts({given}) (whatifbench.core.facts)"
                   if given else "")
                + ("; " if given and moved else "")
                + ("a generator declares its scene_source and demo itself" if moved else "")
                + " (docs/adding-a-suite.md).", WhatifDeprecationWarning, stacklevel=3)

    def headline(self, metrics: Mapping[str, Any]) -> Score:
        """The run's headline value, read from its ``metrics`` (checked by the suite's
        ``metrics_schema`` when they were read), with its interval and the interval's method."""
        ci = (metrics.get("ci95") or {}).get(self.headline_metric)
        method = (metrics.get("ci95_method") or {}).get(self.headline_metric)
        value = metrics.get(self.headline_metric)
        return Score(value if isinstance(value, (int, float)) else None,
                     (ci[0], ci[1]) if ci else None, method if isinstance(method, str) else None,
                     unit=self.scoring_unit, name=self.headline_name)

    def headline_score(self, run: RunResult) -> Score:
        """The run's headline as every shared table shows it: a budgeted run's estimated full
        score (marked as an estimate, and of what), else ``headline(run.metrics)``."""
        found = self.headline(run.metrics)
        estimate = run.spec.estimate
        if estimate is None or estimate.value is None:
            return found
        return Score(estimate.value, estimate.interval, estimate.interval_method,
                     estimate.dataset_items, found.unit, found.name, estimate)

    def unit_outcomes(self, samples: Sequence[Sample]) -> dict[str, bool]:
        """Right or wrong per scoring unit (``facts.unit``), for paired comparisons of a model
        with people or with another model on the suite's own terms, as the facts say: scored
        items (free-text items, neither right nor wrong, are no unit) of ``scored_roles`` and
        ``scored_groups``, by item or by pair (right when both its questions are)."""
        facts = self.facts
        scored = [s for s in samples if s.correct is not None
                  and (facts.scored_roles is None or s.role in facts.scored_roles)
                  and (facts.scored_groups is None or s.group in facts.scored_groups)]
        if facts.scored_by != "pair":
            return {s.item_id: bool(s.correct) for s in scored}
        pairs: dict[str, list[bool]] = {}
        for s in scored:
            if s.pair_id is not None:
                pairs.setdefault(s.pair_id, []).append(bool(s.correct))
        return {p: all(v) for p, v in pairs.items() if len(v) == 2}

    def reported_metrics(self, items: Sequence[Item]) -> tuple[str, ...]:
        """The names of ``metrics`` values that other tools' tasks report (inspect_ai's
        metrics, the lmms-eval task's metric list): ``facts.reported_metrics``, by default the
        paired ones for paired suites, then accuracy and the unparsed share."""
        return self.facts.default_reported([i.role for i in items])

    def reported_groups(self, items: Sequence[Item]) -> tuple[str, ...]:
        """Groups whose accuracy other tools' tasks report apart (the lmms-eval task adds one
        metric per group): ``facts.reported_groups`` present in the items."""
        groups = {i.group for i in items}
        return tuple(g for g in self.facts.reported_groups if g in groups)

    def option_words(self) -> dict[str, str]:
        """Groups whose options are named in words rather than listed with letters, and the
        phrase that names option ``{}`` (exports that re-implement the parser need it)."""
        return {}

    # -- what reports draw -------------------------------------------------------------------
    def figures(self, runs: Sequence[RunResult]) -> list[FigureSpec] | None:
        """The suite's figures over the runs of one dataset (the papers' figures, built from
        ``report.figures``; the record is ``core.figure.FigureSpec``); ``None``: the default
        figure, accuracy per group with intervals when the metrics have groups."""
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

    # -- systematic mistakes -------------------------------------------------------------------
    def systematic_distractors(self, items: Sequence[Item]) -> dict[str, tuple[str, str]]:
        """Per item, the item whose true answer attracts mistakes on it, and why (the key
        model of ``whatif items`` does not count such a mistake as evidence against the key).
        The default, for paired suites: the second role's question is drawn to the first's
        answer, what a model that believes its eyes (or ignores the premise) says."""
        if self.facts.distractors != FIRST_ROLE or self.facts.pair_roles is None:
            return {}
        first, second = self.facts.pair_roles
        by_pair = {i.pair_id: i.id for i in items if i.role == first and i.pair_id is not None}
        why = (f"the {first} question's answer: a model that believes its eyes or ignores the "
               "premise says it")
        return {i.id: (by_pair[i.pair_id], why) for i in items
                if i.role == second and i.pair_id in by_pair}

    # -- datasets: what belongs to a generator lives on the generator ------------------------
    scene_generators: tuple[str, ...] = ()
    """Earlier versions' list of the generators whose pictures of this suite the scene engine
    draws; now each generator says so itself (its ``scene_source``): ``drawn_by``."""
    demo: Demo | None = None
    """Earlier versions' small generated dataset; now a generator of the suite declares it
    (its ``demo``: ``Demo`` without the generator's name): ``the_demo``."""

    def drawn_by(self) -> tuple[str, ...]:
        """The generators whose pictures of this suite whatifbench's scene engine draws (what
        the scene reader and the oracle can see): the suite's generators with a
        ``scene_source`` (from the registry's index, nothing imported). With no generator
        recorded, a dataset of a suite that has some is taken to be such pictures too."""
        if self.scene_generators:
            return tuple(self.scene_generators)
        from whatifbench.core.registry import listing

        return tuple(g.name for g in listing("generator") if g.suite == self.name and g.scenes)

    def the_demo(self) -> Demo | None:
        """The suite's small generated dataset (the inspect task's default, ``example``): the
        ``demo`` a generator of the suite declares (or the suite's own, earlier versions')."""
        if self.demo is not None:
            return self.demo
        from whatifbench.core.registry import listing, lookup

        for listed in listing("generator"):
            if listed.suite == self.name and listed.demo:
                declared = lookup("generator", listed.name).obj.demo
                return replace(declared, generator=listed.name)
        return None
    private_meta: tuple[str, ...] = ()
    """Keys of its items' ``meta`` that only whatifbench needs (answer-bearing or internal):
    exports leave them out unless asked (``--with-answers``), the inspect task never shows
    them, and the audit does not read them as shown (``core.public``)."""

    def how_answers(self, generator: str | None) -> str | None:
        """How the answers of a dataset made by ``generator`` (the card's) were computed, for
        dataset cards of exports: what that generator of the suite says (its ``how_answers``);
        ``None``: an imported release (its own answers)."""
        from whatifbench.core.registry import listing, lookup

        for listed in listing("generator"):
            if listed.name == generator and listed.suite == self.name:
                said = getattr(lookup("generator", listed.name).obj, "how_answers", None)
                return said if isinstance(said, str) else None
        return None

    def example(self, out: Path, seed: int = 0) -> None:
        """Write a small dataset of this suite to ``out`` (tests and demonstrations): the
        ``demo`` generator's by default."""
        from whatifbench.core.registry import lookup
        from whatifbench.errors import WhatifError

        demo = self.the_demo()
        if demo is None:
            raise WhatifError(f"The suite {self.name} has no example dataset; import or build "
                              "one (see 'whatif suites').")
        generator = lookup("generator", demo.generator).obj
        params = demo.params if demo.small is None else demo.small
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
