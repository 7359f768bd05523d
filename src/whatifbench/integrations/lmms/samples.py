"""``whatif import-results lmms-eval SAMPLES.jsonl|LOG_DIR --dataset DATASET --out RUN_DIR``.

lmms-eval logs one JSON line per document (``--log_samples``): the reply (``resps`` when it
differs from ``filtered_resps``), the prompt (``input``) and each metric's value, which for our
tasks is the record of ``utils.process_results`` (dataset name and items sha256, item id, the
task's own prediction and correctness). The importer checks that every line belongs to the given
dataset and was posed with whatifbench's prompt, then scores the replies with our pipeline
(``integrations.replay``), so results, intervals, reports and judges are whatifbench's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.dataset import MAX_LISTED, Dataset, iter_jsonl, problems_message
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import read_text
from whatifbench.errors import WhatifError
from whatifbench.integrations.common import image_labels, prompts
from whatifbench.integrations.lmms.export import PAIRED, task_name
from whatifbench.integrations.replay import ReplayBackend, replay
from whatifbench.runner.results import RunResult
from whatifbench.secrets import public_arguments, public_value

METRIC_KEYS = (*PAIRED, "accuracy", "unparsed")
"""Where a line of our task keeps its record (every reported metric holds the same one; a
metric of a group the suite reports apart is found by looking at the others)."""


@dataclass(frozen=True)
class Logged:
    """One line of a samples file."""

    item_id: str
    """The item it answers."""
    reply: str
    """The model's raw reply."""
    correct: bool | None
    """The task's own verdict (``None`` for free-text items, which it does not score)."""


@dataclass(frozen=True)
class Imported:
    """An imported run and how the task's own scoring compares with ours."""

    run: RunResult
    """The run, scored by whatifbench."""
    compared: int
    """Items both scored (free-text items are scored by whatifbench's judge only)."""
    disagreements: tuple[str, ...]
    """Items the task's ``utils.py`` scored differently from whatifbench (normally none)."""


def _record(line: dict[str, Any]) -> dict[str, Any] | None:
    keys = [*METRIC_KEYS, *(k for k in line if k not in METRIC_KEYS)]
    for key in keys:
        value = line.get(key)
        if isinstance(value, dict) and "items_sha256" in value and "id" in value:
            return value
    return None


def _reply(line: dict[str, Any]) -> Any:
    value = line.get("resps", line.get("filtered_resps"))
    while isinstance(value, list) and value:
        value = value[0]
    return value


def task_of(path: Path) -> str | None:
    """The task name in an lmms-eval samples file name (``DATE_samples_TASK.jsonl``)."""
    stem = path.name.removesuffix(".jsonl")
    return stem.split("_samples_", 1)[1] if "_samples_" in stem else None


def read_logged(path: Path, dataset: Dataset) -> list[Logged]:
    """The lines of a samples file, checked against ``dataset``; one ``WhatifError`` listing
    every problem (another task, another dataset, another prompt, unknown items)."""
    expected = prompts(dataset)
    items = {item.id: item for item in dataset.items}
    problems: list[str] = []
    logged: list[Logged] = []
    seen: dict[str, int] = {}
    for lineno, line in iter_jsonl(path):
        where = f"line {lineno}"
        record = _record(line) if isinstance(line, dict) else None
        if record is None:
            raise WhatifError(
                f"{path}:{lineno} holds no whatifbench record, so it is not a samples file of a "
                f"task written by 'whatif export --format lmms-eval' (its task is "
                f"{task_of(path) or 'unknown'}). Pass the samples file of the exported task.")
        if record["items_sha256"] != dataset.items_sha256:
            raise WhatifError(
                f"{path} holds samples of the whatifbench dataset "
                f"{record.get('whatifbench_dataset')!r} (items sha256 "
                f"{str(record['items_sha256'])[:12]}…), but {dataset.root} is the dataset "
                f"{dataset.card.name!r} (items sha256 {dataset.items_sha256[:12]}…): the samples "
                "were made on another dataset. Pass --dataset the dataset the task was exported "
                "from.")
        item = items.get(str(record["id"]))
        reply = _reply(line)
        if item is None:
            problems.append(f"{where}: item {record['id']!r} is not in the dataset")
            continue
        if item.id in seen:
            problems.append(f"{where}: item {item.id!r} was answered already on line "
                            f"{seen[item.id]} (import one reply per item: run without repeats)")
            continue
        seen[item.id] = lineno
        if not isinstance(reply, str):
            problems.append(f"{where}: the reply of item {item.id!r} is not text ({reply!r})")
            continue
        sent = line.get("input")
        posed = "".join(f"{label}:<image>\n" for label in image_labels(item)) + expected[item.id]
        if sent is not None and sent != posed:
            problems.append(f"{where}: item {item.id!r} was posed as {sent!r}, not with "
                            f"whatifbench's prompt {posed!r}")
            continue
        verdict = record.get("correct") if record.get("scored", True) else None
        logged.append(Logged(item.id, reply, None if verdict is None else bool(verdict)))
    if problems:
        raise WhatifError(problems_message(
            f"The lmms-eval samples file {path}", problems,
            "Import the samples of the task exported from this dataset, logged without edits to "
            "its prompts (re-export the task if whatifbench changed its prompts)."))
    if not logged:
        raise WhatifError(f"{path} holds no samples; run lmms-eval with --log_samples.")
    return logged


