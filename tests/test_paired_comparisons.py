"""Paired model comparisons and the multimodal gain: the statistics agree with scipy and
statsmodels, every two runs of a dataset are compared (overall and per slice, Holm-adjusted),
and results.json, report.md and the tables carry them."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from util import make_choice_dataset

from whatifbench import api
from whatifbench.core.suite import Sample
from whatifbench.metrics import intervals
from whatifbench.metrics.paired import compare
from whatifbench.metrics.stats import holm, mcnemar_exact
from whatifbench.report.comparisons import (
    compare_runs,
    comparison_tables,
    comparisons_json,
    gains,
)
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.results import RunResult


def _outcomes(seed: int, pairs: int, p: float, q: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random(2 * pairs) < p
    b = np.where(rng.random(2 * pairs) < 0.6, a, rng.random(2 * pairs) < q)  # correlated
    return a, b


@pytest.mark.parametrize(("seed", "pairs", "p", "q"), [(0, 300, 0.7, 0.55), (1, 40, 0.5, 0.5),
                                                       (2, 7, 0.9, 0.2), (3, 1000, 0.3, 0.35)])
def test_compare_agrees_with_scipy_and_statsmodels(seed: int, pairs: int, p: float,
                                                   q: float) -> None:
    a, b = _outcomes(seed, pairs, p, q)
    units = [f"pair{k // 2}" for k in range(len(a))]
    found = compare(a, b, units)
    assert found["accuracy_a"] == pytest.approx(100 * a.mean(), abs=0.005)
    assert found["difference"] == pytest.approx(100 * (a.mean() - b.mean()), abs=0.005)
    table = [[int(np.sum(a & b)), int(np.sum(a & ~b))], [int(np.sum(~a & b)), int(np.sum(~a & ~b))]]
    # the interval: Newcombe's over the 2x2 table shrunk by the pairs' design effect (the
    # robust variance of the per-pair differences over the variance of independent items)
    d = (a.astype(float) - b).reshape(-1, 2)
    naive = d.var() / d.size
    robust = pairs / (pairs - 1) * np.sum((d.sum(axis=1) - 2 * d.mean()) ** 2) / d.size ** 2
    deff = min(max(robust / naive, 1.0), 2.0) if naive > 0 and robust > 0 else 1.0
    assert found["ci95"] == list(intervals.paired_difference(
        *(c / deff for c in (table[0][0], table[0][1], table[1][0], table[1][1]))))
    assert found["ci95_method"] == ("newcombe-paired" if deff == 1.0
                                    else "newcombe-paired-clustered")
    lo, hi = found["ci95"]
    assert lo < found["difference"] < hi
    exact = mcnemar(table, exact=True).pvalue
    assert mcnemar_exact(found["a_only"], found["b_only"]) == pytest.approx(exact, rel=1e-9)
    assert (found["a_only"], found["b_only"]) == (table[0][1], table[1][0])
    # over pairs the exact test flips the sign of each pair's difference: a brute-force
    # enumeration of the flips where it is small enough, McNemar's when pairs are split
    if pairs <= 12:
        per = d.sum(axis=1)
        observed = abs(per.sum())
        flips = [abs(sum(s * v for s, v in zip(signs, per, strict=True))) >= observed - 1e-9
                 for signs in itertools.product((1, -1), repeat=pairs)]
        assert found["mcnemar_p"] == pytest.approx(np.mean(flips), rel=1e-3)
    assert found["test"] == "exact sign-flip over units (clustered McNemar)"
    single = compare(a, b, [str(k) for k in range(len(a))])
    assert single["mcnemar_p"] == pytest.approx(exact, rel=1e-3)
    assert single["test"] == "exact McNemar over items"
    assert single["ci95"] == list(intervals.paired_difference(
        table[0][0], table[0][1], table[1][0], table[1][1]))


def test_holm_agrees_with_statsmodels() -> None:
    rng = np.random.default_rng(7)
    for size in (1, 2, 5, 17, 60):
        ps = list(rng.random(size) ** 3)
        ps[size // 2] = ps[0]  # ties
        assert holm(ps) == pytest.approx(list(multipletests(ps, method="holm")[1]), abs=1e-12)
    assert holm([]) == []


def _run(model: str, correct: list[bool], spec: dict | None = None,
         meta: list[dict] | None = None) -> RunResult:
    samples = [Sample(item_id=f"p{k // 2}-{'oc'[k % 2]}", pair_id=f"p{k // 2}",
                      role=("original", "counterfactual")[k % 2], group=f"g{k // 2 % 3}",
                      question="q", prompt="q", target="1", response="1", scores=None,
                      prediction="1" if c else "2", correct=c, unparsed=False, flag=None,
                      error=None, meta=(meta or [{}] * len(correct))[k])
               for k, c in enumerate(correct)]
    full = {"dataset": {"items_sha256": "abc"}, **(spec or {})}
    return RunResult("cvqa-synthetic", "toy", model, len(samples), {}, full, samples)


def test_every_two_runs_are_compared_overall_and_per_slice_with_holm() -> None:
    rng = np.random.default_rng(3)
    meta = [{"template": k // 2 % 3 + 1} for k in range(120)]  # the same items as the groups
    runs = [_run(f"m{j}", list(rng.random(120) < 0.3 + 0.2 * j), meta=meta) for j in range(3)]
    found = compare_runs(runs)
    assert [(c.a, c.b) for c in found] == [(0, 1), (0, 2), (1, 2)]
    raw = [c.overall["mcnemar_p"] for c in found]
    assert [c.overall["p_holm"] for c in found] == pytest.approx(
        list(multipletests(raw, method="holm")[1]), rel=1e-3)
    keys = [(s["key"], s["value"]) for s in found[0].slices]
    # role and group; template has the same items as group and is not repeated
    assert keys == [("role", "original"), ("role", "counterfactual"), ("group", "g0"),
                    ("group", "g1"), ("group", "g2")] or keys == [
        ("role", "counterfactual"), ("role", "original"), ("group", "g0"), ("group", "g1"),
        ("group", "g2")]
    every_slice = [s["mcnemar_p"] for c in found for s in c.slices]
    assert [s["p_holm"] for c in found for s in c.slices] == pytest.approx(
        list(multipletests(every_slice, method="holm")[1]), rel=1e-3)
    first = found[0].slices[2]  # group g0 of m0 vs m1
    ids = [k for k in range(120) if k // 2 % 3 == 0]
    a = np.array([runs[0].samples[k].correct for k in ids])
    b = np.array([runs[1].samples[k].correct for k in ids])
    assert first["n_items"] == len(ids) and first["n_units"] == len(ids) // 2
    assert first["difference"] == pytest.approx(100 * (a.mean() - b.mean()), abs=0.005)


def test_only_the_items_both_runs_scored_are_compared() -> None:
    full = _run("a", [True] * 10)
    part = _run("b", [False] * 6)  # the first three pairs only
    (c,) = compare_runs([full, part])
    assert c.overall["n_items"] == 6 and c.overall["difference"] == 100.0
    graded = RunResult("mucr", "toy", "c", 1, {}, {}, [Sample(
        item_id="x", pair_id=None, role=None, group=None, question="q", prompt="q", target="t",
        response="r", scores=None, prediction=None, correct=False, unparsed=False, flag=None,
        error=None, score=7.0)])
    assert compare_runs([full, graded]) == []  # free text graded by a judge: not compared


def test_the_multimodal_gain_pairs_each_ablated_run_with_its_full_run() -> None:
    full = _run("hf:/m", [True] * 20)
    checked = {"image_ablation": {"kind": "blank", "checked": True}}
    blank = _run("hf:/m", [k % 4 == 0 for k in range(20)], checked)
    other = _run("hf:/other", [False] * 20, checked)
    cot = _run("hf:/m", [False] * 20, {"image_ablation": {"kind": "none"},
                                      "protocol": {"strategy": "cot"}})
    found = gains([full, blank, other, cot])
    assert [(f, k) for f, k, _ in found] == [(0, 1)]  # no full run for the other two
    assert found[0][2]["difference"] == 75.0
    entries = comparisons_json([full, blank, other, cot])
    gain = [e for e in entries if e["kind"] == "multimodal-gain"]
    assert len(gain) == 1 and gain[0]["ablation"] == "blank"
    assert gain[0]["a_label"] == "hf:/m [strategy=zero-shot]"  # the cot run tells them apart
    assert gain[0]["b_label"] == "hf:/m [image: blank, strategy=zero-shot]"


def test_results_json_and_report_md_carry_the_comparisons(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=10)
    runs = api.run_all([ds], ["builtin:random", "builtin:constant"],
                       options=RunOptions(progress=False))
    api.write_outputs(tmp_path / "run", runs)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    (entry,) = results["comparisons"]
    assert (entry["a"], entry["b"], entry["kind"]) == (0, 1, "models")
    assert entry["a_label"] == "builtin:random" and entry["by_slice"]
    assert {"difference", "ci95", "mcnemar_p", "p_holm", "n_items"} <= set(entry)
    md = (tmp_path / "run" / "report.md").read_text()
    assert "**Paired comparisons: handmade (A vs B)**" in md
    assert "| builtin:random vs builtin:constant | 20 |" in md
    assert "**Paired comparisons by slice: handmade (A vs B)**" in md
    # a merged report recomputes them from the run folders
    from whatifbench.cli.main import main

    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "merged")]) == 0
    merged = json.loads((tmp_path / "merged" / "results.json").read_text())
    assert merged["comparisons"] == results["comparisons"]


def test_a_gain_of_an_unchecked_ablation_is_not_concluded_from() -> None:
    """An ablated run of an older version (no ``checked``: its model was never asked whether
    the ablation takes the image away, as an oracle's was not) gives no gain and no
    conclusion; the table says why."""
    full = _run("viper:openai:x", [True] * 20)
    old = _run("viper:openai:x", [True] * 20, {"image_ablation": {"kind": "blank"}})
    assert gains([full, old]) == []
    tables = comparison_tables([full, old])
    shown = [t for t in tables if t.title.startswith("Multimodal gain")]
    assert [t.title.endswith("(not shown)") for t in shown] == [True]
    assert "did not need the image" not in " ".join(n for t in tables for n in t.notes)
