"""Reference rows in every results table: what guessing scores (``chance``) and what a model
that reads the question and options but no image scores (``blind``, the text-only baseline of
``whatif audit``), so that every score is read beside what it takes no image to get.

Chance is computed from the dataset's items by the suite's own metrics and tables
(``report.reference_runs``); the blind accuracy is only read from the audit's cache
(``analysis.audit.store``), never computed here, and shown in the columns that are exactly one
of the audit's slices (the whole dataset, a role, a group, a task type …). Without an audit the
tables say how to add it. Like ``report.errors``, the suites' table code stays unaware of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from whatifbench.core.item import Item, item_from_json
from whatifbench.core.records.audit import audit_path, load_audit
from whatifbench.core.slices import slice_value
from whatifbench.core.table import Cell, Table, interval
from whatifbench.report.datasets import locate
from whatifbench.report.default_tables import suite_tables
from whatifbench.report.memo import (
    CellJSON,
    TableJSON,
    cell_back,
    cell_json,
    digest_of,
    remembered,
    table_back,
    table_json,
)
from whatifbench.report.policies import JOINT_NOTE, joint_row, policy_rows
from whatifbench.report.policies import NOTE as POLICY_NOTE
from whatifbench.report.reference_runs import (
    PROTOCOLS,
    Answer,
    chance_tables,
    probe_tables,
    pseudo_run,
    slice_cells,
)
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.results import RunResult

CHANCE = "chance (guessing)"
"""The label of the chance row."""
BLIND = "blind (text only, audit)"
"""The label of the blind row."""
CHANCE_NOTE = ("chance = the expected score of guessing: 1 of K options, yes or no, or always "
               "the most common answer for open questions.")


@dataclass(frozen=True)
class References:
    """The reference rows of the tables of one dataset."""

    chance: tuple[Table, ...]
    """The suite's tables for the chance row(s) (empty when the items are unavailable)."""
    blind: dict[tuple[str, int, int], Cell]
    """Blind cells by position in those tables: (title, row, column) (an audit without
    per-item outcomes: its slices placed where a column is exactly one)."""
    notes: tuple[str, ...]
    """What the rows mean, or why one is missing."""
    headline: float | None = None
    """Chance on the suite's headline metric (the explorer's ranking)."""
    blind_tables: tuple[Table, ...] = ()
    """The suite's tables for the blind row: the audit's per-item blind outcomes scored as a
    run by the suite's own metrics, so that every table of runs gets the row."""
    rows: tuple[tuple[str, tuple[Table, ...]], ...] = ()
    """More labelled reference rows (``report.policies``): the believe-your-eyes and flip
    references of paired suites, the audit's pair-aware blind guesser."""


def whole_dataset(runs: Sequence[RunResult]) -> bool:
    """Reference rows are over the whole dataset when a run is an estimate of its full score
    (``whatif run --budget``): the runs asked different items, and the estimate is of all."""
    return any(r.spec.estimate is not None for r in runs)


def dataset_items(runs: Sequence[RunResult],
                  roots: Sequence[Path]) -> tuple[list[Item], str | None]:
    """The items the runs evaluated (every item when a run is an estimate: ``whole_dataset``),
    in dataset order, read from the dataset folder (found as ``report.datasets.locate`` finds
    it); or the reason they are unavailable."""
    view = locate(runs[0].spec, runs[0].dataset, roots)
    if view.root is None:
        return [], view.problem
    wanted = ({str(raw.get("id")) for raw in view.items.values()} if whole_dataset(runs)
              else {s.item_id for r in runs for s in r.samples})
    checked = bool(runs[0].spec.items_sha256)
    items = []
    for raw in view.items.values():
        if raw.get("id") in wanted:
            # items.jsonl has the hash of the one the run validated: no need to check again
            item = _item(raw) if checked else item_from_json(raw)[0]
            if item is not None:
                items.append(item)
    if len(items) != len(wanted):
        return [], (f"{len(wanted) - len(items)} of the evaluated items are missing from (or "
                    f"invalid in) {view.root / 'items.jsonl'}")
    return items, None


