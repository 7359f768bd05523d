"""Bias analysis (C-VQA §4.3, Fig. 5): accuracy drop by image subgroup, and the gap between drops.

Joins a user's CSV ``image,group`` (e.g. perceived gender from a COCO annotation study) with a
run folder's ``samples.jsonl``. Per dataset × model and subgroup: original and counterfactual
accuracy over complete pairs, ``diff = original − counterfactual`` (points); per pair of
subgroups the gap ``diff(a) − diff(b)``. The 95 % intervals are Newcombe's paired interval of
each diff over its pairs and the MOVER difference of two diffs for a gap
(``metrics.intervals``; subgroups are disjoint sets of pairs). ``bias.json`` keeps these; the
tables and the plot show the change Δ = counterfactual − original = −diff, as every table of
whatifbench does.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from whatifbench.core.dataset import iter_jsonl, problems_message
from whatifbench.core.outputs import PathLike, staged_dir
from whatifbench.core.readfile import read_text
from whatifbench.core.records.spec import RunSpec
from whatifbench.core.suite import Sample
from whatifbench.core.table import Table, fmt
from whatifbench.errors import WhatifError
from whatifbench.metrics import intervals
from whatifbench.report.errors import errors_sentence
from whatifbench.runner.results import RunResult, load_runs

MIN_PAIRS = 10
"""Subgroups with fewer pairs get a warning (their intervals are wide)."""


@dataclass(frozen=True)
class SubgroupStats:
    """One subgroup's accuracies for one model."""

    dataset: str
    """Dataset name."""
    model: str
    """Backend spec."""
    subgroup: str
    """The group named in the groups file."""
    n_pairs: int
    """Complete pairs whose image belongs to the subgroup."""
    original_accuracy: float
    """Percent of original questions answered right."""
    counterfactual_accuracy: float
    """Percent of counterfactual questions answered right."""
    diff: float
    """original − counterfactual accuracy, in points."""
    diff_ci: tuple[float, float] | None
    """95 % interval of ``diff`` (Newcombe's paired interval over the pairs)."""


@dataclass(frozen=True)
class Gap:
    """How much larger one subgroup's diff is than another's, for one model."""

    dataset: str
    """Dataset name."""
    model: str
    """Backend spec."""
    first: str
    """Subgroup a."""
    second: str
    """Subgroup b."""
    gap: float
    """diff(a) − diff(b), in points (positive: the model struggles more with a)."""
    ci: tuple[float, float] | None
    """95 % interval (MOVER difference of the two diffs' intervals)."""


@dataclass(frozen=True)
class BiasReport:
    """The whole analysis."""

    subgroups: tuple[SubgroupStats, ...]
    """Per dataset × model × subgroup."""
    gaps: tuple[Gap, ...]
    """Per dataset × model × pair of subgroups (sorted names: a < b)."""
    ungrouped_pairs: int
    """Complete pairs whose image is not in the groups file (each pair once, however many
    models answered it)."""
    unused_images: int
    """Images of the groups file that no evaluated pair shows."""
    interval_methods: dict[str, str]
    """The method of ``diff_ci`` and of ``ci`` (``metrics.intervals``)."""
    warnings: tuple[str, ...] = ()
    """Subgroups too small for their interval to mean much (fewer than ``MIN_PAIRS``)."""
    backend_errors: tuple[tuple[str, str, int, int], ...] = ()
    """``(dataset, model, items that ended in a backend error, items)`` of the runs that had
    errors (those items count as wrong above)."""


def read_groups(path: Path) -> dict[str, str]:
    """``image file name → group`` from a CSV with columns ``image`` and ``group``."""
    try:
        text = read_text(path, "utf-8-sig")
    except FileNotFoundError:
        raise WhatifError(f"The groups file {path} does not exist; check --groups.") from None
    except UnicodeDecodeError as exc:
        raise WhatifError(f"The groups file {path} is not UTF-8 text ({exc}).") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not {"image", "group"} <= set(reader.fieldnames or []):
        raise WhatifError(f"{path}:1 must have the columns image,group (got "
                          f"{','.join(reader.fieldnames or [])!r}).")
    groups: dict[str, str] = {}
    lines: dict[str, int] = {}
    problems = []
    for lineno, row in enumerate(reader, start=2):
        image = Path((row.get("image") or "").strip()).name
        group = (row.get("group") or "").strip()
        if not image or not group:
            problems.append(f"line {lineno}: needs both an image and a group")
        elif image in groups and groups[image] != group:
            problems.append(f"line {lineno}: image {image} is in group {group!r} here and in "
                            f"{groups[image]!r} on line {lines[image]}")
        else:
            groups.setdefault(image, group)
            lines.setdefault(image, lineno)
    if problems or not groups:
        raise WhatifError(problems_message(f"The groups file {path}", problems or ["no rows"],
                                           "Give one 'image,group' row per image."))
    return groups


