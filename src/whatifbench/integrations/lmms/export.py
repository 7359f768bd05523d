"""``whatif export DATASET --format lmms-eval --out DIR``: an lmms-eval task folder.

``DIR`` holds the task YAML, ``utils.py`` (the plain task code of ``task_utils.py``, which imports
nothing from whatifbench), ``whatifbench_dataset.json`` (the dataset's identity and the metrics to
report), a README and, unless ``dataset_path`` names one elsewhere, the dataset itself as a
Hugging Face folder ``DIR/hf`` (what ``lmms-eval`` loads, offline).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.fsutil import write_text_atomic
from whatifbench.core.outputs import check_output, staged_dir
from whatifbench.core.suite import suite_for
from whatifbench.integrations.common import max_new_tokens
from whatifbench.integrations.hf_datasets import SPLIT, export_hf

TEMPLATE = Path(__file__).with_name("task_utils.py")
"""The task code copied as ``utils.py``."""
IDENTITY = "whatifbench_dataset.json"
PAIRED = ("original_accuracy", "counterfactual_accuracy", "drop", "pair_accuracy")
LOWER_IS_BETTER = ("drop", "unparsed")


@dataclass(frozen=True)
class LmmsTask:
    """What ``export_lmms_eval`` wrote."""

    folder: Path
    """The task folder (pass it to ``lmms-eval --include_path``)."""
    task: str
    """The task name (``--tasks``)."""
    dataset_path: str
    """What the YAML's ``dataset_path`` names (the ``hf`` folder, or the given path/hub id)."""
    metrics: tuple[str, ...]
    """The metrics the task reports."""


def task_name(dataset_name: str) -> str:
    """``whatif_`` + the dataset name in lower case with ``_`` for anything else."""
    return "whatif_" + (re.sub(r"[^a-z0-9]+", "_", dataset_name.lower()).strip("_") or "suite")


def pair_roles(data: Dataset) -> list[str] | None:
    """The two roles of the suite's pairs (``Suite.pair_roles``), if the items have both."""
    roles = suite_for(data.suite).pair_roles
    present = {item.role for item in data.items}
    return list(roles) if roles is not None and set(roles) <= present else None


def group_metrics(data: Dataset) -> list[tuple[str, str]]:
    """(metric name, group) of each group the suite reports apart (``Suite.reported_groups``);
    the name is the group's, made a Python identifier."""
    return [(g if g.isidentifier() else "group_" + re.sub(r"\W", "_", g), g)
            for g in suite_for(data.suite).reported_groups(data.items)]


def metrics_for(data: Dataset) -> list[str]:
    """The metrics the task reports: the paired ones when the suite has pairs, the groups the
    suite reports apart, then accuracy and the unparsed share."""
    return [*(PAIRED if pair_roles(data) else ()), *(n for n, _ in group_metrics(data)),
            "accuracy", "unparsed"]


def identity(data: Dataset, task: str, metrics: list[str]) -> dict[str, object]:
    """``whatifbench_dataset.json``: which dataset, which roles pair up, which metrics
    (``metrics_for``), which groups name their options in words (``Suite.option_words``)."""
    return {"name": data.card.name, "suite": data.suite, "items_sha256": data.items_sha256,
            "task": task, "roles": pair_roles(data), "metrics": metrics,
            "option_words": suite_for(data.suite).option_words()}


def task_code(data: Dataset) -> str:
    """``utils.py``: the plain task code, then one aggregation per group reported apart."""
    lines = [f"{name} = group_metric({group!r})" for name, group in group_metrics(data)]
    return TEMPLATE.read_text(encoding="utf-8") + "".join(f"{line}\n" for line in lines)