def _item(raw: dict[str, Any]) -> Item:
    return Item(raw["id"], tuple(raw.get("images") or ()), raw["question"], raw["kind"],
                raw["target"], tuple(raw.get("choices") or ()), raw.get("pair_id"),
                raw.get("role"), raw.get("group"), raw.get("meta") or {},
                raw.get("provenance") or {})


def references(runs: Sequence[RunResult], roots: Sequence[Path] = ()) -> References:
    """The reference rows for the runs of one dataset (remembered for the same dataset folder,
    evaluated items and audit: a report asks for the terminal, report.md and the page)."""
    sha = runs[0].spec.items_sha256 or ""
    root = locate(runs[0].spec, runs[0].dataset, roots).root
    key = (runs[0].suite, runs[0].dataset, str(root), sha,
           ("*",) if whole_dataset(runs) else
           tuple(sorted({s.item_id for r in runs for s in r.samples})), _audit_stamp(sha))
    found = _CACHE.pop(key, None)
    if found is None:
        def compute() -> References:
            audit = load_audit(sha) if sha else None
            items, problem = dataset_items(runs, roots)
            if problem:
                return References((), {}, (f"No reference rows: {problem}.",))
            found = _references(runs[0].suite, runs[0].dataset, items, audit, _where(runs))
            if whole_dataset(runs):
                found = dataclasses.replace(found, notes=(*found.notes, (
                    f"The reference rows are over all {len(items)} items of the dataset: an "
                    "estimated run's full score is of them all.")))
            return found

        ids = digest_of(list(key[4]))
        found = (remembered("references", [*key[:4], ids, key[5], _where(runs)], compute,
                            _encode, _decode, ReferencesJSON) if sha else compute())
    _CACHE[key] = found  # the most recent last
    while len(_CACHE) > 8:
        _CACHE.pop(next(iter(_CACHE)))
    return found


_CACHE: dict[tuple[Any, ...], References] = {}


class ReferencesJSON(TypedDict):
    """What a ``references`` memo entry holds (``_encode``)."""

    chance: list[TableJSON]
    blind: list[tuple[str, int, int, CellJSON]]
    notes: list[str]
    headline: float | None
    blind_tables: list[TableJSON]


def _encode(ref: References) -> dict[str, Any]:
    return {"chance": [table_json(t) for t in ref.chance],
            "blind": [[title, r, c, cell_json(cell)] for (title, r, c), cell in ref.blind.items()],
            "notes": list(ref.notes), "headline": ref.headline,
            "blind_tables": [table_json(t) for t in ref.blind_tables],
            "rows": [[label, [table_json(t) for t in tables]] for label, tables in ref.rows]}


def _decode(obj: dict[str, Any]) -> References:
    return References(tuple(table_back(t) for t in obj["chance"]),
                      {(str(t), int(r), int(c)): cell_back(cell)
                       for t, r, c, cell in obj["blind"]},
                      tuple(obj["notes"]), obj["headline"],
                      tuple(table_back(t) for t in obj["blind_tables"]),
                      tuple((str(label), tuple(table_back(t) for t in tables))
                            for label, tables in obj.get("rows", [])))


def _audit_stamp(sha: str) -> tuple[int, int, int] | None:
    """Which file holds the cached audit of the dataset, when and how large it was written
    (``None``: there is none); it is written by an atomic rename, so a new audit is a new file."""
    try:
        found = audit_path(sha).stat() if sha else None
    except OSError:
        return None
    return (found.st_ino, found.st_mtime_ns, found.st_size) if found else None


def _where(runs: Sequence[RunResult]) -> str:
    return runs[0].spec.dataset_path or runs[0].dataset