def run_pairs(run: Path, results: Sequence[RunResult] | None = None
              ) -> dict[tuple[str, str], list[tuple[str, str, bool, bool]]]:
    """Per (dataset, model): ``(pair id, image, original right, counterfactual right)`` per
    full pair (``results``: the runs of the folder, when already loaded)."""
    out: dict[tuple[str, str], list[tuple[str, str, bool, bool]]] = {}
    for result in results if results is not None else load_runs(run):
        by_pair: dict[str, dict[str, Sample]] = {}
        for s in result.samples:
            if s.pair_id is not None and s.role is not None:
                by_pair.setdefault(s.pair_id, {})[s.role] = s
        images: dict[str, str] | None = None
        rows = out.setdefault((result.dataset, result.model), [])
        for pair_id, roles in by_pair.items():
            first = roles.get("original") or roles.get("basic")
            cf = roles.get("counterfactual")
            if first is None or cf is None:
                continue
            image = first.meta.get("image")
            if not image:
                images = images if images is not None else _dataset_images(result.spec)
                image = images.get(first.item_id)
            if not image:
                raise WhatifError(
                    f"The samples of pair {pair_id} ({result.model} on {result.dataset}) in "
                    f"{run} carry no image name (meta.image) and the run's dataset is not at "
                    "hand to look it up.")
            rows.append((pair_id, Path(str(image)).name, bool(first.correct), bool(cf.correct)))
    if not any(out.values()):
        raise WhatifError(f"The run folder {run} holds no complete original/counterfactual "
                          "pairs (samples.jsonl).")
    return {k: v for k, v in out.items() if v}


def _dataset_images(spec: RunSpec) -> dict[str, str]:
    """``item id → first image`` from the dataset a run's spec names (empty if it is gone)."""
    path = Path(spec.dataset_path or "") / "items.jsonl"
    out: dict[str, str] = {}
    if path.is_file():
        for _, item in iter_jsonl(path):
            if isinstance(item, dict) and item.get("images"):
                out[str(item.get("id"))] = str(item["images"][0])
    return out


def analyze_bias(run: str | Path, groups_file: str | Path) -> BiasReport:
    """The subgroup accuracies, diffs and gaps of every model in a run folder."""
    groups = read_groups(Path(groups_file))
    results = load_runs(Path(run))
    pairs = run_pairs(Path(run), results)
    stats: list[SubgroupStats] = []
    gaps: list[Gap] = []
    ungrouped: set[tuple[str, str]] = set()
    used: set[str] = set()
    warnings: list[str] = []
    for (dataset, model), rows in pairs.items():
        columns: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name in sorted(set(groups.values())):
            members = [(o, c) for _, image, o, c in rows if groups.get(image) == name]
            if members:
                arr = np.array(members, dtype=float)
                columns[name] = (arr[:, 0], arr[:, 1])
        ungrouped.update((dataset, pair) for pair, image, _, _ in rows if image not in groups)
        used.update(image for _, image, _, _ in rows)
        for name, (o, c) in columns.items():
            acc_o = round(100.0 * float(o.mean()), 2)  # a subgroup has a pair at least
            acc_c = round(100.0 * float(c.mean()), 2)
            both = int(np.sum((o > 0) & (c > 0)))
            first = int(np.sum((o > 0) & (c == 0)))
            second = int(np.sum((o == 0) & (c > 0)))
            ci = intervals.paired_difference(both, first, second, len(o) - both - first - second)
            stats.append(SubgroupStats(dataset, model, name, len(o), acc_o, acc_c,
                                       round(acc_o - acc_c, 2), ci))
            if len(o) < MIN_PAIRS:
                warnings.append(
                    f"{model} on {dataset}: subgroup {name!r} has only {len(o)} pair(s); "
                     "its interval is wide.")
        by_name = {s.subgroup: s for s in stats if (s.dataset, s.model) == (dataset, model)}
        for a, b in itertools.combinations(sorted(columns), 2):
            sa, sb = by_name[a], by_name[b]
            ci = (intervals.independent_difference(sa.diff, sa.diff_ci, sb.diff, sb.diff_ci)
                  if sa.diff_ci and sb.diff_ci else None)
            gaps.append(Gap(dataset, model, a, b, round(sa.diff - sb.diff, 2), ci))
    if not stats:
        raise WhatifError(f"No image of the run {run} is listed in {groups_file}; check that its "
                          "'image' column holds the COCO file names.")
    return BiasReport(tuple(stats), tuple(gaps), len(ungrouped),
                      len(set(groups) - used),
                      {"diff_ci": intervals.NEWCOMBE_PAIRED, "ci": intervals.MOVER_DIFFERENCE},
                      tuple(warnings),
                      tuple((r.dataset, r.model, r.n_errors, r.n_items) for r in results
                            if r.n_errors))