def task_yaml(data: Dataset, task: str, dataset_path: str, metrics: list[str]) -> str:
    """The task YAML (written by hand: lmms-eval's ``!function`` tags)."""
    counts = data.card.counts
    lines = [
        (f"# lmms-eval task for the whatifbench dataset {data.card.name!r} (suite {data.suite}, "
         f"{len(data.items)} items, {counts.get('pairs', 0)} pairs)."),
        "# Written by 'whatif export --format lmms-eval'; README.md says how to run and import it.",
        f"task: {task}",
        f"dataset_path: {json.dumps(dataset_path)}",
        f"test_split: {SPLIT}",
        "output_type: generate_until",
        "doc_to_visual: !function utils.doc_to_visual",
        "doc_to_text: !function utils.doc_to_text",
        "doc_to_messages: !function utils.doc_to_messages",
        "doc_to_target: target",
        "process_results: !function utils.process_results",
        "generation_kwargs:  # greedy, whatifbench's token budget for this suite",
        f"  max_new_tokens: {max_new_tokens(data)}",
        "  temperature: 0",
        "  do_sample: false",
        "  num_beams: 1",
        "  until: []",
        "reasoning_tags: none  # the reply reaches utils.extract unchanged (it drops <think>)",
        "metric_list:",
    ]
    for name in metrics:
        lines += [f"  - metric: {name}", f"    aggregation: !function utils.{name}",
                  f"    higher_is_better: {'false' if name in LOWER_IS_BETTER else 'true'}"]
    lines += ["metadata:", "  version: 1.0",
              f"  whatifbench_items_sha256: {data.items_sha256}"]
    return "\n".join(lines) + "\n"


def readme(data: Dataset, task: str, has_data: bool) -> str:
    """How to run the task and bring its samples back."""
    return "\n".join([
        f"# lmms-eval task `{task}`", "",
        (f"The whatifbench dataset `{data.card.name}` (suite `{data.suite}`) as an lmms-eval "
         "task: whatifbench's prompts, answer extraction and paired metrics (original and "
         "counterfactual accuracy, drop, pair accuracy; the pair is the unit). `utils.py` "
         "imports nothing from whatifbench; copy this folder into `lmms_eval/tasks/` or pass it "
         "with `--include_path`."),
        "" if has_data else "\nThe YAML's `dataset_path` names the data; edit it if it moves.",
        "```bash",
        (f"lmms-eval --model llava_hf --model_args pretrained=llava-hf/llava-1.5-7b-hf "
         f"--tasks {task} --include_path THIS_FOLDER --batch_size 1 --log_samples "
         "--output_path logs/"),
        (f"whatif import-results lmms-eval logs/MODEL/DATE_samples_{task}.jsonl "
         "--dataset WHATIF_DATASET --out runs/lmms"),
        "```", "",
        ("The second command turns the logged samples into a whatifbench run folder "
         "(results.json with intervals, samples, report) and grades free-text answers."), "",
    ])


def export_lmms_eval(dataset: str | Path | Dataset, out: str | Path, overwrite: bool = False,
                     task: str | None = None, dataset_path: str | None = None,
                     license: str = "unknown", with_answers: bool = False) -> LmmsTask:
    """Write the task folder (complete or not at all); the data goes to ``out/hf`` unless
    ``dataset_path`` (a folder or hub id holding the ``--format hf`` export) is given; it holds
    the items' public view unless ``with_answers`` (``hf_datasets.export_hf``)."""
    if not isinstance(dataset, Dataset):
        check_output(out, (dataset,), overwrite, kind="export")  # before reading the dataset
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    out = Path(out)
    name = task or task_name(data.card.name)
    path = dataset_path or str(out.resolve() / "hf")
    metrics = metrics_for(data)
    facts = identity(data, name, metrics)
    with staged_dir(out, overwrite, inputs=(data.root,), kind="export") as stage:
        if dataset_path is None:
            export_hf(data, stage / "hf", license=license, with_answers=with_answers)
        write_text_atomic(stage / f"{name}.yaml", task_yaml(data, name, path, metrics))
        write_text_atomic(stage / "utils.py", task_code(data))
        write_text_atomic(stage / IDENTITY, json.dumps(facts, indent=2, ensure_ascii=False) + "\n")
        write_text_atomic(stage / "README.md", readme(data, name, dataset_path is None))
    return LmmsTask(out, name, path, tuple(metrics))