def _references(suite_name: str, dataset: str, items: Sequence[Item],
                audit: dict[str, Any] | None, where: str) -> References:
    """``references`` for one dataset's evaluated items and audit."""
    suite = get_suite(suite_name)
    found = chance_tables(suite, items, dataset, CHANCE)
    chance, headline = found if found is not None else (None, None)
    notes = [CHANCE_NOTE] if chance is not None else [
        "No chance row: the questions' options give too many combinations to enumerate."]
    blind: dict[tuple[str, int, int], Cell] = {}
    blind_tables: list[Table] = []

    def labelled(label: str, answer: Answer) -> list[Table]:
        return answer_tables(suite, items, dataset, label, answer)

    rows = policy_rows(suite, items, labelled)
    if rows:
        notes.append(POLICY_NOTE)
    if audit is None:
        notes.append(f"No blind row: this dataset has not been audited; run 'whatif audit "
                     f"{where}' and report again to add the text-only baseline.")
    else:
        outcomes = per_item_blind(audit)
        if outcomes is not None:
            blind_tables = blind_run_tables(suite, items, dataset, outcomes)
        else:
            blind = blind_cells(suite, items, dataset, audit)
        overall = audit["blind"]
        where_shown = ("in every table: the audit's out-of-fold answers scored as a run" if
                       outcomes is not None else "where a column is exactly one of its slices")
        notes.append(
            f"blind = the text-only baseline of 'whatif audit' (question and options, no image), "
            f"{_num(overall.get('accuracy'))} % over all {overall.get('n')} items of the dataset "
            f"(chance {_num(overall.get('chance'))} %); shown {where_shown}.")
        joint = joint_row(audit, labelled)
        if joint:
            rows += joint
            notes.append(JOINT_NOTE)
    return References(tuple(chance or ()), blind, tuple(notes), headline, tuple(blind_tables),
                      tuple((label, tuple(t)) for label, t in rows))


def per_item_blind(audit: dict[str, Any]) -> dict[str, bool] | None:
    """The audit's blind outcome of each audited item (``per_item`` of the cached audit), or
    ``None`` for an audit without them."""
    found = audit.get("per_item")
    if not isinstance(found, dict):
        return None
    ids, right = found.get("ids"), found.get("blind")
    if not isinstance(ids, list) or not isinstance(right, list) or len(ids) != len(right):
        return None
    return {str(i): bool(r) for i, r in zip(ids, right, strict=True)}


def blind_run_tables(suite: Any, items: Sequence[Item], dataset: str,
                     outcomes: dict[str, bool]) -> list[Table]:
    """The suite's tables of a run right exactly where the audit's blind baseline was (items
    it did not audit, free text, are not graded), with bootstrap intervals."""
    def answer(item: Item) -> tuple[str | None, bool]:
        right = outcomes.get(item.id, False)
        if right:
            return item.target, True
        wrong = next((c for c in item.choices if c != item.target), None)
        return wrong, False

    return answer_tables(suite, items, dataset, BLIND, answer)


def answer_tables(suite: Any, items: Sequence[Item], dataset: str, label: str,
                  answer: Answer) -> list[Table]:
    """The suite's tables of one pseudo-run labelled ``label`` answering each item with
    ``answer`` (with bootstrap intervals; text that changes with the protocol left blank)."""
    def tables(protocol: dict[str, Any], intervals: bool) -> list[Table]:
        spec = {"model_name": label, "protocol": protocol}
        return suite_tables(suite, [pseudo_run(suite, items, dataset, spec, answer, intervals)])

    # Text that changes with the protocol (a prompt column) describes a run, not the baseline.
    shown, other = tables(PROTOCOLS[0], True), tables(PROTOCOLS[1], False)
    return [_same_text(t, next((o for o in other if o.title == t.title and o.columns ==
                                t.columns and len(o.rows) == len(t.rows)), None))
            for t in shown]


def _same_text(table: Table, other: Table | None) -> Table:
    """``table`` with each text cell blanked where ``other`` (the same table under another
    protocol) says something else."""
    if other is None:
        return table
    rows = tuple(tuple(x if isinstance(x, Cell) or x == y else "" for x, y in zip(a, b,
                                                                               strict=True))
                 for a, b in zip(table.rows, other.rows, strict=True))
    return dataclasses.replace(table, rows=rows)


def _num(value: Any) -> str:
    return f"{float(value):.1f}" if isinstance(value, (int, float)) else "–"


