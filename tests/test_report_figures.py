"""The papers' figures as data, for every suite, and drawn (SVG) without error."""

from __future__ import annotations

from pathlib import Path

from whatifbench.report.draw import svg
from whatifbench.report.figures import figures_for
from whatifbench.runner.results import RunResult


def _run(suite: str, model: str, metrics: dict) -> RunResult:
    return RunResult(suite, "d", model, 10, metrics, {"protocol": {}, "dataset": {}})


def _cat(b: float, c: float) -> dict:
    return {"acc_b": b, "acc_c": c, "acc_plus": min(b, c), "n_pairs": 5,
            "ci95": {"acc_b": [b - 5, b + 5], "acc_c": [c - 5, c + 5],
                     "acc_plus": [min(b, c) - 5, min(b, c) + 5]}}


def test_cvqa_figures_show_both_roles_with_whiskers_and_the_change() -> None:
    group = {"original_accuracy": 90.0, "counterfactual_accuracy": 40.0, "drop": 50.0,
             "ci95": {"original_accuracy": [80.0, 100.0], "counterfactual_accuracy": [30.0, 50.0],
                      "drop": [40.0, 60.0]}}
    runs = [_run("cvqa-real", m, {**group, "by_group": {"direct": group, "boolean": group}})
            for m in ("a", "b")]
    accuracy, change = figures_for(runs)
    assert [p.title for p in accuracy.panels] == ["a", "b"]
    panel = accuracy.panels[0]
    assert panel.categories == ("Numerical Direct", "Boolean", "all")
    assert [s.name for s in panel.series] == ["original", "counterfactual"]
    assert panel.series[1].intervals[0] == (30.0, 50.0)
    assert change.ylim is None and change.panels[0].series[0].values == (-50.0, -50.0, -50.0)
    assert change.panels[0].series[0].intervals[0] == (-60.0, -40.0)


def test_cfmm_mucr_and_cello_figures(tmp_path: Path) -> None:
    cfmm = [_run("cfmm", "m", {"by_category": {"count": _cat(80, 40), "color": _cat(60, 20)}})]
    [fig] = figures_for(cfmm)
    assert fig.panels[0].categories == ("count", "color")
    assert [s.name for s in fig.panels[0].series] == ["acc_b", "acc_c", "acc+"]
    core = {"c2e": 75.0, "e2c": 25.0, "cue": 50.0, "ci95": {"c2e": [50.0, 100.0]}}
    mucr = [_run("mucr", "m", {**core, "by_category": {"human": core},
                               "by_style": {"photograph": core}})]
    names = [f.name for f in figures_for(mucr)]
    assert names == ["mucr-d-accuracy-by-metric", "mucr-d-accuracy-by-category",
                     "mucr-d-accuracy-by-style"]
    assert figures_for(mucr)[0].panels[0].series[0].intervals == ((50.0, 100.0), None, None)
    entry = {"accuracy": 100.0, "n": 1}
    cello = [_run("cello", m, {"by_rung": {"1": entry, "2": {"accuracy": 50.0, "n": 40}},
                               "by_task_type": {"BAS": entry}, "by_graph_type": {"chain": entry},
                               "distractor_errors": {"n_errors": 4, "by_kind": {
                                   "image": {"count": 3, "share_of_errors": 75.0},
                                   "graph": {"count": 1, "share_of_errors": 25.0}}}})
             for m in ("a", "b")]
    figures = figures_for(cello)
    assert [f.name for f in figures] == [
        "cello-d-accuracy-by-rung", "cello-d-accuracy-by-task-type",
        "cello-d-accuracy-by-graph-type", "cello-d-distractor-errors"]
    rung = figures[0].panels[0]
    assert [s.name for s in rung.series] == ["a", "b"]
    low, high = rung.series[0].intervals[0]
    assert high == 100.0 and low < 25.0  # Wilson interval of 1 of 1: wide, not [100, 100]
    assert figures[3].panels[0].series[0].values == (75.0, 25.0)
    for figure in [*figures, *figures_for(mucr), *figures_for(cfmm)]:
        assert svg(figure, tmp_path).startswith("<?xml")


def test_names_are_drawn_as_written() -> None:
    """A model or dataset name with ``$`` (matplotlib's mathematics) or control characters is
    drawn as plain text, without errors or missing-glyph warnings."""
    import warnings

    group = {"original_accuracy": 90.0, "counterfactual_accuracy": 40.0, "drop": 50.0}
    runs = [_run("cvqa-real", "price $x^$ \x1b[31mred\x07", {**group, "by_group": {}})]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph would be a warning
        drawn = [svg(spec) for spec in figures_for(runs)]
    assert all("price $x^$ [31mred" in page for page in drawn)
