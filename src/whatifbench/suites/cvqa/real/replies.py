"""``whatif export-replies RUN --out DIR``: a C-VQA-Real run's replies in the release's files,
so that anyone can score them with the release's own scripts and compare with ours.

For each C-VQA-Real run of the folder two CSV files are written (header ``img_path, query,
answer, new query, new answer, type, response, new_response``, one row per pair):

- ``<name>_responses.csv`` — the raw replies, as the release's ``run_eval_*.py`` scripts write
  them: the input of its ``scripts/format_response.py``;
- ``<name>_results_whatif.csv`` — what our ``--parser paper`` extracted, in the form
  ``format_response.py`` writes (``fail`` where it fails; ``release-crash`` where the release's
  script raises), byte for byte as it writes them (CRLF rows), so the two outputs can be
  compared with ``diff``, and
  ``scripts/calc_acc.py`` can be run on either.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from pathlib import Path
from typing import Annotated, Any

from whatifbench.core.outputs import staged_dir
from whatifbench.core.params import Param, declared
from whatifbench.core.registry import register
from whatifbench.core.suite import Sample
from whatifbench.errors import WhatifError
from whatifbench.runner.results import RunResult, load_runs
from whatifbench.suites.cvqa.real.paper_parser import CRASH, paper_boolean, paper_number
from whatifbench.suites.cvqa.table import HEADER

COLUMNS = (*HEADER, "response", "new_response")
"""The release's response files: the question table plus the two replies."""


def _release_value(sample: Sample | None) -> str:
    """Our paper parser's value for a reply as ``format_response.py`` writes it."""
    if sample is None:
        return ""
    reply = sample.response or ""
    found = paper_boolean(reply) if sample.group == "boolean" else paper_number(reply)
    if found.value is not None:
        return found.value
    return CRASH if found.flag == CRASH else "fail"


def pair_rows(run: RunResult) -> tuple[list[list[str]], list[list[str]]]:
    """Rows of the responses file and of our parsed file, one per complete pair in run order."""
    pairs: dict[str, dict[str, Sample]] = {}
    for s in run.samples:
        if s.pair_id is not None and s.role in ("original", "counterfactual"):
            pairs.setdefault(s.pair_id, {})[s.role] = s
    raw: list[list[str]] = []
    parsed: list[list[str]] = []
    for pair in pairs.values():
        o, c = pair.get("original"), pair.get("counterfactual")
        if o is None or c is None:
            continue
        image = str(o.meta.get("image") or o.meta.get("img_path") or "")
        head = [image, o.question, o.target, c.question, c.target, o.group or ""]
        raw.append([*head, o.response or "", c.response or ""])
        parsed.append([*head, _release_value(o), _release_value(c)])
    return raw, parsed


def _csv(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)  # the csv module's CRLF rows, as the release's scripts write them
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return buf.getvalue()


def file_stem(run: RunResult) -> str:
    """A file-name-safe ``<dataset>_<model>`` for a run."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{run.dataset}_{run.model}").strip("_")


@declared
def export_replies(
    run_dir: Annotated[str | Path, Param(
        "a 'whatif run' output folder", metavar="RUN", positional=True)],
    out: Annotated[str | Path, Param(
        "folder for <dataset>_<model>_responses.csv (input of the release's "
        "format_response.py) and _results_whatif.csv (our --parser paper, in the form "
        "format_response.py writes)", metavar="DIR")],
    overwrite: Annotated[bool, Param(
        "replace --out if it holds an earlier export of ours")] = False) -> list[Path]:
    """Write the two files of every C-VQA-Real run in ``run_dir`` as the new folder ``out``
    (staged, published whole; ``overwrite`` replaces an earlier export of ours); their paths."""
    runs = [r for r in load_runs(run_dir) if r.suite == "cvqa-real"]
    if not runs:
        raise WhatifError(f"{run_dir} holds no C-VQA-Real run; export-replies writes the C-VQA "
                          "release's response files, so pass a folder of 'whatif run' on a "
                          "cvqa-real dataset.")
    for run in runs:
        if not run.samples:
            raise WhatifError(f"{run_dir} has no samples.jsonl entries for {run.model}; the "
                              "replies are needed.")
    names: list[str] = []
    with staged_dir(out, overwrite, inputs=(run_dir,), kind="export") as stage:
        for run in runs:
            raw, parsed = pair_rows(run)
            for suffix, rows in (("responses", raw), ("results_whatif", parsed)):
                name = f"{file_stem(run)}_{suffix}.csv"
                (stage / name).write_text(_csv(rows), encoding="utf-8", newline="")
                names.append(name)
    return [Path(out) / name for name in names]


@register("command", "export-replies")
class ExportRepliesCommand:
    """Write a C-VQA-Real run's replies as the release's response CSV (and our paper parse)."""

    @staticmethod
    @functools.wraps(export_replies, assigned=())
    def entry(*args: Any, **kwargs: Any) -> int:
        """``RUN --out DIR [--overwrite]``: ``export_replies`` (its signature is this one's),
        then the files listed."""
        for path in export_replies(*args, **kwargs):
            print(path)
        return 0