def _signed(value: float) -> str:
    """A change with its sign (``-20.0``, ``+0.0``)."""
    return f"{round(value, 1) or 0.0:+.1f}"


def _interval(ci: tuple[float, float] | None) -> str:
    """The interval of ``-x`` from that of ``x``, signed (``–`` when there is none)."""
    return "–" if ci is None else f"[{_signed(-ci[1])}, {_signed(-ci[0])}]"


def bias_tables(report: BiasReport) -> list[Table]:
    """The subgroup table and the gap table, showing the change Δ = counterfactual − original
    (``bias.json`` keeps ``diff`` = original − counterfactual = −Δ and its gaps)."""
    rows = tuple((s.model, s.subgroup, str(s.n_pairs) + ("!" if s.n_pairs < MIN_PAIRS else ""),
                  fmt(s.original_accuracy), fmt(s.counterfactual_accuracy), _signed(-s.diff),
                  _interval(s.diff_ci)) for s in report.subgroups)
    notes = (("Δ = counterfactual − original accuracy (points; negative: the premise lowers "
              "accuracy); bias.json's diff = original − counterfactual = −Δ. 95% intervals: "
              "Newcombe's paired interval over each subgroup's pairs; a gap's is the MOVER "
              "difference of the two (docs/statistics.md)."),
             (f"{report.ungrouped_pairs} evaluated pair(s) have no group; "
              f"{report.unused_images} image(s) of the groups file were not evaluated."),
             *(f"! {w}" for w in report.warnings))
    gap_rows = tuple((g.model, f"Δ({g.first}) − Δ({g.second})", _signed(-g.gap),
                      _interval(g.ci)) for g in report.gaps)
    failed: tuple[str, ...] = ()
    if report.backend_errors:
        failed = (errors_sentence([f"{model} on {dataset}: {n} of {total} items"
                                   for dataset, model, n, total in report.backend_errors]),)
    return [Table("Bias: accuracy by image subgroup (C-VQA §4.3)",
                  ("model", "subgroup", "pairs", "orig", "cf", "Δ", "Δ 95% CI"), rows,
                  notes=(*notes, *failed)),
            Table("Bias: gap between subgroups' changes", ("model", "gap", "points", "95% CI"),
                  gap_rows, notes=(("A negative gap means the counterfactual premise costs "
                                    "the model more on the first subgroup (bias.json's gap = "
                                    "diff(a) − diff(b) has the opposite sign)."), *failed))]


def write_bias(report: BiasReport, out: Path, overwrite: bool = False,
               inputs: Iterable[PathLike] = ()) -> dict[str, Path]:
    """Write ``bias.json``, ``bias.md`` and the bar plot ``bias.png`` as the new folder ``out``
    (staged, published whole; ``overwrite`` replaces an earlier analysis folder of ours)."""
    with staged_dir(out, overwrite, inputs, kind="analysis") as stage:
        _write_bias(report, _bias_files(stage))
    return _bias_files(Path(out))


def _bias_files(folder: Path) -> dict[str, Path]:
    return {kind: folder / f"bias.{kind}" for kind in ("json", "md", "png")}


def _write_bias(report: BiasReport, paths: dict[str, Path]) -> None:
    from whatifbench.report.plots import bar_chart

    paths["json"].write_text(json.dumps(asdict(report), indent=2, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    paths["md"].write_text("\n\n".join(t.to_markdown() for t in bias_tables(report)) + "\n",
                           encoding="utf-8")
    runs = list(dict.fromkeys((s.dataset, s.model) for s in report.subgroups))
    several = len({d for d, _ in runs}) > 1
    labels = [f"{m} ({d})" if several else m for d, m in runs]
    names = sorted({s.subgroup for s in report.subgroups})
    found = {(s.dataset, s.model, s.subgroup): s for s in report.subgroups}
    series: dict[str, Sequence[float]] = {}
    errors: dict[str, Sequence[tuple[float, float]]] = {}
    for name in names:
        cells = [found.get((d, m, name)) for d, m in runs]
        series[name] = [-c.diff if c else 0.0 for c in cells]
        errors[name] = [(min(-c.diff_ci[1], -c.diff), max(-c.diff_ci[0], -c.diff))
                        if c and c.diff_ci else (-c.diff, -c.diff) if c else (0.0, 0.0)
                        for c in cells]
    bar_chart(labels, series, "Accuracy change Δ (counterfactual − original) by subgroup",
              "Δ (points)", paths["png"], errors)