def audit_slices(audit: dict[str, Any]) -> list[tuple[str, str | None, dict[str, Any]]]:
    """``(key, value, figures)`` of the whole dataset (key ``all``) and every audit slice."""
    out: list[tuple[str, str | None, dict[str, Any]]] = [("all", None, audit["blind"])]
    for s in audit.get("slices") or []:
        if isinstance(s, dict) and isinstance(s.get("blind"), (int, float)):
            out.append((str(s.get("key")), str(s.get("value")), s))
    return out


def in_slice(item: Item, key: str, value: str | None) -> bool:
    """Whether ``item`` belongs to the audit slice ``key = value`` (its value as the audit
    wrote it: ``analysis.audit.slices.slice_value``)."""
    return key == "all" or slice_value(item, key) == value


def blind_cells(suite: Any, items: Sequence[Item], dataset: str,
                audit: dict[str, Any]) -> dict[tuple[str, int, int], Cell]:
    """The audit's blind accuracies placed in the cells that are exactly their slice."""
    every = {i.id for i in items}
    whole = probe_tables(suite, items, dataset, every)
    sizes = {x.n for t in whole[0] for row in t.rows for x in row if isinstance(x, Cell)}
    placed: dict[tuple[str, int, int], Cell] = {}
    for key, value, figures in audit_slices(audit):
        inside = {i.id for i in items if in_slice(i, key, value)}
        if not inside or len(inside) not in sizes:
            continue
        cell = Cell(float(figures["blind"] if key != "all" else figures["accuracy"]),
                    ci=interval(figures.get("interval")), n=figures.get("n"))
        probes = whole if inside == every else probe_tables(suite, items, dataset, inside)
        for position in slice_cells(*probes, len(inside)):
            placed.setdefault(position, cell)
    return placed


def with_references(tables: Sequence[Table], runs: Sequence[RunResult],
                    roots: Sequence[Path] = ()) -> list[Table]:
    """``tables`` (of the runs of one dataset) with the chance and blind rows appended to each
    table of runs that the suite also made for them with numbers in it (a table of text alone,
    such as the parsers compared, gets none), and the notes saying what they are."""
    if not runs or not any(t.columns[:1] == ("model",) for t in tables):
        return list(tables)
    ref = references(runs, roots)
    out = []
    for table in tables:
        if table.columns[:1] != ("model",):
            out.append(table)
            continue
        mine = next((t for t in ref.chance if t.title == table.title
                     and t.columns == table.columns[:len(t.columns)]), None)
        rows: list[tuple[str | Cell, ...]] = []
        if mine is not None and any(isinstance(x, Cell) for row in mine.rows for x in row):
            width = len(table.columns)
            pad: tuple[str, ...] = ("",) * (width - len(mine.columns))
            for row in mine.rows:
                rows.append((CHANCE, *row[1:], *pad))
            for r, row in enumerate(mine.rows):
                if any((mine.title, r, c) in ref.blind for c in range(len(row))):
                    rows.append((BLIND, *_blind_row(row, r, mine.title, ref.blind)[1:], *pad))
        for label, made in ((BLIND, ref.blind_tables), *ref.rows):
            seen = next((t for t in made if t.title == table.title
                         and t.columns == table.columns[:len(t.columns)]), None)
            if seen is not None and any(isinstance(x, Cell) for row in seen.rows for x in row):
                pad = ("",) * (len(table.columns) - len(seen.columns))
                rows += [(label, *row[1:], *pad) for row in seen.rows]
        if rows or not ref.chance:  # the rows, or why there are none
            table = dataclasses.replace(table, rows=(*table.rows, *rows),
                                        notes=(*table.notes, *ref.notes),
                                        reference_rows=len(rows))
        out.append(table)
    return out


def _blind_row(row: Sequence[str | Cell], r: int, title: str,
               blind: dict[tuple[str, int, int], Cell]) -> list[str | Cell]:
    """A blind row shaped like the chance row ``row``: the blind cells placed, the text that
    names the row's slice (before its first number) kept, the rest empty."""
    first = next((c for c, x in enumerate(row) if isinstance(x, Cell)), len(row))
    return [blind.get((title, r, c)) or (x if c < first and isinstance(x, str) else "")
            for c, x in enumerate(row)]
