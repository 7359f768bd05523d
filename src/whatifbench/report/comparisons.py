"""Paired model comparisons: for every two model runs of one dataset, the accuracy difference on
the items both answered, with Newcombe's paired interval (shrunk by the pairs' design effect)
and the exact McNemar p-value (its sign-flip form over pairs when items come in pairs),
Holm-adjusted over the comparisons; overall and per slice (role, group, template …).
And the multimodal gain of a model run with and without its images (``--image-ablation``):
full − ablated, the same statistics.

The numbers come from ``metrics.paired.compare``; this module chooses what is compared, and
writes it for ``results.json`` (``comparisons_json``), the tables and the explorer.
"""

from __future__ import annotations

import json
import re
import weakref
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from whatifbench.core.records.schema import to_json
from whatifbench.core.suite import Sample
from whatifbench.core.table import SIGNIFICANT, Cell, Table, fmt_p, signed
from whatifbench.metrics.paired import compare
from whatifbench.metrics.stats import holm, recorded_p
from whatifbench.report.labels import (
    dataset_key,
    is_human,
    model_name,
    run_labels,
    shown_together,
)
from whatifbench.report.memo import COMPARED, GAINS, digest_of, remembered
from whatifbench.runner.ablation import ablation_checked, ablation_of
from whatifbench.runner.results import RunResult

SLICE_KEYS = ("role", "group", "category", "style", "template", "rung", "task_type",
              "graph_type", "format")
"""What comparisons are broken down by: the item's role and group, then metadata keys."""


@dataclass(frozen=True)
class Compared:
    """One comparison of two runs of a dataset."""

    a: int
    """Index of run A among the runs of its dataset (``shown_together`` order)."""
    b: int
    """Index of run B."""
    overall: dict[str, Any]
    """``metrics.paired.compare`` over every item both scored, plus ``p_holm``."""
    slices: list[dict[str, Any]]
    """The same per slice (``key``, ``value`` added), ``p_holm`` over every slice comparison
    of the dataset."""


def models_of(runs: Sequence[RunResult]) -> list[RunResult]:
    """The runs of models: people's runs (``whatif human``) have tables of their own
    (``report.human``)."""
    return [r for r in runs if not is_human(r)]


def scored(samples: Sequence[Sample]) -> dict[str, bool]:
    """Right or wrong per item id, for the samples scored that way (graded free text, such as
    MuCR's explanations, is compared by its score elsewhere and left out)."""
    return {s.item_id: bool(s.correct) for s in samples
            if s.correct is not None and s.score is None and not s.judgement}


def slice_values(sample: Sample) -> list[tuple[str, str]]:
    """The (key, value) slices a sample belongs to."""
    out = []
    for key in SLICE_KEYS:
        value = (sample.role if key == "role" else sample.group if key == "group"
                 else sample.meta.get(key))
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            out.append((key, str(value)))
    return out


@dataclass(frozen=True)
class Layout:
    """What the comparisons of one dataset's runs share: each item's unit and slices."""

    unit: dict[str, str]
    """The unit items count together in (the item's pair, or the item) by item id."""
    slices: dict[str, list[tuple[str, str]]]
    """The (key, value) slices of each item id."""


def layout_of(runs: Sequence[RunResult]) -> Layout:
    """The units and slices of the items of ``runs`` (from the first sample of each item)."""
    unit: dict[str, str] = {}
    slices: dict[str, list[tuple[str, str]]] = {}
    for run in runs:
        for s in run.samples:
            if s.item_id not in unit:
                unit[s.item_id] = s.pair_id if s.pair_id is not None else f"item:{s.item_id}"
                slices[s.item_id] = slice_values(s)
    return Layout(unit, slices)


def _order(key: str, value: str) -> tuple[int, list[Any]]:
    """Slices in ``SLICE_KEYS`` order, values in natural order (``T2`` before ``T10``)."""
    return SLICE_KEYS.index(key), [int(t) if t.isdigit() else t
                                   for t in re.split(r"(\d+)", value)]


