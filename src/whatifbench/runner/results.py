"""Run results: one entry of ``results.json`` plus its samples and execution counts."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from whatifbench import secrets as credentials
from whatifbench.core.jsonfile import MAX_DEPTH, loads
from whatifbench.core.readfile import read_text
from whatifbench.core.suite import Sample
from whatifbench.errors import WhatifError


@dataclass(frozen=True)
class Execution:
    """How a run was executed (not part of ``results.json``, which stays deterministic)."""

    from_store: int = 0
    """Responses served by the run store (cache hits and resumed work)."""
    computed: int = 0
    """Responses computed by the backend in this invocation."""
    errors: int = 0
    """Requests that failed after all retries (retried on the next run)."""
    seconds: float = 0.0
    """Wall-clock time of the run."""
    judge_from_store: int = 0
    """Judge calls (free-text grading) served by the run store; not counted above."""
    judge_computed: int = 0
    """Judge calls computed in this invocation; not counted above."""
    judge_errors: int = 0
    """Judge calls that failed after all retries; not counted above."""

    def summary(self, n_items: int) -> str:
        """``16 items, 0 from the store, 16 computed, 0 errors; judge: 4 calls (…), 0.3s``:
        model responses and judge calls are counted apart."""
        made = self.from_store + self.computed + self.errors
        calls = "" if made == n_items else f" ({made} model requests)"
        text = (f"{n_items} items{calls}, {self.from_store} from the store, {self.computed} "
                f"computed, {self.errors} errors")
        judged = self.judge_from_store + self.judge_computed + self.judge_errors
        if judged:
            text += (f"; judge: {judged} calls ({self.judge_from_store} from the store, "
                     f"{self.judge_computed} computed, {self.judge_errors} errors)")
        return f"{text}, {self.seconds:.1f}s"


@dataclass(frozen=True)
class RunResult:
    """The evaluation of one dataset by one model."""

    suite: str
    """The suite name (protocol and metrics)."""
    dataset: str
    """The dataset's name from its card."""
    model: str
    """The backend spec."""
    n_items: int
    """Items evaluated."""
    metrics: dict[str, Any]
    """The suite's metrics."""
    spec: dict[str, Any]
    """Everything needed to reproduce the run (suite, data hashes, backend, protocol, versions)."""
    samples: list[Sample] = field(default_factory=list, compare=False)
    """Per-item records."""
    execution: Execution = field(default_factory=Execution, compare=False)
    """Cache hits, computed responses, errors, time."""
    recorded_errors: int = field(default=0, compare=False)
    """``errors`` as read from ``results.json`` (used when the samples are not at hand)."""

    @property
    def n_errors(self) -> int:
        """Items that ended in a backend error (the model's or the judge's call failed after
        all retries): scored wrong, shown in every table, retried by the next run."""
        if not self.samples:
            return self.recorded_errors
        memo = self.__dict__.get("_n_errors")  # tables ask many times; counted once per length
        if memo is None or memo[0] != len(self.samples):
            memo = (len(self.samples), sum(backend_failed(s) for s in self.samples))
            self.__dict__["_n_errors"] = memo  # a cache, not a field (the record stays frozen)
        return int(memo[1])

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` entry."""
        return {"suite": self.suite, "dataset": self.dataset, "model": self.model,
                "n_items": self.n_items, "errors": self.n_errors, "metrics": self.metrics,
                "spec": self.spec}


def backend_failed(sample: Sample) -> bool:
    """The item's model call failed, or a judge call grading it did (a judged suite marks those
    parts ``"failure": "judge-error"`` in ``judgement["parts"]``)."""
    if sample.error is not None:
        return True
    if not sample.judgement:
        return False
    parts = sample.judgement.get("parts") if isinstance(sample.judgement, dict) else None
    return isinstance(parts, dict) and any(
        isinstance(p, dict) and p.get("failure") == "judge-error" for p in parts.values())


RUN_FIELDS: dict[str, type | tuple[type, ...]] = {
    "suite": str, "dataset": str, "model": str, "n_items": int, "metrics": dict}
"""Required fields of a ``results.json`` run entry and their JSON types."""
SPEC_FIELDS = frozenset({
    "suite", "dataset", "backend", "protocol", "selection", "demonstrations", "whatifbench",
    "git_revision", "image_ablation", "judge", "request", "model_name", "human", "source",
    "estimate", "budget"})
"""The fields of a run spec that whatifbench writes; others (another tool's, a hand edit's)
are not read, so they never reach a report or a merged results.json."""
MAX_RESULTS_MB = 128
"""Largest ``results.json`` read: whatif writes metrics and specs, a few MB even for many
runs; a larger file holds something else, and reading it would take gigabytes."""


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


def new_run_id() -> str:
    """A random id for one run output folder (``results.json`` and each ``samples.jsonl`` line)."""
    return uuid.uuid4().hex


def default_run_folder() -> Path:
    """``whatif-out/run-YYYYmmdd-HHMMSS-XXXXXX``: unique even for runs started in the same
    second (the random suffix; the folder is published with a rename that never replaces)."""
    return Path("whatif-out") / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def load_runs(folder: str | Path) -> list[RunResult]:
    """Read a run folder written by ``whatif run`` (``results.json`` + ``samples.jsonl``).

    Refuses, with a sentence, a ``results.json`` that is not ours or lacks fields, and a
    ``samples.jsonl`` whose lines carry another ``run_id`` than ``results.json`` (files of two
    different runs side by side). Folders written before run ids existed have none in either.
    """
    folder = Path(folder)
    results = folder / "results.json"
    if not results.is_file():
        if (folder / "card.json").is_file() and (folder / "items.jsonl").is_file():
            raise WhatifError(
                f"{folder} is a dataset folder (card.json), not a run folder: this command reads "
                "the folders 'whatif run --out' writes. Pass a run folder, or evaluate this "
                f"dataset first: whatif run --suite {folder} --out RUN_DIR.")
        raise WhatifError(
            f"{folder} holds no results.json; pass a folder written by 'whatif run --out'."
        )
    size = results.stat().st_size
    if size > MAX_RESULTS_MB << 20:
        raise WhatifError(
            f"{results} is {size / 2**20:.0f} MB; whatifbench's results files hold metrics and "
            f"specs (a few MB) and it reads none over {MAX_RESULTS_MB} MB. It holds something "
            "else: re-create the folder with 'whatif run --out' (answers come from the run "
            "store at no cost).")
    try:
        data = loads(read_text(results))
        entries = data["runs"]
        if not isinstance(entries, list):
            raise TypeError("'runs' is not a list")
    except (ValueError, KeyError, TypeError) as exc:
        raise WhatifError(f"{results} is not a whatifbench results file ({exc}).") from None
    for n, entry in enumerate(entries, start=1):
        problems = _entry_problems(entry)
        if problems:
            raise WhatifError(
                f"{results}: run {n} of {len(entries)} {problems}; the file was not written by "
                "'whatif run' or was edited. Re-create the folder with 'whatif run --out' "
                "(answers come from the run store at no cost).")
    recorded = data.get("runs_sha256")
    if recorded is not None and recorded != runs_digest(entries):
        raise WhatifError(
            f"{results} was changed after the run wrote it (its runs do not have the sha256 "
            "it records), so its tables would not be the run's. Restore the file, or re-create "
            "the folder with 'whatif run --out' (answers come from the run store at no cost).")
    run_id = data.get("run_id")
    samples = _read_samples(folder / "samples.jsonl", results, run_id,
                            data.get("samples_sha256"))
    runs = []
    shared = Counter((e["dataset"], e["model"]) for e in entries)
    for e in entries:
        # Runs of one model on one dataset (other protocols or arguments, merged reports) each
        # take their own n_items samples, in run order.
        key = (e["dataset"], e["model"])
        pool = samples.get(key, [])
        mine = pool[:e["n_items"]] if shared[key] > 1 else pool[:]
        del pool[:len(mine)]
        runs.append(RunResult(suite=e["suite"], dataset=e["dataset"],
                              model=credentials.redact(e["model"]), n_items=e["n_items"],
                              metrics=e["metrics"],
                              spec=credentials.redact_value(
                                  {k: v for k, v in (e.get("spec") or {}).items()
                                   if k in SPEC_FIELDS}), samples=mine,
                              recorded_errors=int(e.get("errors") or 0)))
    return runs


def _entry_problems(entry: object) -> str | None:
    if not isinstance(entry, dict):
        return "is not a JSON object"
    missing = [k for k in RUN_FIELDS if k not in entry]
    if missing:
        return f"lacks the field(s) {', '.join(missing)}"
    wrong = [k for k, t in RUN_FIELDS.items()
             if not isinstance(entry[k], t) or isinstance(entry[k], bool)]
    if not isinstance(entry.get("spec") or {}, dict):
        wrong.append("spec")
    return f"has field(s) of the wrong type: {', '.join(wrong)}" if wrong else None


def _sealed_samples(text: str, run_id: str | None
                    ) -> dict[tuple[str, str], list[Sample]] | None:
    """The samples of a ``samples.jsonl`` text that has the digest its ``results.json``
    records (so whatif wrote it, one complete record per line): one parse of all lines, each
    record taken as it was written. ``None`` when anything is unexpected: the caller then
    reads line by line and says which line is wrong."""
    lines = [line for line in text.split("\n") if line.strip()]
    if any(line.count("[") + line.count("{") >= MAX_DEPTH for line in lines):
        return None
    try:
        objects = json.loads("[" + ",".join(lines) + "]")
    except (ValueError, RecursionError):
        return None
    if not isinstance(objects, list) or len(objects) != len(lines):
        return None
    names = {f.name for f in fields(Sample)}
    samples: dict[tuple[str, str], list[Sample]] = {}
    for obj in objects:
        if (not isinstance(obj, dict) or obj.get("run_id") != run_id
                or not names <= obj.keys()):
            return None
        dataset, model = obj.get("dataset"), obj.get("model")
        if not isinstance(dataset, str) or not isinstance(model, str):
            return None
        sample = object.__new__(Sample)  # every field present: what __init__ would set
        sample.__dict__.update({k: v for k, v in obj.items() if k in names})
        samples.setdefault((dataset, model), []).append(sample)
    return samples


def _changed(path: Path, results: Path, why: str) -> str:
    """The message for a ``samples.jsonl`` that does not match its ``results.json``."""
    return (f"{path} was changed after the run wrote it ({why}), so the items shown would "
            f"contradict the tables of {results.name}. Restore the file, or re-create the folder "
            "with 'whatif run --out' (answers come from the run store at no cost).")


def _read_samples(path: Path, results: Path, run_id: str | None,
                  expected: object = None) -> dict[tuple[str, str], list[Sample]]:
    """Samples by (dataset, model); each line must carry ``run_id``, and the records must have
    the digest ``results.json`` records (``expected``; absent in folders of older versions)."""
    samples: dict[tuple[str, str], list[Sample]] = {}
    if not path.is_file():
        if run_id is not None:
            raise WhatifError(f"{results.parent} has results.json (run {run_id}) but no "
                              "samples.jsonl; the folder is incomplete. Re-create it with "
                              "'whatif run --out'.")
        return samples
    text = read_text(path)
    intact = expected is None or samples_digest(text, run_id) == expected
    if expected is not None and intact:
        sealed = _sealed_samples(text, run_id)
        if sealed is not None:
            return sealed
    names = {f.name for f in fields(Sample)}
    for lineno, line in enumerate(text.split("\n"), start=1):  # never splitlines: U+2028
        if not line.strip():
            continue
        try:
            obj = json.loads(line) if line.count("[") + line.count("{") < MAX_DEPTH else loads(line)
            sample = Sample(**{k: v for k, v in obj.items() if k in names})
        except (ValueError, TypeError, AttributeError) as exc:
            raise WhatifError(f"{path}:{lineno} is not a sample record ({exc}).") from None
        if obj.get("run_id") != run_id:
            raise WhatifError(
                f"{path}:{lineno} belongs to run {obj.get('run_id') or '(none)'}, but "
                f"{results.name} beside it is run {run_id or '(none)'}: the two files come from "
                "different runs (an interrupted write by an older version, or files copied "
                "together), and merging them would mislead. Re-create the folder with 'whatif "
                "run --out' (answers come from the run store at no cost).")
        samples.setdefault((obj.get("dataset"), obj.get("model")), []).append(sample)
    if not intact:
        raise WhatifError(_changed(path, results, "its records do not have the sha256 "
                                   f"{results.name} beside it records"))
    return samples
