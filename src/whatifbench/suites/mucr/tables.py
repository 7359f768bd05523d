"""MuCR tables: Table 1 layout, the category/style breakdown (Fig. 9), and multi-image versus
composite input for models run both ways."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.table import Cell, Table, fmt, interval
from whatifbench.report.labels import labeller
from whatifbench.runner.results import RunResult
from whatifbench.suites.mucr.prompts import METRICS

HEADERS = {"c2e": "C2E", "e2c": "E2C", "cue": "Cue", "exp": "Exp"}


def _judge(run: RunResult) -> str | None:
    return run.spec.judge.shown if run.spec.judge is not None else None


def _cells(m: dict[str, Any], counted: bool = True) -> list[str | Cell]:
    ci = m.get("ci95", {})
    n = m.get("n", {}) if counted else {}
    return ["not judged" if k == "exp" and m.get("exp_judged") is False
            else Cell(m.get(k), 2 if k == "exp" else 1, interval(ci.get(k)),
                      n.get(k))
            for k in METRICS]


def main_table(runs: Sequence[RunResult]) -> Table:
    """Rows = runs; columns C2E, E2C, Cue (accuracy %) and Exp (0–10), as MuCR Table 1."""
    label = labeller(runs)
    rows = tuple((label(r), *_cells(r.metrics), fmt(r.metrics.get("unparsed"))) for r in runs)
    judges = sorted({j for j in (_judge(r) for r in runs) if j})
    notes = [f"C2E, E2C, Cue: accuracy in % over {runs[0].metrics.get('n_pairs')} pairs; Exp: "
             "0–10, 0.25·cause + 0.25·effect + 0.5·link"
             + (f", judged by {', '.join(judges)}" if judges else "") + ".",
             ("± = 95% interval over items (report.md, report.html): Wilson for the accuracies, "
              "for Exp the Wilson interval of the mean at its effective size; per-part Exp "
              "scores and judge failures are in results.json.")]
    notes += sorted({str(r.metrics["exp_not_judged"]) for r in runs
                     if r.metrics.get("exp_not_judged")})
    return Table(f"MuCR: {runs[0].dataset} (Table 1 layout)",
                 ("model", *(HEADERS[k] for k in METRICS), "unparsed %"), rows, notes=tuple(notes))


def breakdown_table(runs: Sequence[RunResult]) -> Table:
    """One row per run and category or style (MuCR Fig. 9)."""
    rows = []
    label = labeller(runs)
    for r in runs:
        for key, kind in (("by_category", "category"), ("by_style", "style")):
            for value, m in r.metrics.get(key, {}).items():
                rows.append((label(r), f"{kind}: {value}", str(m.get("n_pairs", 0)),
                             *_cells(m, counted=False)))
    return Table(f"MuCR: {runs[0].dataset} by category and style",
                 ("model", "slice", "pairs", *(HEADERS[k] for k in METRICS)), tuple(rows))


def layout_table(runs: Sequence[RunResult]) -> Table | None:
    """Multi-image versus composite input for each model run both ways with otherwise the same
    protocol and judge; ``None`` when there is no such model."""
    found: dict[tuple[Any, ...], dict[str, RunResult]] = {}
    for r in runs:
        proto = r.spec.protocol.to_json() if r.spec.protocol else {}
        layout = proto.pop("image_layout", None)
        key = (r.model, tuple(sorted(proto.items())), _judge(r))
        found.setdefault(key, {})[str(layout)] = r
    both = [(key, v) for key, v in found.items() if "multi" in v and "composite" in v]
    if not both:
        return None
    rows = []
    label = labeller([v["multi"] for _key, v in both], ("image_layout",))
    for _key, v in both:
        multi, comp = v["multi"].metrics, v["composite"].metrics
        row = [label(v["multi"])]
        for k in METRICS:
            a, b = multi.get(k), comp.get(k)
            digits = 2 if k == "exp" else 1
            delta = None if a is None or b is None else b - a
            row += [fmt(a, digits), fmt(b, digits),
                    "–" if delta is None else f"{delta:+.{digits}f}"]
        rows.append(tuple(row))
    columns = ["model"]
    for _k in METRICS:
        columns += ["multi", "composite", "Δ"]
    groups = (("", 1), *((HEADERS[k], 3) for k in METRICS))
    return Table(f"MuCR: {runs[0].dataset}, multi-image vs composite input", tuple(columns),
                 tuple(rows), groups, ("Δ = composite − multi.",))
