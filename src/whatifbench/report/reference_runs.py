"""Pseudo-runs that let the suites' own metrics and tables compute the reference rows.

A reference row must fill the columns of every suite's table, whatever they are. Rather than
teaching each table what its columns mean, the suite scores made-up answers:

- **chance**: the expected score of guessing. Every item has a finite set of equally likely
  guesses (1 of K options, yes or no, or for an open answer the most common answer of its
  kind), guessed independently; a few weighted pseudo-runs go through the patterns of right and
  wrong guesses each unit (a pair, or a lone item) can have (``guessing_runs``). Every cell that
  is a mean over units of their outcome (accuracy, both-right pair accuracy, sums of such),
  averaged with those weights, is exactly its expected value under guessing; other cells are
  left blank;
- **probes** for the blind row: a run right exactly on the items of one audit slice and one
  right exactly elsewhere. A cell that reads 100 in the first, 0 in the second and counts as
  many units as the slice has items is the accuracy over exactly that slice, and may show the
  audit's blind accuracy of the slice.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.records.spec import RunSpec
from whatifbench.core.suite import Sample, Suite
from whatifbench.core.table import Cell, Table
from whatifbench.metrics.intervals import suppressed
from whatifbench.report.default_tables import suite_tables
from whatifbench.runner.results import RunResult

MAX_COMBINATIONS = 256
"""Largest enumeration of guesses (pseudo-runs) computed for a chance row."""
NOT_GRADED = {"not_judged": "a reference row has no free-text answer to grade"}
"""The judgement of a free-text item in a pseudo-run (it is never graded)."""
PROTOCOLS = ({"prompt": "default", "strategy": "zero-shot", "answer_mode": "rank",
              "score_by": "mean", "image_layout": "multi", "parser": "default"},
             {"prompt": "paper", "strategy": "cot", "answer_mode": "generate",
              "score_by": "sum", "image_layout": "composite", "parser": "paper"})
"""Two unlike protocols: a text cell that changes between them describes the run's protocol
(e.g. CFMM's prompt column) and is left out of reference rows."""


Answer = Callable[[Item], tuple[str | None, bool]]
"""A pseudo-run's answer to an item: (prediction, right)."""


def guessing_runs(suite: Suite, items: Sequence[Item]) -> list[tuple[float, Answer]] | None:
    """Weighted pseudo-runs whose weighted mean of every unit-mean cell is its expected value
    under guessing (``None`` when that takes more than ``MAX_COMBINATIONS`` runs).

    When every unit asks the same numbers of options in the same order (C-VQA, CFMM, MuCR),
    each run gives every unit one pattern of right and wrong guesses, weighted by its
    probability (1/K right); otherwise the guesses themselves are enumerated, each unit running
    through all its combinations equally often (mixed radix over the unit's items)."""
    options = suite.guesses(items)
    units: dict[str, list[Item]] = {}
    for item in items:
        units.setdefault(item.unit, []).append(item)
    shapes = {tuple(len(options[i.id]) for i in members) for members in units.values()}
    if len(shapes) == 1:
        (shape,) = shapes
        varied = [t for t, k in enumerate(shape) if k > 1]
        if 2 ** len(varied) <= MAX_COMBINATIONS:
            position = {i.id: t for members in units.values() for t, i in enumerate(members)}
            answers = _right_and_wrong(suite, items, options)
            patterns = itertools.product((True, False), repeat=len(varied))
            return [(_weight(shape, varied, p),
                     _pattern(answers, position, dict(zip(varied, p, strict=True))))
                    for p in patterns]
    strides: dict[str, tuple[int, int]] = {}
    sizes: dict[str, int] = {}
    for item in items:
        unit = item.unit
        stride = sizes.get(unit, 1)
        strides[item.id] = (stride, len(options[item.id]))
        sizes[unit] = stride * len(options[item.id])
    total = math.lcm(*sizes.values()) if sizes else 1
    if total > MAX_COMBINATIONS:
        return _by_shape(suite, items, options, units)

    def guess(j: int) -> Answer:
        def answer(item: Item) -> tuple[str | None, bool]:
            stride, k = strides[item.id]
            value = options[item.id][(j // stride) % k]
            return value, suite.is_correct(item, value)
        return answer

    return [(1.0 / total, guess(j)) for j in range(total)]


def _by_shape(suite: Suite, items: Sequence[Item], options: dict[str, tuple[str, ...]],
              units: dict[str, list[Item]]) -> list[tuple[float, Answer]] | None:
    """Pseudo-runs for units of many shapes (CELLO's contrast sets beside single questions),
    exact for every unit-mean cell by linearity: a base run right everywhere, weighted
    ``1 − G``, and for each of the ``G`` shapes of unit, one run per pattern of right and wrong
    guesses given to the units of that shape alone (the others right), weighted by the
    pattern's probability. Each unit's expected outcome is then counted once: E[cell] =
    cell(base) + Σ_shape Σ_pattern P(pattern) · (cell(run) − cell(base)). ``None`` when that
    takes more than ``MAX_COMBINATIONS`` runs."""
    shape_of = {u: tuple(len(options[i.id]) for i in members) for u, members in units.items()}
    varied = {shape: [t for t, k in enumerate(shape) if k > 1] for shape in set(shape_of.values())}
    varied = {shape: v for shape, v in varied.items() if v}
    if 1 + sum(2 ** len(v) for v in varied.values()) > MAX_COMBINATIONS:
        return None
    answers = _right_and_wrong(suite, items, options)
    position = {i.id: t for members in units.values() for t, i in enumerate(members)}
    unit_of = {i.id: u for u, members in units.items() for i in members}
    runs: list[tuple[float, Answer]] = [(1.0 - len(varied), _pattern(answers, position, {}))]
    for shape in sorted(varied):
        for p in itertools.product((True, False), repeat=len(varied[shape])):
            if all(p):
                runs[0] = (runs[0][0] + _weight(shape, varied[shape], p), runs[0][1])
                continue
            right = dict(zip(varied[shape], p, strict=True))
            runs.append((_weight(shape, varied[shape], p),
                         _only(shape, shape_of, unit_of, _pattern(answers, position, right),
                               _pattern(answers, position, {}))))
    return runs


def _only(shape: tuple[int, ...], shape_of: dict[str, tuple[int, ...]], unit_of: dict[str, str],
          inside: Answer, outside: Answer) -> Answer:
    """``inside``'s answers on the units of ``shape``, ``outside``'s elsewhere."""
    def answer(item: Item) -> tuple[str | None, bool]:
        return (inside if shape_of[unit_of[item.id]] == shape else outside)(item)
    return answer


def _weight(shape: tuple[int, ...], varied: list[int], pattern: tuple[bool, ...]) -> float:
    """The probability of a pattern of right (True) and wrong guesses at the ``varied``
    positions of a unit whose items have ``shape`` options."""
    return math.prod(1 / shape[t] if right else 1 - 1 / shape[t]
                     for t, right in zip(varied, pattern, strict=True))


def _pattern(answers: dict[str, dict[bool, tuple[str, bool]]], position: dict[str, int],
             right: dict[int, bool]) -> Answer:
    """Answers right or wrong by the item's position in its unit (``answers``: each item's
    right and wrong guess; an item with one guess, an open question, always gives it)."""
    def answer(item: Item) -> tuple[str | None, bool]:
        found = answers[item.id]
        return found.get(right.get(position[item.id], True), found[True])
    return answer


def _right_and_wrong(suite: Suite, items: Sequence[Item], options: dict[str, tuple[str, ...]]
                     ) -> dict[str, dict[bool, tuple[str, bool]]]:
    """Per item: a guess scored right and one scored wrong (as far as its guesses have them);
    an item with a single guess has only that one, under ``True``."""
    out = {}
    for item in items:
        scored = [(v, suite.is_correct(item, v)) for v in options[item.id]]
        if len(scored) == 1:
            out[item.id] = {True: scored[0]}
            continue
        out[item.id] = {ok: next((g for g in scored if g[1] == ok), scored[0])
                        for ok in (True, False)}
    return out


def pseudo_run(suite: Suite, items: Sequence[Item], dataset: str, spec: dict[str, Any],
               answer: Callable[[Item], tuple[str | None, bool]],
               intervals: bool = False) -> RunResult:
    """A run whose answer to each item is ``answer(item)`` → (prediction, correct), scored by
    the suite's own metrics (with intervals only if ``intervals``)."""
    samples = []
    for item in items:
        prediction, correct = answer(item)
        samples.append(Sample(
            item_id=item.id, pair_id=item.pair_id, role=item.role, group=item.group,
            question=item.question, prompt="", target=item.target, response=None, scores=None,
            prediction=prediction, correct=None if item.kind == "text" else correct,
            unparsed=False, flag=None, error=None,
            meta=dict(item.meta), judgement=dict(NOT_GRADED) if item.kind == "text" else {}))
    with contextlib.nullcontext() if intervals else suppressed():
        metrics = without_replies(suite.metrics(samples, items))
    return RunResult(suite.name, dataset, "reference", len(items), metrics,
                     RunSpec.from_json(spec), samples)


REPLY_SHARES = ("unparsed", "parser_disagreement")
"""Metrics about replies (the share no parser could read, the parsers' disagreement): a
reference row made no replies, so they are over nothing (shown "–", never 0.0)."""


def without_replies(metrics: Any) -> Any:
    """``metrics`` with every number named in ``REPLY_SHARES`` (at any depth) set to
    ``None``."""
    if isinstance(metrics, dict):
        return {k: None if k in REPLY_SHARES and isinstance(v, (int, float))
                and not isinstance(v, bool) else without_replies(v) for k, v in metrics.items()}
    if isinstance(metrics, list):
        return [without_replies(v) for v in metrics]
    return metrics


def chance_tables(suite: Suite, items: Sequence[Item], dataset: str,
                  label: str) -> tuple[list[Table], float | None] | None:
    """The suite's tables for one row labelled ``label`` holding the expected values of
    guessing (see the module docstring), and the expected value of the suite's headline metric
    (``Suite.headline``, a mean over units too); ``None`` when that takes too many
    pseudo-runs."""
    from whatifbench.report.overview import headline

    runs = guessing_runs(suite, items)
    if runs is None:
        return None
    values: list[float | None] = []

    def tables(answer: Answer, protocol: dict[str, Any]) -> list[Table]:
        spec = {"model_name": label, "protocol": protocol}
        run = pseudo_run(suite, items, dataset, spec, answer)
        values.append(headline(run)[0])
        return suite_tables(suite, [run])

    shown = average([(w, tables(a, PROTOCOLS[0])) for w, a in runs],
                    tables(runs[0][1], PROTOCOLS[1]))
    weights = [w for w, _ in runs]
    found = values[:len(weights)]
    expected = (round(sum(w * v for w, v in zip(weights, found, strict=True) if v is not None), 2)
                if all(v is not None for v in found) else None)
    return shown, expected


def average(variants: Sequence[tuple[float, Sequence[Table]]],
            other: Sequence[Table] = ()) -> list[Table]:
    """Tables of the same layout combined cell by cell: ``Cell`` values and changes averaged
    with the variants' weights (intervals, counts and p-values dropped); text kept only where
    every variant agrees, and so does ``other`` (the first variant's answers under another
    protocol) when it has the table: such text depends neither on the answers nor on the
    protocol."""
    weights = [w for w, _ in variants]
    out = []
    for k, first in enumerate(variants[0][1]):
        same = [v[k] for _, v in variants if k < len(v) and _layout(v[k]) == _layout(first)]
        if len(same) != len(variants):
            continue
        alike = [t for t in other if _layout(t) == _layout(first)][:1]
        rows = []
        for r, row in enumerate(first.rows):
            cells: list[str | Cell] = []
            for c, cell in enumerate(row):
                column = [t.rows[r][c] for t in same]
                text = [*column, *(t.rows[r][c] for t in alike)]
                cells.append(_mean_cell(column, weights) if isinstance(cell, Cell)
                             else cell if all(x == cell for x in text) else "")
            rows.append(tuple(cells))
        out.append(Table(first.title, first.columns, tuple(rows), first.groups, (), first.unit))
    return out


def _layout(table: Table) -> tuple[Any, ...]:
    return (table.title, table.columns, len(table.rows))


def _mean_cell(cells: Sequence[str | Cell], weights: Sequence[float]) -> str | Cell:
    """The weighted mean of a column of cells (``–`` if some value is missing)."""
    found = [c for c in cells if isinstance(c, Cell) and c.value is not None]
    if len(found) != len(cells):
        return "–"
    value = sum(w * c.value for w, c in zip(weights, found, strict=True) if c.value is not None)
    deltas = [c.delta for c in found]
    delta = (sum(w * d for w, d in zip(weights, deltas, strict=True) if d is not None)
             if all(d is not None for d in deltas) else None)
    return Cell(round(value, 2), found[0].digits,
                delta=None if delta is None else round(delta, 2))


def probe_tables(suite: Suite, items: Sequence[Item], dataset: str,
                 inside: set[str]) -> tuple[list[Table], list[Table]]:
    """The suite's tables for a run right exactly on the ``inside`` items, and for one right
    exactly on the others."""
    def run(right: Callable[[Item], bool]) -> list[Table]:
        def answer(item: Item) -> tuple[str | None, bool]:
            if right(item):
                return item.target, True
            wrong = next((c for c in item.choices if c != item.target), None)
            return wrong, False
        return suite_tables(suite, [pseudo_run(suite, items, dataset, {"model_name": "probe"},
                                        answer)])

    return run(lambda i: i.id in inside), run(lambda i: i.id not in inside)


def slice_cells(inside: Sequence[Table], outside: Sequence[Table],
                n: int) -> set[tuple[str, int, int]]:
    """Positions (table title, row, column) of the cells that are the accuracy over exactly the
    probed slice of ``n`` items (see the module docstring)."""
    found = set()
    for a, b in zip(inside, outside, strict=False):
        if _layout(a) != _layout(b):
            continue
        for r, (row_a, row_b) in enumerate(zip(a.rows, b.rows, strict=True)):
            for c, (x, y) in enumerate(zip(row_a, row_b, strict=True)):
                if (isinstance(x, Cell) and isinstance(y, Cell) and x.value == 100.0
                        and y.value == 0.0 and x.n == n):
                    found.add((a.title, r, c))
    return found
