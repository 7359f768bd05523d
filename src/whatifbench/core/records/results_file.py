"""``results.json`` and ``samples.jsonl``: written and read through their schema.

``results.json`` is versioned (``"format": "whatifbench-results", "version": 2``); files
without a version are version 1 (every folder written before versions were recorded, e.g. by
81140b7) and read the same way: version 2 only adds the marker and ``ci95_method`` beside the
intervals. The schema is documented in docs/files.md and published as JSON Schema
(``results.schema.json`` beside this module, ``python -m whatifbench.core.records.publish``).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whatifbench import secrets as credentials
from whatifbench.core.jsonfile import MAX_DEPTH
from whatifbench.core.readfile import read_text
from whatifbench.core.records.metrics import Metrics
from whatifbench.core.records.read import line_of, parse_text, problem, refuse
from whatifbench.core.records.run import RunResult
from whatifbench.core.records.sample import Sample
from whatifbench.core.records.schema import SchemaError, converter, parse
from whatifbench.core.records.spec import Count, RunSpec
from whatifbench.errors import WhatifError

FORMAT = "whatifbench-results"
"""The ``format`` field of ``results.json``."""
VERSION = 2
"""The version written; 1 (no ``version`` field) is read too."""
MAX_RESULTS_MB = 128
"""Largest ``results.json`` read: whatif writes metrics and specs, a few MB even for many
runs; a larger file holds something else, and reading it would take gigabytes."""
RECREATE = ("Re-create the folder with 'whatif run --out' (answers come from the run store at "
            "no cost).")


@dataclass(frozen=True)
class RunEntry:
    """One run of ``results.json``: what was evaluated, its metrics and its spec."""

    suite: str
    """The suite (protocol and metrics)."""
    dataset: str
    """The dataset's name."""
    model: str
    """The backend spec."""
    n_items: Count
    """Items evaluated."""
    metrics: Metrics
    """The suite's metrics (checked against the suite's own schema when read)."""
    errors: Count = 0
    """Items that ended in a backend error."""
    spec: RunSpec = field(default_factory=RunSpec)
    """Everything needed to reproduce the run."""


@dataclass(frozen=True)
class ResultsFile:
    """``results.json``: the runs of one run folder, sealed with the digests of its runs and of
    the ``samples.jsonl`` beside it."""

    runs: list[RunEntry]
    """The runs, in run order."""
    format: str | None = None
    """``whatifbench-results`` (version 2 on)."""
    version: int = 1
    """The file's version (1: written before versions were recorded)."""
    run_id: str | None = None
    """The id of the run folder; every ``samples.jsonl`` line carries it."""
    samples_sha256: str | None = None
    """``samples_digest`` of the ``samples.jsonl`` beside it."""
    runs_sha256: str | None = None
    """``runs_digest`` of ``runs`` as written."""
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    """Every two runs of a dataset compared (written for other tools; not read back)."""


