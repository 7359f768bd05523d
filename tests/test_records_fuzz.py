"""Fuzzed run folders: every field of ``results.json`` and of ``samples.jsonl`` given a value of
the wrong type (the seals recomputed, as a careful editor would) is one message naming the file,
the line and the field, exit 2, and never an internal error (issue 39: "22 different internal
errors in report and items").

One run folder of every shipped suite (two built-in models each) is written once; records whatif
writes only in some runs (an estimate, people's answers, an image ablation, program metrics) are
added to it by hand. Each field is then damaged in turn: the typed ones must be refused when the
folder is read, naming the field; the free-form ones (a backend's own arguments, an item's meta
values …) must still report, or be refused with a sentence.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.records.results_file import runs_digest, samples_digest
from whatifbench.core.records.schema import dotted
from whatifbench.core.registry import listing
from whatifbench.core.suite import suite_for
from whatifbench.errors import WhatifError
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.results import load_runs

SHIPPED = [e.name for e in listing("suite") if e.module.startswith("whatifbench.")]
FREE = [r"spec\.dataset\.generator\..*", r"spec\.backend\.args\..*", r"spec\.request\..*",
        r"spec\.source\..*", r"spec\.budget\..*",
        (r"spec\.(backend|judge)\.(?!spec$|args$|version$|backend$|unavailable$)[a-z_]+"
         r"(\..*)?"), r"spec\.judge\.backend\.args\..*",
        r"spec\.judge\.backend\.(?!spec$|args$|version$)[a-z_]+(\..*)?",
        r"spec\.human\.(?!annotator$|annotators)[a-z_]+(\..*)?",
        (r"spec\.estimate\.(?!kind$|value$|interval|items$|dataset_items$|method$|metric$|"
         r"scoring_unit$|bank$|interval_method$)[a-z_]+(\..*)?"),
        r"metrics\.human\.(alpha|by_slice|item_agreement|group)\..*",
        (r"metrics\.estimate\.(?!kind$|value$|interval|items$|dataset_items$|method$|metric$|"
         r"scoring_unit$|bank$|interval_method$)[a-z_]+")]
"""Positions (below a run entry) whose values are free-form JSON: any value reads."""


def wrong(value: Any) -> Any:
    """A value of another JSON type than ``value``."""
    if isinstance(value, bool):
        return "no"
    if isinstance(value, (int, float)):
        return "7"
    if isinstance(value, str):
        return 5
    if isinstance(value, dict):
        return []
    if isinstance(value, list):
        return {"a": 1}
    return [[]]  # null


def leaves(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every position below ``value`` (objects' keys and arrays' items, containers too)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield (*path, k)
            yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield (*path, k)
            yield from leaves(v, (*path, k))


def pattern(path: tuple[str | int, ...]) -> str:
    """A position with the names a suite or run chooses (groups, roles, items) made generic."""
    out: list[str] = []
    for k, key in enumerate(path):
        parent = str(path[k - 1]) if k else ""
        generic = (isinstance(key, int) or parent.startswith("by_") or parent in (
            "parsers", "n_by_role", "parser_disagreement_by_group", "ci95", "ci95_method", "n",
            "exp_parts", "cf_questions", "args", "groups", "demonstrations", "generator"))
        out.append("*" if generic else str(key))
    return ".".join(out)


def put(data: Any, path: tuple[str | int, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def get(data: Any, path: tuple[str | int, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder of every shipped suite, with the records of rarer runs added by hand."""
    root = tmp_path_factory.mktemp("fuzz")
    datasets = []
    for name in SHIPPED:
        suite_for(name).example(root / name, seed=0)
        datasets.append(load_dataset(root / name))
    runs = api.run_all(datasets, ["builtin:random", "builtin:constant"],
                       options=RunOptions(progress=False))
    api.write_outputs(root / "run", runs)
    data = json.loads((root / "run" / "results.json").read_text())
    first = data["runs"][0]
    first["spec"]["model_name"] = "named"
    first["spec"]["image_ablation"] = {"kind": "blank", "checked": True}
    first["spec"]["human"] = {"annotator": "majority", "annotators": ["a", "b"], "tool": "app"}
    estimate = {"kind": "estimate", "value": 40.0, "interval": [30.0, 50.0], "items": 10,
                "dataset_items": 60, "method": "stratified", "metric": "accuracy",
                "scoring_unit": "questions", "bank": "bank.json",
                "interval_method": "design-based (stratified t)", "se": 5.0}
    data["runs"][1]["spec"]["estimate"] = estimate
    data["runs"][1]["metrics"]["estimate"] = dict(estimate)
    first["metrics"]["human"] = {"annotator": "majority", "annotators": ["a", "b"], "ties": 0,
                                 "too_few_answers": 0, "answers": 3, "unsure": 0,
                                 "seconds": {"median": 1.0, "mean": 1.0, "total": 3.0, "n": 3}}
    shares = {"failed": 10.0, "compile": 0.0, "raise": 10.0, "timeout": 0.0, "n_items": 10,
              "n_failed": 1, "n_compile": 0, "n_raise": 1, "n_timeout": 0}
    first["metrics"]["program"] = {**shares, "by_role": {"original": dict(shares)}}
    data["runs_sha256"] = runs_digest(data["runs"])
    (root / "run" / "results.json").write_text(json.dumps(data, indent=2))
    assert len(load_runs(root / "run")) == len(runs)  # the added records read
    return root / "run"