def compare_two(a: dict[str, bool], b: dict[str, bool], layout: Layout
                ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """Overall and per-slice comparison of two runs' outcomes (``scored``) on the items both
    scored (``None`` when they share none). A key with a single value over those items is left
    out, and so is a slice with the same items as one before it."""
    common = [i for i in a if i in b]
    if not common:
        return None

    def stats(ids: Sequence[str]) -> dict[str, Any]:
        return compare([a[i] for i in ids], [b[i] for i in ids], [layout.unit[i] for i in ids])

    members: dict[tuple[str, str], list[str]] = {}
    for i in common:
        for key in layout.slices[i]:
            members.setdefault(key, []).append(i)
    values = Counter(k for k, _ in members)
    seen: set[frozenset[str]] = set()
    slices = []
    for (k, v), ids in sorted(members.items(), key=lambda kv: _order(*kv[0])):
        if values[k] < 2 or frozenset(ids) in seen:
            continue  # one value: the whole; the same items as an earlier slice (template = group)
        seen.add(frozenset(ids))
        slices.append({"key": k, "value": v, **stats(ids)})
    return stats(common), slices


_MEMO: dict[tuple[Any, ...], tuple[tuple[weakref.ref[RunResult], ...], Any]] = {}


def _remembered(kind: str, runs: Sequence[RunResult], compute: Any) -> Any:
    """``compute(runs)``, remembered for the same run objects while they live (a report asks
    for the tables of the terminal, report.md, the page and results.json; weak references: the
    memo never keeps a command's runs alive after it)."""
    key = (kind, *map(id, runs))
    found = _MEMO.get(key)
    if found is None or any(ref() is not run for ref, run in zip(found[0], runs, strict=True)):
        found = _MEMO[key] = (tuple(weakref.ref(r) for r in runs), compute(runs))
        while len(_MEMO) > 16:
            _MEMO.pop(next(iter(_MEMO)))
    return found[1]


def compare_runs(runs: Sequence[RunResult]) -> list[Compared]:
    """Every two runs of one dataset (in run order), Holm-adjusted: the overall comparisons
    form one family, the slice comparisons another."""
    found: list[Compared] = _remembered("runs", runs, _compare_runs)
    return found


def _outcomes_digest(layout: Layout, outcomes: Sequence[dict[str, bool]], *extra: Any) -> str:
    """The key under which comparisons of ``outcomes`` are remembered on disk (``report.memo``):
    every item's unit and slices, each run's outcomes, and ``extra``."""
    return digest_of([list(extra), [[i, unit, layout.slices[i]] for i, unit in layout.unit.items()],
                      [list(outcome.items()) for outcome in outcomes]])


def chosen_by_answers(run: RunResult) -> bool:
    """The run asked items chosen by its own answers (an adaptive budget of an earlier
    version): a paired test on them would be biased, so none is made."""
    return run.spec.estimate is not None and run.spec.estimate.method == "adaptive"


def _compare_runs(runs: Sequence[RunResult]) -> list[Compared]:
    """``compare_runs``, remembered on disk under the runs' outcomes."""
    layout = layout_of(runs)
    outcomes = [scored(r.samples) for r in runs]
    skip = sorted(k for k, r in enumerate(runs) if chosen_by_answers(r))
    return remembered("compared", _outcomes_digest(layout, outcomes, skip),
                      lambda: _compute_compared(layout, outcomes, set(skip)),
                      lambda found: [[c.a, c.b, c.overall, c.slices] for c in found],
                      lambda value: [Compared(*c) for c in value], COMPARED)


def _compute_compared(layout: Layout, outcomes: list[dict[str, bool]],
                      skip: Collection[int] = ()) -> list[Compared]:
    found = []
    for i, j in combinations(range(len(outcomes)), 2):
        if i in skip or j in skip:
            continue
        result = compare_two(outcomes[i], outcomes[j], layout)
        if result is not None:
            found.append((i, j, *result))
    overall_p = holm([o["mcnemar_p"] for _, _, o, _ in found])
    slice_p = iter(holm([s["mcnemar_p"] for *_, sl in found for s in sl]))
    return [Compared(i, j, {**o, "p_holm": recorded_p(p)},
                     [{**s, "p_holm": recorded_p(next(slice_p))} for s in sl])
            for (i, j, o, sl), p in zip(found, overall_p, strict=True)]


def same_model(run: RunResult) -> str:
    """What identifies a model run apart from its image ablation: spec, arguments, protocol,
    judge and selection."""
    spec = run.spec
    return json.dumps([run.model, spec.backend_args, to_json(spec.protocol), to_json(spec.judge),
                       to_json(spec.selection)], sort_keys=True, default=str)


def gains(runs: Sequence[RunResult]) -> list[tuple[int, int, dict[str, Any]]]:
    """The multimodal gain of each model run with and without an image ablation on one
    dataset: ``(full, ablated, comparison of full − ablated)``, Holm-adjusted over the gains."""
    found: list[tuple[int, int, dict[str, Any]]] = _remembered("gains", runs, _gains)
    return found


def _gains(runs: Sequence[RunResult]) -> list[tuple[int, int, dict[str, Any]]]:
    """``gains``, remembered on disk under the compared runs' outcomes."""
    full = {same_model(r): k for k, r in enumerate(runs) if ablation_of(r.spec) is None}
    pairs = [(full[same_model(r)], k) for k, r in enumerate(runs)
             if ablation_of(r.spec) is not None and ablation_checked(r.spec)
             and same_model(r) in full]
    layout = layout_of([runs[k] for pair in pairs for k in pair])
    outcomes = {k: scored(runs[k].samples) for pair in pairs for k in pair}
    return remembered("gains", _outcomes_digest(layout, list(outcomes.values()), pairs,
                                                list(outcomes)),
                      lambda: _compute_gains(layout, outcomes, pairs),
                      lambda found: [list(g) for g in found],
                      lambda value: [(int(f), int(k), c) for f, k, c in value], GAINS)


def _compute_gains(layout: Layout, outcomes: dict[int, dict[str, bool]],
                   pairs: list[tuple[int, int]]) -> list[tuple[int, int, dict[str, Any]]]:
    found = []
    for f, k in pairs:
        result = compare_two(outcomes[f], outcomes[k], layout)
        if result is not None:
            found.append((f, k, result[0]))
    adjusted = holm([c["mcnemar_p"] for *_, c in found])
    return [(f, k, {**c, "p_holm": recorded_p(p)})
            for (f, k, c), p in zip(found, adjusted, strict=True)]


def comparisons_json(runs: Sequence[RunResult]) -> list[dict[str, Any]]:
    """The ``comparisons`` of ``results.json``: per dataset, every two runs (``a``, ``b``:
    indexes into ``runs``, and their labels) overall and by slice, and the multimodal gains."""
    index = {id(r): k for k, r in enumerate(runs)}
    out = []
    for group in shown_together(runs):
        group = models_of(group)
        if len(group) < 2:
            continue
        labels = run_labels(group)
        suite, dataset, sha = dataset_key(group[0])
        for c in compare_runs(group):
            out.append({"kind": "models", "suite": suite, "dataset": dataset,
                        "items_sha256": sha, "a": index[id(group[c.a])], "b": index[id(group[c.b])],
                        "a_label": labels[c.a], "b_label": labels[c.b], **c.overall,
                        "by_slice": c.slices})
        for f, k, c2 in gains(group):
            out.append({"kind": "multimodal-gain", "suite": suite, "dataset": dataset,
                        "items_sha256": sha, "a": index[id(group[f])], "b": index[id(group[k])],
                        "a_label": labels[f], "b_label": labels[k],
                        "ablation": ablation_of(group[k].spec), **c2})
    return out


def comparisons_payload(runs: Sequence[RunResult]) -> list[dict[str, Any]]:
    """For the page: the comparisons of the runs of one dataset (``a``, ``b``: indexes into
    them), and the gains (``gain``: true; ``a`` the full run, ``b`` the ablated one)."""
    models = models_of(runs)  # people come last: the indexes stay those of ``runs``
    return [*({"a": c.a, "b": c.b, **c.overall, "by_slice": c.slices}
              for c in compare_runs(models)),
            *({"a": f, "b": k, "gain": True, **c} for f, k, c in gains(models))]


def _row_cells(c: dict[str, Any]) -> list[str | Cell]:
    ci = (float(c["ci95"][0]), float(c["ci95"][1]))
    mark = "*" if c["p_holm"] < SIGNIFICANT else ""
    return [str(c["n_items"]), Cell(c["accuracy_a"]), Cell(c["accuracy_b"]),
            Cell(c["difference"], ci=ci), f"{signed(ci[0])} to {signed(ci[1])}",
            str(c["a_only"]), str(c["b_only"]), fmt_p(c["mcnemar_p"]), fmt_p(c["p_holm"]) + mark]


STAT_COLUMNS = ("items", "A %", "B %", "A − B", "95% interval", "A only", "B only", "p",
                "p (Holm)")
NOTE = ("Accuracy in % on the items both runs scored; A − B in points with Newcombe's 95% "
        "paired interval (widened by the design effect when a pair's questions move together); "
        "A only / B only = items only that run got right; p = exact McNemar test (over pairs, "
        "as a sign-flip test, when items come in pairs); p (Holm) adjusted over the "
        "comparisons of this table (* < 0.05).")

GAIN_NOTE = ("Gain = accuracy with the images − accuracy with them ablated (blank: mid-grey; "
             "shuffled: another pair's; none: no image), in points, on the items both runs "
             "scored; Newcombe's 95% paired interval; p = exact McNemar test, Holm "
             "over the gains (* < 0.05). A gain near 0: the score did not need the image (every "
             "gain shown is of a run whose model was checked to read the pixels the ablation "
             "takes away).")


def comparison_tables(runs: Sequence[RunResult], slices: bool = True) -> list[Table]:
    """For the runs of one dataset: the overall comparisons of every two runs and (``slices``)
    the comparisons per slice; the multimodal gains (full − ablated) if any."""
    out: list[Table] = []
    runs = models_of(runs)
    labels = run_labels(runs)
    found = compare_runs(runs) if len(runs) > 1 else []
    name = runs[0].dataset if runs else ""
    if found:
        rows = tuple((f"{labels[c.a]} vs {labels[c.b]}", *_row_cells(c.overall))
                     for c in found)
        out.append(Table(f"Paired comparisons: {name} (A vs B)", ("comparison", *STAT_COLUMNS),
                         rows, notes=(NOTE,)))
        if slices and any(c.slices for c in found):
            rows = tuple((f"{labels[c.a]} vs {labels[c.b]}", f"{s['key']}: {s['value']}",
                          *_row_cells(s)) for c in found for s in c.slices)
            out.append(Table(f"Paired comparisons by slice: {name} (A vs B)",
                             ("comparison", "slice", *STAT_COLUMNS), rows,
                             notes=(NOTE.replace("of this table", "of this table (every pair "
                                                 "of runs × slice)"),)))
    gained = gains(runs)
    unchecked = [r for r in runs if ablation_of(r.spec) is not None
                 and not ablation_checked(r.spec)]
    if unchecked:
        out.append(Table(f"Multimodal gain: {name} (not shown)", ("model", "ablation"),
                         tuple((model_name(r), f"image: {ablation_of(r.spec)}")
                               for r in unchecked),
                         notes=(("These ablated runs were made before whatifbench checked that "
                                 "an ablation applies to the model (reference models and oracle "
                                 "perception never read the pixels); their gain is not shown and "
                                 "says nothing about the image. Run them again."),)))
    if gained:
        rows = tuple((labels[f], f"image: {ablation_of(runs[k].spec)}", *_row_cells(c))
                     for f, k, c in gained)
        columns = ("model", "ablation", "items", "full %", "ablated %", "gain",
                   *STAT_COLUMNS[4:])
        out.append(Table(f"Multimodal gain: {name} (full − ablated)", columns, rows,
                         notes=(GAIN_NOTE,)))
    return out
