"""CELLO tables: one row per run, accuracies by rung, task type, graph type; distractor errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from whatifbench.core.table import Cell, Table, fmt
from whatifbench.metrics.stats import wilson_of_percent
from whatifbench.report.labels import labeller, model_name
from whatifbench.runner.results import RunResult
from whatifbench.suites.cello.causal.tasks import RUNGS, TASKS
from whatifbench.suites.cello.causal.templates import GRAPH_TYPES
from whatifbench.suites.cello.metrics import ERROR_KINDS

RUNG_NOTE = ("Rungs: discovery CaI CA AR; association CB; intervention CoI BAS CDE; "
             "counterfactual CR NDE NIE SC NC.")
KIND_NOTE = ("image: in the image, not in the causal graph; graph: in the causal graph, part of "
             "the answer; text: in neither, induced by the question; unknown: imported items "
             "whose distractor kind is not recorded. Contrast sets (shortcut-free): the "
             "distractors are the other images' answers, labelled by where they are in this "
             "image.")
SET_NOTE = ("A contrast set asks one question, with the same options, about two to four images "
            "that answer it differently. A model that answers from the text alone gives every "
            "member the same answer and is right on exactly one: 0 % of sets all right; "
            "guessing at random gets 25 % of Yes/No pairs and 0.4 % of four-option sets.")


def _labeller(runs: Sequence[RunResult]) -> Callable[[RunResult], str]:
    """Row labels (``report.labels``) that also name the release's protocol family when a run
    used it (``model [paper:llava]``), even when every run shown did."""
    label = labeller(runs)

    def shown(run: RunResult) -> str:
        text = label(run)
        prompt = run.spec.protocol.prompt if run.spec.protocol else "default"
        if not prompt.startswith("paper") or "prompt=" in text:
            return text
        name = model_name(run)
        rest = text[len(name):]
        if rest.startswith(" ["):
            return f"{name} [{prompt}, {rest[2:]}"
        return f"{name} [{prompt}]{rest}"
    return shown


def _acc(block: dict, key: str) -> str | Cell:
    """Accuracy with its 95% Wilson interval and count."""
    entry = block.get(key)
    if not entry:
        return "–"
    n = int(entry["n"])
    return Cell(entry["accuracy"], ci=wilson_of_percent(entry["accuracy"], n), n=n)


def rung_table(runs: Sequence[RunResult]) -> Table:
    """Overall, per rung, binary vs multiple choice, unparsed."""
    label = _labeller(runs)
    rows = tuple((label(r), _acc({"all": {"accuracy": r.metrics["accuracy"],
                                          "n": r.metrics["n_items"]}}, "all"),
                  *(_acc(r.metrics["by_rung"], k) for k in RUNGS),
                  _acc(r.metrics["by_format"], "binary"),
                  _acc(r.metrics["by_format"], "multiple_choice"), fmt(r.metrics["unparsed"]))
                 for r in runs)
    n = runs[0].metrics["n_items"] if runs else 0
    return Table(f"CELLO: {runs[0].dataset if runs else ''} — accuracy by rung",
                 ("model", "overall", *RUNGS, "binary", "multiple choice", "unparsed %"), rows,
                 notes=((f"Accuracy in %, {n} items; ± = 95% Wilson interval (report.md, "
                        "report.html)."),))


def task_table(runs: Sequence[RunResult]) -> Table:
    """One column per task type (the paper's abbreviations)."""
    label = _labeller(runs)
    rows = tuple((label(r), *(_acc(r.metrics["by_task_type"], t) for t in TASKS)) for r in runs)
    return Table("CELLO: accuracy by task type",
                 ("model", *(task.abbrev for task in TASKS.values())), rows,
                 notes=(RUNG_NOTE,))


def graph_table(runs: Sequence[RunResult]) -> Table:
    """One column per graph type."""
    label = _labeller(runs)
    rows = tuple((label(r), *(_acc(r.metrics["by_graph_type"], g) for g in GRAPH_TYPES))
                 for r in runs)
    return Table("CELLO: accuracy by graph type", ("model", *GRAPH_TYPES), rows)


def distractor_table(runs: Sequence[RunResult]) -> Table:
    """Which kind of option wrong multiple-choice answers picked."""
    rows = []
    label = _labeller(runs)
    for r in runs:
        d = r.metrics["distractor_errors"]
        rows.append((label(r), str(d["n_errors"]),
                     *(fmt(d["by_kind"][k]["share_of_errors"]) for k in ERROR_KINDS)))
    return Table("CELLO: kind of option chosen when wrong (% of multiple-choice errors)",
                 ("model", "errors", *ERROR_KINDS), tuple(rows),
                 notes=(KIND_NOTE,))


def contrast_table(runs: Sequence[RunResult]) -> Table:
    """Contrast sets answered right in every member, overall and per task type."""
    label = _labeller(runs)
    blocks = [r.metrics.get("contrast_sets") or {} for r in runs]
    tasks = [t for t in TASKS if any(t in b.get("by_task_type", {}) for b in blocks)]

    def cell(block: dict) -> str | Cell:
        if not block:
            return "–"
        n = int(block["sets"])
        return Cell(block["all_right"], ci=wilson_of_percent(block["all_right"], n), n=n)

    rows = tuple((label(r), cell(b), *(cell(b.get("by_task_type", {}).get(t, {}))
                                       for t in tasks)) for r, b in zip(runs, blocks, strict=True))
    return Table("CELLO: contrast sets with every member right (%)",
                 ("model", "all sets", *(TASKS[t].abbrev for t in tasks)), rows,
                 notes=(SET_NOTE,))


def cello_tables(runs: Sequence[RunResult]) -> list[Table]:
    """The rung, task-type, graph-type and distractor tables, and the contrast-set table when
    a run's items hold contrast sets."""
    tables = [rung_table(runs), task_table(runs), graph_table(runs), distractor_table(runs)]
    if any(r.metrics.get("contrast_sets") for r in runs):
        tables.append(contrast_table(runs))
    return tables
