"""Command-line messages a new user met (issue 32, low items): ``audit`` on a run folder names
the run's dataset; ``run --help`` explains ``--strategy``, ``--image-layout`` and
``--max-new-tokens``; ``whatif models`` shows no reStructuredText markup; a dataset without pairs
is not announced with "(0 pairs)"; ``audit --strict`` exits with its own status (see
tests/test_audit.py), documented in its help."""

from __future__ import annotations

from pathlib import Path

import pytest
from util import make_choice_dataset, whatif

from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.errors import EXIT_FLAGGED, EXIT_INTERNAL


def test_audit_of_a_run_folder_names_its_dataset(tmp_path: Path, whatif_home: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    done = whatif(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                   str(tmp_path / "run"), "--no-progress"], home=whatif_home)
    assert done.returncode == 0, done.stderr
    done = whatif(["audit", str(tmp_path / "run")], home=whatif_home)
    assert done.returncode == 2
    assert "is a run folder (results.json), not a dataset" in done.stderr
    assert f"its dataset is handmade at {ds.resolve()}" in done.stderr
    assert "whatif generate" not in done.stderr


def test_run_help_explains_every_protocol_option(whatif_home: Path) -> None:
    done = whatif(["run", "--help"], home=whatif_home)
    text = " ".join(done.stdout.split())
    for option, said in (("--strategy", "Let's think step by step"),
                         ("--image-layout", "one labelled image"),
                         ("--max-new-tokens N", "generation budget per reply")):
        assert option in text and said in text, option


def test_audit_strict_has_its_own_documented_exit_status(whatif_home: Path) -> None:
    assert EXIT_FLAGGED not in (0, EXIT_INTERNAL, 2, 3, 130)
    text = whatif(["audit", "--help"], home=whatif_home).stdout
    assert f"  {EXIT_FLAGGED}    --strict, and the dataset" in text
    assert "  1    internal error" in text and f"exit {EXIT_FLAGGED} when" in text


def test_model_listing_has_no_markup(whatif_home: Path) -> None:
    done = whatif(["models"], home=whatif_home)
    assert done.returncode == 0 and "``" not in done.stdout
    assert "(yes for yes/no" in done.stdout


def test_a_dataset_without_pairs_is_announced_without_a_pair_count(tmp_path: Path,
                                                                    whatif_home: Path) -> None:
    pytest.importorskip("datasets")
    with DatasetWriter(tmp_path / "single") as writer:
        rel = writer.add_image("a.png", (make_choice_dataset(tmp_path / "ds") / "images" /
                                         "img_000.png").read_bytes())
        for k in range(3):
            writer.add_item(Item(id=f"q{k}", images=(rel,), question=f"Is it {k}?",
                                 kind="yes-no", target="yes", group="g"))
        writer.finish(name="single", suite="cvqa-real", version="test",
                      generator={"name": "hand"}, seed=0)
    assert load_dataset(tmp_path / "single").card.counts.get("pairs", 0) == 0
    for args in (["export", str(tmp_path / "single"), "--format", "hf", "--out",
                  str(tmp_path / "hf")],
                 ["import", "hf", "--path", str(tmp_path / "hf"), "--out",
                  str(tmp_path / "back")]):
        done = whatif(args, home=whatif_home)
        assert done.returncode == 0, done.stderr
    assert f"Wrote 3 items to {tmp_path / 'back'}" in done.stdout
    assert "pairs)" not in done.stdout
