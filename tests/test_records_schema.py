"""The published JSON Schemas of ``results.json`` and ``samples.jsonl`` (core/records/*.schema.json)
are generated from the records, and what a run writes validates against them with an
independent validator (``jsonschema``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from util import make_choice_dataset

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.core.records import publish
from whatifbench.core.suite import suite_for
from whatifbench.runner.evaluate import RunOptions


def test_the_published_schemas_are_the_generated_ones() -> None:
    """Run ``python -m whatifbench.core.records.publish`` after changing a record."""
    assert publish.RESULTS_SCHEMA.read_text(encoding="utf-8") == \
        publish.text(publish.results_schema())
    assert publish.SAMPLES_SCHEMA.read_text(encoding="utf-8") == \
        publish.text(publish.samples_schema())


def test_written_results_validate_against_the_published_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    datasets = [load_dataset(make_choice_dataset(tmp_path / "choice"))]
    for name in ("cfmm", "mucr"):
        suite_for(name).example(tmp_path / name, seed=0)
        datasets.append(load_dataset(tmp_path / name))
    runs = api.run_all(datasets, ["builtin:random", "builtin:constant"],
                       options=RunOptions(progress=False, image_ablation=None))
    api.write_outputs(tmp_path / "run", runs)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    schema = json.loads(publish.RESULTS_SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(results)) == []
    lines = jsonschema.Draft202012Validator(json.loads(publish.SAMPLES_SCHEMA.read_text()))
    samples = (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    assert samples and all(not list(lines.iter_errors(json.loads(s))) for s in samples)
    # the schema is not vacuous: what the reader refuses, the validator refuses too
    cfmm = next(k for k, r in enumerate(results["runs"]) if r["suite"] == "cfmm")
    for damage in (lambda r: r["runs"][0].update(n_items=-1),
                   lambda r: r["runs"][cfmm]["metrics"].update(acc_plus=140.0),
                   lambda r: r["runs"][0]["spec"]["protocol"].update(max_new_tokens="64"),
                   lambda r: r.update(version=1)):
        bad = json.loads(json.dumps(results))
        damage(bad)
        assert list(validator.iter_errors(bad)), damage
    bad_line = {**json.loads(samples[0]), "unparsed": "no"}
    assert list(lines.iter_errors(bad_line))