def run_config(path: Path, task: str | None) -> dict[str, Any]:
    """Model, model arguments (credentials left out), lmms-eval version and generation budget,
    from the ``DATE_results.json`` lmms-eval writes beside the samples (empty when absent)."""
    date = path.name.split("_samples_", 1)[0]
    results = path.with_name(f"{date}_results.json")
    if not results.is_file():
        return {}
    try:
        data = loads(read_text(results))
        config = data.get("config") or {}
        task_config = (data.get("configs") or {}).get(task or "", {})
    except (ValueError, AttributeError):
        return {}
    args = public_arguments(config.get("model_args"))  # a k=v,k=v string, or a dict
    budget = (task_config.get("generation_kwargs") or {}).get("max_new_tokens")
    return {"model": public_value(config.get("model")), "model_args": args,
            "lmms_eval_version": data.get("lmms_eval_version"), "results": str(results),
            "max_new_tokens": budget if isinstance(budget, int) else None}


NO_SAMPLES = (
    "lmms-eval writes a samples file only when run with --log_samples, and none at all when its "
    "model or task failed: it still exits with status 0 then, so look for 'Error during "
    "evaluation' and a traceback in what it printed, fix that, and run it again.")
"""Why an lmms-eval log folder may hold no samples file, and what to do."""


def samples_file(path: Path, dataset: Dataset) -> Path:
    """The samples file to import: ``path`` itself, or the one ``*_samples_TASK.jsonl`` inside
    an lmms-eval log folder (that of the task exported from ``dataset`` when there are several).
    A folder without one is a clear error (lmms-eval exits 0 when its model crashes)."""
    if path.is_file():
        return path
    if not path.is_dir():
        raise WhatifError(f"{path} does not exist; pass the *_samples_TASK.jsonl that lmms-eval "
                          "wrote with --log_samples (or its log folder).")
    found = sorted(p for p in path.rglob("*_samples_*.jsonl") if p.is_file())
    if not found:
        raise WhatifError(f"The lmms-eval log folder {path} holds no samples file "
                          f"(*_samples_TASK.jsonl). {NO_SAMPLES}")
    ours = [p for p in found if task_of(p) == task_name(dataset.card.name)]
    if len(found) == 1 or len(ours) == 1:
        return ours[0] if ours else found[0]
    listed = ", ".join(str(p) for p in (ours or found)[:MAX_LISTED])
    raise WhatifError(f"The lmms-eval log folder {path} holds {len(ours or found)} samples files "
                      f"({listed}); pass the one to import.")


def import_lmms_eval(samples: str | Path, dataset: Dataset, model: str | None = None,
                     store: str | Path | None = None) -> Imported:
    """Score a samples file of our exported task with whatifbench (see the module docstring)."""
    path = samples_file(Path(samples), dataset)
    logged = read_logged(path, dataset)
    task = task_of(path)
    config = run_config(path, task)
    args = config.get("model_args", {})
    name = model or "lmms-eval:" + ":".join(
        str(x) for x in (config.get("model") or "model", args.get("pretrained")) if x)
    digest = sha256_file(path)
    backend = ReplayBackend(name, {"model_args": args}, {x.item_id: x.reply for x in logged},
                            digest)
    source = {"tool": "lmms-eval", "samples": str(path), "samples_sha256": digest, "task": task,
              **{k: v for k, v in config.items() if k != "model_args"}}
    run = replay(dataset, backend, source, store, config.get("max_new_tokens"))
    ours = {s.item_id: s.correct for s in run.samples}
    compared = [x for x in logged if x.correct is not None]
    differ = tuple(x.item_id for x in compared if x.correct != ours.get(x.item_id))
    return Imported(run, len(compared), differ)