def damaged(folder: Path, tmp: Path, results: Any = None, samples: list[Any] | None = None
            ) -> Path:
    """A copy of ``folder`` with ``results`` / ``samples`` written and both seals recomputed."""
    out = tmp / "damaged"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(folder, out)
    data = results if results is not None else json.loads((out / "results.json").read_text())
    if samples is not None:
        text = "\n".join(json.dumps(s) for s in samples) + "\n"
        (out / "samples.jsonl").write_text(text)
        data["samples_sha256"] = samples_digest(text, data.get("run_id"))
    data["runs_sha256"] = runs_digest(data["runs"]) if isinstance(data.get("runs"), list) \
        else None
    (out / "results.json").write_text(json.dumps(data, indent=2))
    return out


def reported(folder: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    out = tmp / "report"
    if out.exists():
        shutil.rmtree(out)
    capsys.readouterr()
    code = main(["report", str(folder), "--out", str(out)])
    return code, capsys.readouterr().err


def test_every_field_of_results_json_given_a_wrong_type(folder: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    original = json.loads((folder / "results.json").read_text())
    seen: dict[str, tuple[str | int, ...]] = {}
    for path in leaves(original):
        if path[0] in ("runs", "run_id", "samples_sha256", "format", "version"):
            seen.setdefault(pattern(path), path)
    typed, free = 0, []
    problems: list[str] = []
    for shape, path in seen.items():
        data = copy.deepcopy(original)
        put(data, path, wrong(get(data, path)))
        below = ".".join(str(k) for k in path[2:])
        if path[0] == "runs" and any(re.fullmatch(f, below) for f in FREE):
            free.append(path)
            continue
        try:
            load_runs(damaged(folder, tmp_path, data))
            problems.append(f"{shape}: read")
        except WhatifError as exc:
            said = str(exc)
            if not (re.search(r"results\.json:\d+: field ", said)
                    and f"field {dotted(path)} " in said):
                problems.append(f"{shape}: {said}")
        typed += 1
    assert problems == []
    assert typed > 300 and free  # every suite's metrics and the spec's fields were damaged
    # The free-form positions: the report is written or refused with a sentence, never fails.
    for path in free[:12]:
        data = copy.deepcopy(original)
        put(data, path, wrong(get(data, path)))
        code, err = reported(damaged(folder, tmp_path, data), tmp_path, capsys)
        assert code in (0, 2) and "internal error" not in err, (path, err)
    # and a typed one, end to end: exit 2, one sentence naming file, line and field
    data = copy.deepcopy(original)
    data["runs"][3]["metrics"]["ci95"] = {"x": [60.0, 40.0]}
    code, err = reported(damaged(folder, tmp_path, data), tmp_path, capsys)
    assert code == 2 and "internal error" not in err and "Traceback" not in err
    assert re.search(r"results\.json:\d+: field runs\[3\]\.metrics\.ci95\.x is \[60\.0, 40\.0\], "
                     r"not an interval", err), err


def test_every_field_of_samples_jsonl_given_a_wrong_type(folder: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    results = json.loads((folder / "results.json").read_text())
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    k = 7
    for name in samples[k]:
        bad = copy.deepcopy(samples)
        bad[k][name] = wrong(bad[k][name])
        with pytest.raises(WhatifError) as caught:
            load_runs(damaged(folder, tmp_path, copy.deepcopy(results), bad))
        said = str(caught.value)
        assert f"samples.jsonl:{k + 1}" in said, (name, said)
        assert re.search(rf"field {name}[ [.]", said) or "belongs to run" in said, (name, said)
    for case in ({"item_id": 5}, {"parses": None}, {"meta": []}, {"unparsed": "no"},
                 {"scores": [float("nan")]}):
        bad = copy.deepcopy(samples)
        bad[k].update(case)
        code, err = reported(damaged(folder, tmp_path, copy.deepcopy(results), bad), tmp_path,
                             capsys)
        assert code == 2 and "internal error" not in err, (case, err)
        assert f"samples.jsonl:{k + 1}: field {next(iter(case))}" in err, (case, err)


def test_an_items_meta_values_of_another_type_still_report(folder: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """An item's meta is the suite's data, recorded as it was: any JSON value reads, and a
    report is written or refused with a sentence, never an internal error."""
    results = json.loads((folder / "results.json").read_text())
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    for s in samples:
        s["meta"] = {k: wrong(v) for k, v in s["meta"].items()}
        s["judgement"] = {k: wrong(v) for k, v in s["judgement"].items()}
    code, err = reported(damaged(folder, tmp_path, results, samples), tmp_path, capsys)
    assert code in (0, 2) and "internal error" not in err, err


def test_nesting_too_deep_is_named_with_its_line(folder: Path, tmp_path: Path) -> None:
    results = json.loads((folder / "results.json").read_text())
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    out = damaged(folder, tmp_path, results, samples)
    lines = (out / "samples.jsonl").read_text().split("\n")
    lines[2] = lines[2][:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}"
    text = "\n".join(lines)
    (out / "samples.jsonl").write_text(text)
    data = json.loads((out / "results.json").read_text())
    data["samples_sha256"] = samples_digest(text, data["run_id"])
    (out / "results.json").write_text(json.dumps(data))
    with pytest.raises(WhatifError, match=r"samples\.jsonl:3: not valid JSON \(nested more than"):
        load_runs(out)