def samples_digest(text: str, run_id: str | None) -> str:
    """The sha256 that ``results.json`` records of the ``samples.jsonl`` text beside it: of the
    text with each line's leading ``run_id`` field left out (so identical runs get identical
    ``results.json`` files but for their ``run_id``)."""
    if run_id is not None:  # lines are split at "\n" only: JSON escapes any other line end
        head = f'{{"run_id": {json.dumps(run_id)}, '
        text = ("{" + text[len(head):] if text.startswith(head) else text).replace(
            "\n" + head, "\n{")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def runs_digest(entries: list[Any]) -> str:
    """The sha256 that ``results.json`` records of its own run entries (``runs_sha256``: of
    their canonical JSON), so that an edited metric is refused as an edited sample is."""
    text = json.dumps(entries, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def results_text(runs: Sequence[RunResult], comparisons: list[dict[str, Any]],
                 run_id: str | None = None, samples_sha256: str | None = None) -> str:
    """The text of ``results.json`` (version ``VERSION``), sealed with ``runs_sha256``.
    ``redact`` is applied by the caller to the whole text before ``seal``."""
    head: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if run_id is not None:
        head["run_id"] = run_id
    if samples_sha256 is not None:
        head["samples_sha256"] = samples_sha256
    return json.dumps({**head, "runs": [r.to_json() for r in runs],
                       "comparisons": comparisons}, indent=2, ensure_ascii=False) + "\n"


def seal(text: str) -> str:
    """``results.json`` text with ``runs_sha256`` added: the digest of its run entries as
    written (after redaction), checked when the folder is read."""
    data = json.loads(text)
    data["runs_sha256"] = runs_digest(data["runs"])
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


MetricsSchema = Callable[[str], Any]
"""The metrics schema (a ``TypedDict``) of a suite by name."""


def read_results(folder: str | Path, metrics_schema: MetricsSchema = lambda suite: Metrics
                 ) -> list[RunResult]:
    """Read a run folder written by ``whatif run`` (``results.json`` + ``samples.jsonl``)
    through their schema.

    Refuses, with one sentence naming the file, line and field, a ``results.json`` that is not
    ours, lacks fields or holds one of the wrong type or out of range (the metrics checked
    against ``metrics_schema(suite)``), a sample of the wrong shape, and a ``samples.jsonl``
    whose lines carry another ``run_id`` than ``results.json`` (files of two different runs side
    by side). Folders written before run ids existed have none in either.
    """
    folder = Path(folder)
    path = folder / "results.json"
    text = _results_text(folder, path)
    data = parse_text(text, path, fix=f"The file was not written by 'whatif run'. {RECREATE}")
    if not isinstance(data, dict) or "runs" not in data:
        raise WhatifError(f"{path} is not a whatifbench results file (it holds no list of "
                          f"\"runs\"). {RECREATE}")
    if isinstance(data.get("version"), int) and data["version"] > VERSION:
        raise WhatifError(f"{path} has version {data['version']}, written by a newer "
                          f"whatifbench; this one reads versions 1 to {VERSION}. Upgrade "
                          "whatifbench to report it.")
    fix = f"The file was not written by 'whatif run' or was edited. {RECREATE}"
    try:
        found: ResultsFile = parse(ResultsFile, credentials.redact_value(data))
        for k, entry in enumerate(found.runs):
            parse(metrics_schema(entry.suite), entry.metrics, ("runs", k, "metrics"))
    except SchemaError as exc:
        raise refuse(path, exc, text, fix=fix) from None
    if found.runs_sha256 is not None and found.runs_sha256 != runs_digest(data["runs"]):
        raise WhatifError(
            f"{path} was changed after the run wrote it (its runs do not have the sha256 it "
            f"records), so its tables would not be the run's. Restore the file. {RECREATE}")
    samples = _read_samples(folder / "samples.jsonl", path, found.run_id, found.samples_sha256)
    return _runs(found, samples)


def _results_text(folder: Path, path: Path) -> str:
    if not path.is_file():
        if (folder / "card.json").is_file() and (folder / "items.jsonl").is_file():
            raise WhatifError(
                f"{folder} is a dataset folder (card.json), not a run folder: this command reads "
                "the folders 'whatif run --out' writes. Pass a run folder, or evaluate this "
                f"dataset first: whatif run --suite {folder} --out RUN_DIR.")
        raise WhatifError(
            f"{folder} holds no results.json; pass a folder written by 'whatif run --out'.")
    size = path.stat().st_size
    if size > MAX_RESULTS_MB << 20:
        raise WhatifError(
            f"{path} is {size / 2**20:.0f} MB; whatifbench's results files hold metrics and "
            f"specs (a few MB) and it reads none over {MAX_RESULTS_MB} MB. It holds something "
            f"else: {RECREATE}")
    return read_text(path)


def _runs(found: ResultsFile, samples: dict[tuple[str, str], list[Sample]]) -> list[RunResult]:
    """The run results, each with its samples: runs of one model on one dataset (other
    protocols or arguments, merged reports) each take their own ``n_items`` samples, in run
    order."""
    runs = []
    shared = Counter((e.dataset, e.model) for e in found.runs)
    for e in found.runs:
        key = (e.dataset, e.model)
        pool = samples.get(key, [])
        mine = pool[:e.n_items] if shared[key] > 1 else pool[:]
        del pool[:len(mine)]
        runs.append(RunResult(suite=e.suite, dataset=e.dataset, model=e.model,
                              n_items=e.n_items, metrics=dict(e.metrics), spec=e.spec,
                              samples=mine, recorded_errors=e.errors))
    return runs


def _changed(path: Path, results: Path, why: str) -> str:
    """The message for a ``samples.jsonl`` that does not match its ``results.json``."""
    return (f"{path} was changed after the run wrote it ({why}), so the items shown would "
            f"contradict the tables of {results.name}. Restore the file, or re-create the folder "
            "with 'whatif run --out' (answers come from the run store at no cost).")


def _other_run(path: Path, lineno: int, found: object, results: Path, run_id: str | None) -> str:
    return (f"{path}:{lineno} belongs to run {found or '(none)'}, but {results.name} beside it "
            f"is run {run_id or '(none)'}: the two files come from different runs (an "
            "interrupted write by an older version, or files copied together), and merging "
            f"them would mislead. {RECREATE}")


def _sample(obj: Any, lineno: int, path: Path, results: Path, run_id: str | None,
            build: Callable[[Any], Any]) -> tuple[tuple[str, str], Sample]:
    """One line's sample and its (dataset, model), checked."""
    if type(obj) is not dict:
        raise SchemaError((), "an object (a sample)", obj)
    if obj.get("run_id") != run_id:
        raise WhatifError(_other_run(path, lineno, obj.get("run_id"), results, run_id))
    dataset, model = obj.get("dataset"), obj.get("model")
    if type(dataset) is not str:
        raise SchemaError(("dataset",), "a string", dataset, missing=dataset is None)
    if type(model) is not str:
        raise SchemaError(("model",), "a string", model, missing=model is None)
    return (dataset, model), build(obj)


def _read_samples(path: Path, results: Path, run_id: str | None,
                  expected: str | None = None) -> dict[tuple[str, str], list[Sample]]:
    """Samples by (dataset, model), each line built through the ``Sample`` schema; each line
    must carry ``run_id``, and the text must have the digest ``results.json`` records
    (``expected``; absent in folders of older versions)."""
    samples: dict[tuple[str, str], list[Sample]] = {}
    if not path.is_file():
        if run_id is not None:
            raise WhatifError(f"{results.parent} has results.json (run {run_id}) but no "
                              "samples.jsonl; the folder is incomplete. Re-create it with "
                              "'whatif run --out'.")
        return samples
    text = read_text(path)
    intact = expected is None or samples_digest(text, run_id) == expected
    build = converter(Sample)
    fix = f"The file was not written by 'whatif run' or was edited. {RECREATE}"
    lines = text.split("\n")  # never splitlines: U+2028 may stand raw in a JSON string
    objects = _all_at_once(lines) if intact else None
    if objects is None:  # line by line: the first bad line is named
        objects = []
        numbers = []
        for lineno, line in enumerate(lines, start=1):
            if line.strip():
                objects.append(parse_text(line, path, lineno, fix))
                numbers.append(lineno)
    else:
        numbers = None
    for k, obj in enumerate(objects):
        try:
            if type(obj) is dict and obj.get("run_id") == run_id:  # the common case, inline
                key = (obj.get("dataset"), obj.get("model"))
                if type(key[0]) is str and type(key[1]) is str:
                    samples.setdefault(key, []).append(build(obj))  # type: ignore[arg-type]
                    continue
            lineno = _line_number(lines, numbers, k)
            key, sample = _sample(obj, lineno, path, results, run_id, build)
        except SchemaError as exc:
            raise WhatifError(problem(path, exc, _line_number(lines, numbers, k), fix)) \
                from None
        samples.setdefault(key, []).append(sample)
    if not intact:  # each line read as a sample, yet the whole is not what the run wrote
        raise WhatifError(_changed(path, results, "its records do not have the sha256 "
                                   f"{results.name} beside it records"))
    return samples


def _all_at_once(lines: list[str]) -> list[Any] | None:
    """Every non-blank line parsed in one call (several times faster than line by line), or
    ``None`` when a line is too deeply nested or anything does not parse: the caller then reads
    line by line and says which line is wrong."""
    kept = [line for line in lines if line.strip()]
    if any(line.count("[") + line.count("{") >= MAX_DEPTH for line in kept):
        return None
    try:
        objects = json.loads("[" + ",".join(kept) + "]")
    except (ValueError, RecursionError):
        return None
    return objects if isinstance(objects, list) and len(objects) == len(kept) else None


def _line_number(lines: list[str], numbers: list[int] | None, k: int) -> int:
    """The line number of the ``k``-th non-blank line."""
    if numbers is not None:
        return numbers[k]
    return [n for n, line in enumerate(lines, start=1) if line.strip()][k]


def run_entry_line(text: str, k: int) -> int:
    """The line of ``results.json`` text where run ``k`` starts."""
    return line_of(text, ("runs", k))
