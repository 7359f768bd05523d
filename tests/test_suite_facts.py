"""A benchmark made of parts (issue 39, item 2): what a suite declares about itself is data
(``core.facts.SuiteFacts``), the contract's defaults follow from it (scoring units, reported
metrics and groups, systematic distractors), a suite that declares only facts and metrics gets
its tables (with the exact chance row) from them, and what belongs to a generator (its scene
source, its demo) is found on the generator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from util import png

from whatifbench import api
from whatifbench.core.contract import Demo
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.facts import SuiteFacts
from whatifbench.core.item import Item
from whatifbench.core.records.sample import Sample
from whatifbench.core.registry import register
from whatifbench.core.suite import Suite, suite_for
from whatifbench.core.table import Cell
from whatifbench.metrics.paired import paired_metrics
from whatifbench.report.policies import EYES, FLIP
from whatifbench.report.reference import CHANCE
from whatifbench.report.render import tables_for
from whatifbench.runner.evaluate import RunOptions

NAME = "test-facts-only"


@register("suite", NAME)
class FactsOnly(Suite):
    """A paired suite declared by its facts and metrics alone."""

    name = NAME
    facts = SuiteFacts(headline="counterfactual_accuracy",
                       headline_name="counterfactual accuracy (%)",
                       pair_roles=("original", "counterfactual"), scored_roles=("counterfactual",),
                       reported_groups=("g1",))

    def metrics(self, samples: Any, items: Any) -> dict[str, Any]:
        """The paired metrics."""
        return paired_metrics(samples)

    def example(self, out: Path, seed: int = 0) -> None:
        """Eight yes/no pairs (so the conformance matrix can take it too)."""
        write_dataset(out)


def write_dataset(out: Path) -> Path:
    with DatasetWriter(out) as writer:
        for k in range(8):
            image = writer.add_image(f"{k}.png", png((30 * k, 60, 90)))
            for role, target in (("original", "yes"), ("counterfactual", "no")):
                writer.add_item(Item(f"p{k}-{role[0]}", (image,), f"Is it {k}? ({role})",
                                     "choice", target, ("yes", "no"), pair_id=f"p{k}",
                                     role=role, group="g1"))
        writer.finish(name="facts", suite=NAME, version="1", generator={"name": "hand"}, seed=0)
    return out


def sample(item: str, correct: bool, role: str, pair: str, group: str = "g1") -> Sample:
    return Sample(item, pair, role, group, "q", "q", "t", "a", None, "a", correct, False, None,
                  None)


def test_facts_and_the_attributes_of_earlier_versions_are_one() -> None:
    suite = suite_for(NAME)
    assert (suite.headline_metric, suite.pair_roles) == ("counterfactual_accuracy",
                                                         ("original", "counterfactual"))

    class OldStyle(Suite):  # the API before facts: class attributes
        name = "old-style"
        headline_metric = "acc_plus"
        scoring_unit = "pairs"
        pair_roles = ("basic", "counterfactual")

        def metrics(self, samples: Any, items: Any) -> dict[str, Any]:
            return {}

    assert OldStyle.facts.headline == "acc_plus" and OldStyle.facts.unit == "pairs"
    assert OldStyle.facts.pair_roles == ("basic", "counterfactual")


def test_the_contract_follows_from_the_facts() -> None:
    suite = suite_for(NAME)
    samples = [sample("p1-o", True, "original", "p1"), sample("p1-c", False, "counterfactual",
                                                               "p1"),
               sample("p2-o", True, "original", "p2"), sample("p2-c", True, "counterfactual",
                                                               "p2")]
    assert suite.unit_outcomes(samples) == {"p1-c": False, "p2-c": True}  # scored_roles
    by_pair = type("ByPair", (FactsOnly,), {"facts": SuiteFacts(
        pair_roles=("original", "counterfactual"), scored_by="pair")})()
    assert by_pair.unit_outcomes(samples) == {"p1": False, "p2": True}
    items = [Item(s.item_id, (), "q", "yes-no", "yes", pair_id=s.pair_id, role=s.role,
                  group=s.group) for s in samples]
    assert suite.reported_metrics(items)[:4] == ("original_accuracy", "counterfactual_accuracy",
                                                 "drop", "pair_accuracy")
    assert suite.reported_groups(items) == ("g1",)
    assert suite.systematic_distractors(items) == {
        "p1-c": ("p1-o", suite.systematic_distractors(items)["p1-c"][1]),
        "p2-c": ("p2-o", suite.systematic_distractors(items)["p2-c"][1])}
    none = type("NoDistractors", (FactsOnly,), {"facts": SuiteFacts(
        pair_roles=("original", "counterfactual"), distractors=None)})()
    assert none.systematic_distractors(items) == {}


def test_a_suite_of_facts_and_metrics_gets_its_tables_and_chance_row(tmp_path: Path) -> None:
    runs = api.run_all([load_dataset(write_dataset(tmp_path / "ds"))],
                       ["builtin:random", "builtin:constant"], options=RunOptions(progress=False))
    table = tables_for(runs)[0]
    assert table.title.startswith(NAME)
    assert table.columns == ("model", "orig", "cf", "drop", "pair acc", "unparsed %")
    # the default tables get the reference rows of every paired table (issue 41) too
    assert [r[0] for r in table.rows] == ["builtin:random", "builtin:constant", CHANCE, EYES,
                                          FLIP]
    cell = table.rows[0][2]
    assert isinstance(cell, Cell) and cell.value == runs[0].metrics["counterfactual_accuracy"]
    assert cell.ci == tuple(runs[0].metrics["ci95"]["counterfactual_accuracy"])
    chance = table.rows[2]
    assert isinstance(chance[1], Cell) and chance[1].value == pytest.approx(50.0)


def test_what_belongs_to_a_generator_is_found_on_it() -> None:
    from whatifbench.core.registry import listing, lookup

    generators = {g.name: g for g in listing("generator")}
    for name in ("cfmm", "mucr", "cvqa-synthetic"):
        suite = suite_for(name)
        drawn = suite.drawn_by()
        assert drawn and all(generators[g].suite == name and generators[g].scenes for g in drawn)
        assert lookup("generator", drawn[0]).obj.scene_source is not None
    assert suite_for("cvqa-real").drawn_by() == ()
    demo = suite_for("cfmm").the_demo()
    assert isinstance(demo, Demo) and demo.generator == "cfmm-synthetic"
