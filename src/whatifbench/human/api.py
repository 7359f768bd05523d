"""The public API behind ``whatif human``: serve the app, import a crowd sheet, export the
app's answers as a run folder, and write free-text answers as extra judge references."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from whatifbench.core.dataset import Dataset, DatasetWriter
from whatifbench.core.outputs import PathLike, check_output
from whatifbench.core.private import carried
from whatifbench.core.suite import suite_for
from whatifbench.errors import WhatifError
from whatifbench.human.records import Answer, Settings, check_name
from whatifbench.human.results import human_runs
from whatifbench.human.server import AnnotationServer
from whatifbench.human.sheet import read_sheet
from whatifbench.human.store import HumanStore, store_path
from whatifbench.report.render import write_outputs
from whatifbench.runner.results import RunResult


def serve(dataset: Dataset, settings: Settings, host: str | None = None, port: int = 0,
          store: PathLike | None = None) -> AnnotationServer:
    """The annotation server of ``dataset`` (not yet serving): 127.0.0.1 unless ``host``."""
    return AnnotationServer(HumanStore(dataset, settings, Path(store) if store else None),
                            host, port)


def stored_answers(dataset: Dataset, store: PathLike | None = None,
                   annotators: Sequence[str] = ()) -> list[Answer]:
    """The app's answers for ``dataset`` (only ``annotators``' when named)."""
    path = Path(store) if store else store_path(dataset)
    if not path.is_file():
        raise WhatifError(
            f"No answers were collected for {dataset.root} (items sha256 "
            f"{dataset.items_sha256[:12]}…): {path} does not exist. Collect some with 'whatif "
            "human serve', or pass --store if they were kept elsewhere.")
    kept = HumanStore(dataset, None, path, readonly=True)  # a read-only file can be exported
    try:
        answers = kept.answers()
    finally:
        kept.close()
    wanted = {check_name(n) for n in annotators}
    if wanted:
        missing = wanted - {a.annotator for a in answers}
        if missing:
            raise WhatifError(f"No answers of {', '.join(sorted(missing))} are in {path}.")
        answers = [a for a in answers if a.annotator in wanted]
    return answers


@dataclass(frozen=True)
class Written:
    """A run folder written from people's answers."""

    runs: list[RunResult]
    """The human runs (one per annotator, then the majority)."""
    paths: dict[str, Path]
    """``results.json``, ``report.html`` ... as written."""
    skipped: tuple[str, ...] = ()
    """The first sheet rows that were skipped (``--skip-invalid``), with their problem."""
    n_skipped: int = 0
    """How many sheet rows were skipped in all."""


def export_runs(dataset: Dataset, out: PathLike, *, store: PathLike | None = None,
                annotators: Sequence[str] = (), overwrite: bool = False) -> Written:
    """``whatif human export``: the app's answers as a run folder."""
    inputs = [dataset.root, *([store] if store else [])]
    check_output(out, inputs, overwrite, kind="run")
    answers = stored_answers(dataset, store, annotators)
    runs = human_runs(dataset, answers, {"source": "app"})
    return Written(runs, write_outputs(out, runs, overwrite, inputs))


def import_sheet(dataset: Dataset, sheet: PathLike, out: PathLike, *, skip_invalid: bool = False,
                 overwrite: bool = False) -> Written:
    """``whatif human import``: a crowd sheet's answers as a run folder."""
    inputs = [dataset.root, sheet]
    check_output(out, inputs, overwrite, kind="run")
    found = read_sheet(Path(sheet), dataset, skip_invalid)
    runs = human_runs(dataset, found.answers, {"source": "sheet", "file": Path(sheet).name})
    return Written(runs, write_outputs(out, runs, overwrite, inputs), found.skipped,
                   found.n_skipped)


def write_references(dataset: Dataset, answers: Sequence[Answer], out: PathLike,
                     overwrite: bool = False) -> int:
    """A copy of ``dataset`` whose free-text items carry the annotators' answers as extra
    references for the judge, as the suite adds them (``Suite.with_references``; MuCR: one list
    per part of an explanation); returns how many were added. The input is not changed."""
    suite = suite_for(dataset.suite)
    by_item: dict[str, list[str]] = {}
    for a in answers:
        if a.reply and not a.unsure:
            by_item.setdefault(a.item_id, []).append(a.reply)
    if not any(i.kind == "text" for i in dataset.items):
        raise WhatifError(f"{dataset.root} has no free-text items; there are no answers to add "
                          "as the judge's references.")
    added = 0
    items = []
    for item in dataset.items:
        found, n = suite.with_references(item, by_item.get(item.id, []))
        items.append(found)
        added += n
    card = dataset.card
    with DatasetWriter(Path(out), overwrite, inputs=[dataset.root]) as writer:
        for rel in sorted({p for i in items for p in i.images}):
            writer.copy_file(rel, dataset.image_path(rel).read_bytes())
        writer.add_items(items)
        writer.private = carried(dataset.root)
        writer.finish(name=card.name, suite=card.suite, version=card.version,
                      generator=card.generator, seed=card.seed,
                      extra={**card.extra, "human_references": {
                          "from_items_sha256": dataset.items_sha256, "added": added,
                          "annotators": sorted({a.annotator for a in answers})}})
    return added
