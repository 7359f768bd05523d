"""Collect each suite's tables and figures for a set of runs and write results, samples, reports
and tables as data."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.core.fsutil import dumps
from whatifbench.core.outputs import PathLike, staged_dir
from whatifbench.core.records.results_file import results_text, samples_digest, seal
from whatifbench.core.table import Table
from whatifbench.report import REPLY_CHARS
from whatifbench.report.comparisons import (
    comparison_tables,
    comparisons_json,
    comparisons_payload,
)
from whatifbench.report.default_tables import suite_tables
from whatifbench.report.errors import mark_errors
from whatifbench.report.human import human_tables, humans_last, note_humans
from whatifbench.report.labels import distinct_datasets, run_labels, shown_together
from whatifbench.report.marks import mark_estimates
from whatifbench.report.page import page_html
from whatifbench.report.payload import Options, Source, build_payload, cut_texts
from whatifbench.report.programs import program_failure_table
from whatifbench.report.reference import CHANCE, references, with_references
from whatifbench.report.sources import EXECUTION, execution_json, fresh
from whatifbench.report.table_export import to_csv, to_latex
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.results import RunResult, new_run_id
from whatifbench.secrets import redact

DEFAULT = Options()
TABLES = "tables"
"""Folder beside report.md with every table as CSV and LaTeX."""


def tables_for(runs: Sequence[RunResult], roots: Sequence[Path] = (),
               slices: bool = True) -> list[Table]:
    """Each suite's tables over the runs of each dataset (datasets and runs in first-seen
    order), with backend errors marked in each (``report.errors``), reference rows
    (``report.reference``; ``roots``: where moved datasets are) and the paired comparisons
    (``report.comparisons``; ``slices``: also per slice); datasets of one name are told apart by
    their hash (``labels.distinct_datasets``)."""
    return [t for group in shown_together(distinct_datasets(runs))
            for t in dataset_tables(group, roots, slices)]


def dataset_tables(runs: Sequence[RunResult], roots: Sequence[Path] = (),
                   slices: bool = True) -> list[Table]:
    """The tables of the runs of one dataset: the suite's, then program outcomes (if any), then
    the human baseline's (``report.human``: people's rows come after the models), then the
    paired comparisons of the models (``report.comparisons``; ``slices``: also per slice), each
    with the runs' backend errors marked; the chance and blind rows added to every table of
    runs (``report.reference``; ``roots``: where moved datasets are)."""
    runs = humans_last(runs)
    own = [note_humans(t, runs) for t in suite_tables(get_suite(runs[0].suite), runs)]
    marked = [mark_estimates(mark_errors(t, runs), runs)
              for t in (*own, *program_failure_table(runs), *human_tables(runs),
                        *comparison_tables(runs, slices))]
    return with_references(marked, runs, roots)


def runs_table(sources: Sequence[Source]) -> Table:
    """Which run folder each row came from."""
    rows = []
    shown = distinct_datasets([s.run for s in sources])
    folder = {id(run): src.folder for run, src in zip(shown, sources, strict=True)}
    for group in shown_together(shown):
        labels = run_labels(group)
        for run, label in zip(group, labels, strict=True):
            rows.append((label, run.suite, run.dataset, run.model,
                         folder[id(run)] or "(this run)"))
    return Table("Runs: where each row comes from", ("row", "suite", "dataset", "model spec",
                                                      "run folder"), tuple(rows))


def results_json(runs: Sequence[RunResult], run_id: str | None = None,
                 samples_sha256: str | None = None) -> str:
    """The text of ``results.json`` (``core.records.results_file``: versioned, its schema in
    docs/files.md), with the comparisons of ``report.comparisons.comparisons_json``: every two
    runs of a dataset, and multimodal gains."""
    return results_text(runs, comparisons_json(runs), run_id, samples_sha256)


def samples_jsonl(runs: Sequence[RunResult], run_id: str | None = None,
                  full_replies: bool = False) -> str:
    """The text of ``samples.jsonl``: one line per sample, tagged with the ``run_id`` (when
    given), dataset and model; replies cut at ``REPLY_CHARS`` unless ``full_replies``."""
    head = {"run_id": run_id} if run_id is not None else {}
    lines = []
    for run in runs:
        for s in run.samples:
            record = {**head, "dataset": run.dataset, "model": run.model, **s.to_json()}
            line = dumps(record)
            if not full_replies and len(line) > REPLY_CHARS:  # only a long line can need a cut
                line = dumps(_cut_replies(record))
            lines.append(line)
    return "\n".join(lines) + "\n"


def _cut_replies(sample: dict[str, Any]) -> dict[str, Any]:
    """Texts longer than ``REPLY_CHARS`` in the replies cut, with a note saying how to keep
    them whole."""
    return {k: cut_texts(v, REPLY_CHARS, _cut) if k in ("response", "trace", "judgement") else v
            for k, v in sample.items()}


def _cut(text: str) -> str:
    return (f"{text[:REPLY_CHARS]} … [cut at {REPLY_CHARS:,} of {len(text):,} characters; run "
            "again with --full-replies to keep whole replies (from the run store, without new "
            "calls)]")


def _figure_entries(runs: list[RunResult]) -> list[dict[str, Any]]:
    from whatifbench.report.draw import svg
    from whatifbench.report.figures import figures_for

    out = []
    for spec in figures_for(runs):
        data = base64.b64encode(svg(spec).encode("utf-8")).decode("ascii")
        out.append({"name": spec.name, "title": spec.title,
                    "src": f"data:image/svg+xml;base64,{data}"})
    return out


def explorer_payload(sources: Sequence[Source], options: Options = DEFAULT) -> dict[str, Any]:
    """The explorer's data for these runs (tables and figures included); people's runs
    (``whatif human``) after the models, as in the tables."""
    position = {id(r): k for k, r in enumerate(humans_last([s.run for s in sources]))}
    sources = sorted(sources, key=lambda s: position[id(s.run)])

    def per_dataset(runs: list[RunResult]) -> dict[str, Any]:
        tables = dataset_tables(runs, options.dataset_roots)
        chance = references(runs, options.dataset_roots).headline
        return {"tables": [t.to_json() for t in tables], "figures": _figure_entries(runs),
                "comparisons": comparisons_payload(runs),
                "reference": [{"label": CHANCE, "value": chance}] if chance is not None else []}

    shown = distinct_datasets([src.run for src in sources])
    return build_payload([replace(src, run=run) for src, run in zip(sources, shown, strict=True)],
                         per_dataset, options)


def report_html(sources: Sequence[Source], options: Options = DEFAULT) -> str:
    """The explorer page for these runs."""
    return page_html(explorer_payload(sources, options))


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())[:60]


def write_tables(out: Path, tables: Sequence[Table]) -> list[Path]:
    """Every table as ``tables/NN-title.csv`` and ``.tex`` in a new folder ``out/tables``
    (each text passes ``secrets.redact``)."""
    folder = out / TABLES
    folder.mkdir()
    written = []
    for k, table in enumerate(tables, start=1):
        stem = f"{k:02d}-{_slug(table.title)}"
        for suffix, text in ((".csv", to_csv(table)), (".tex", to_latex(table))):
            path = folder / f"{stem}{suffix}"
            path.write_text(redact(text), encoding="utf-8")
            written.append(path)
    return written


def write_outputs(out: PathLike, runs: Sequence[RunResult], overwrite: bool = False,
                  inputs: Iterable[PathLike] = (), *, sources: Sequence[Source] | None = None,
                  options: Options = DEFAULT, full_replies: bool = False) -> dict[str, Path]:
    """Write ``results.json``, ``samples.jsonl``, ``execution.json``, ``report.md``,
    ``report.html`` (the explorer) and ``tables/`` (CSV, LaTeX) as one unit.

    The files are written into a staging folder that becomes ``out`` in one rename
    (``core.outputs.staged_dir``): ``out`` must be new (or empty) unless ``overwrite``, which
    replaces only a run folder we wrote. A fresh ``run_id`` goes into ``results.json`` and every
    ``samples.jsonl`` line, so readers can tell that the two belong together. ``inputs`` (the
    datasets, run folders read) must not be touched by ``out``. Every text passes
    ``secrets.redact`` (a key a server echoed never lands in an output). ``sources`` tell where
    loaded runs came from (default: evaluated here). ``samples.jsonl`` keeps at most
    ``REPLY_CHARS`` of one reply unless ``full_replies``.
    """
    sources = list(sources) if sources is not None else fresh(runs)
    tables = tables_for(runs, options.dataset_roots)
    run_id = new_run_id()
    names = ("samples.jsonl", EXECUTION, "report.md", "report.html", "results.json", TABLES)
    md = "# whatifbench results\n\n" + "\n\n".join(
        t.to_markdown() for t in [*tables, runs_table(sources)]) + "\n"
    samples = redact(samples_jsonl(runs, run_id, full_replies))
    digest = samples_digest(samples, run_id)
    with staged_dir(out, overwrite, inputs, kind="run") as stage:
        (stage / "samples.jsonl").write_text(samples, encoding="utf-8")  # redacted above
        for name, text in ((EXECUTION, execution_json(sources)), ("report.md", md)):
            (stage / name).write_text(redact(text), encoding="utf-8")
        write_tables(stage, tables)
        (stage / "report.html").write_text(redact(report_html(sources, options)),
                                           encoding="utf-8")
        (stage / "results.json").write_text(seal(redact(results_json(runs, run_id, digest))),
                                            encoding="utf-8")
    return {name: Path(out) / name for name in names}
