"""CFMM metrics and tables against a hand-computed example (numbers worked out by hand below)."""

from __future__ import annotations

from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.suite import Sample
from whatifbench.metrics import intervals
from whatifbench.runner.results import RunResult
from whatifbench.suites.cfmm.metrics import cfmm_metrics
from whatifbench.suites.cfmm.suite import CfmmSuite

# (pair, category, basic options, basic target, basic prediction,
#  cf options, cf target, cf prediction); None = unparsed.
PAIRS = [
    ("p1", "count", ("2", "3"), "2", "2", ("2", "3"), "3", "3"),      # B right, C right
    ("p2", "count", ("2", "3"), "2", "2", ("2", "3", "4"), "3", "2"),  # C wrong: chose basic
    ("p3", "count", ("4", "5"), "4", "4", ("4", "5", "6"), "6", "5"),  # C wrong: another one
    ("p4", "count", ("1", "2"), "1", "2", ("1", "2"), "2", "2"),      # B wrong, C right
    ("p5", "count", ("3", "4"), "3", "3", ("5", "6"), "6", "5"),      # basic answer not offered
    ("q1", "color", ("red", "blue"), "red", "red",
     ("red", "green"), "red", "green"),                                # cf answer unchanged
    ("q2", "color", ("red", "blue"), "blue", "red",
     ("blue", "white", "green"), "white", None),                       # C unparsed
]


def _example() -> tuple[list[Sample], list[Item]]:
    samples, items = [], []
    for pid, cat, bo, bt, bp, co, ct, cp in PAIRS:
        for role, opts, target, pred in (("basic", bo, bt, bp), ("counterfactual", co, ct, cp)):
            item = Item(f"{pid}-{role[0]}", ("images/x.png",), f"{role} question of {pid}",
                        "choice", target, opts, pid, role, cat, {"category": cat})
            items.append(item)
            samples.append(Sample(item.id, pid, role, cat, item.question, item.question, target,
                                  None, [0.0, -1.0], pred, pred == target, pred is None,
                                  None, None, meta=dict(item.meta)))
    return samples, items


def test_metrics_match_hand_computation() -> None:
    samples, items = _example()
    m = cfmm_metrics(samples, items)
    # 7 pairs: basic right in p1 p2 p3 p5 q1 (5/7), cf right in p1 p4 (2/7), both in p1 (1/7).
    assert (m["acc_b"], m["acc_c"], m["acc_plus"]) == (71.43, 28.57, 14.29)
    assert m["n_pairs"] == 7 and m["n_items"] == 14 and m["n_unparsed"] == 1
    assert m["drop"] == 42.86
    count, color = m["by_category"]["count"], m["by_category"]["color"]
    assert list(m["by_category"]) == ["count", "color"]  # the paper's order
    assert (count["acc_b"], count["acc_c"], count["acc_plus"], count["n_pairs"]) == (80, 40, 20, 5)
    assert (color["acc_b"], color["acc_c"], color["acc_plus"], color["n_pairs"]) == (50, 0, 0, 2)
    # Totals: sums of the per-category percentages.
    total = m["total"]
    assert (total["acc_b"], total["acc_c"], total["acc_plus"]) == (130, 40, 20)
    assert (total["categories"], total["max"]) == (2, 200)
    # phi over pairs: n11=1 (p1), n10=4 (p2 p3 p5 q1), n01=1 (p4), n00=1 (q2):
    # (1*1 - 4*1) / sqrt(5*2*2*5) = -3/10.
    assert m["phi"] == -0.3
    # count: n11=1, n10=3, n01=1, n00=0: -3/sqrt(4*1*2*3) = -0.6124; color: no cf right → None.
    assert count["phi"] == -0.6124 and color["phi"] is None
    # cf errors on questions with more than two options, whose basic answer is an option and
    # differs from the cf answer: p2 (chose it), p3 (chose another), q2 (unparsed) → 1/3;
    # p5 does not offer the basic answer (an error cannot pick it) and q1's answer is the basic
    # one: neither is a two-option error that picks the basic answer by construction.
    assert m["cf_errors_chose_basic"] == 33.33 and m["n_cf_errors_considered"] == 3
    assert m["n_cf_errors_two_options"] == 0 and m["n_cf_errors_basic_not_offered"] == 1
    # The dataset's counterfactual questions: p2 p3 q2 tell it; p1 p4 offer two options one of
    # which is the basic answer; p5 does not offer it; q1 shares it.
    assert m["cf_questions"] == {"informative": 3, "two_options_with_basic": 2,
                                 "basic_not_offered": 1, "same_answer": 1}


def test_intervals_contain_the_estimates() -> None:
    samples, items = _example()
    m = cfmm_metrics(samples, items)
    for key in ("acc_b", "acc_c", "acc_plus"):
        lo, hi = m["ci95"][key]
        assert lo <= m[key] <= hi and lo < hi
        lo, hi = m["total"]["ci95"][key]
        assert lo <= m["total"][key] <= hi
    lo, hi = m["total"]["ci95"]["acc_b"]
    assert lo < 130 < hi <= 200
    # Wilson over the category's 5 basic questions (4 right); the total is the MOVER sum of the
    # categories' Wilson intervals (count 4 of 5, color 1 of 2)
    assert m["by_category"]["count"]["ci95"]["acc_b"] == intervals.share(4, 5) == (37.55, 96.38)
    assert m["total"]["ci95"]["acc_b"] == intervals.sum_of_shares([(4, 5), (1, 2)])
    assert m["total"]["ci95_method"]["acc_b"] == "mover-wilson-sum"
    assert cfmm_metrics(samples, items) == m  # identical on a rerun


def test_no_errors_means_no_share() -> None:
    samples, items = _example()
    right = [Sample(**{**s.__dict__, "prediction": s.target, "correct": True, "unparsed": False})
             for s in samples]
    m = cfmm_metrics(right, items)
    assert m["cf_errors_chose_basic"] is None and m["n_cf_errors_considered"] == 0
    assert m["acc_plus"] == 100 and m["phi"] is None


def _run(model: str, protocol: dict[str, Any], metrics: dict[str, Any]) -> RunResult:
    spec = {"protocol": {"prompt": "default", "strategy": "zero-shot", "answer_mode": "rank",
                         "score_by": "mean", **protocol}}
    return RunResult("cfmm", "hand", model, 14, metrics, spec)


def test_tables_in_the_paper_layout() -> None:
    samples, items = _example()
    m = cfmm_metrics(samples, items)
    runs = [_run("m", {}, m), _run("m", {"strategy": "one-shot"}, m),
            _run("m", {"strategy": "one-shot-cot"}, m),
            _run("m", {"answer_mode": "generate"}, m),
            _run("m", {"score_by": "sum"}, m)]
    table2, table3 = CfmmSuite().tables(runs)
    assert table2.columns == ("model", "prompt", "acc_b", "acc_c", "acc+", "acc_b", "acc_c",
                              "acc+")
    assert table2.groups == (("", 2), ("Count", 3), ("Color", 3))
    assert table2.text_rows()[0] == ("m", "0-shot", "80.00", "40.00", "20.00", "50.00", "0.00",
                                     "0.00")
    assert [r[1] for r in table2.rows] == ["0-shot", "1-shot", "1-shot CoT", "0-shot (generate)",
                                           "0-shot (rank by sum)"]
    assert "count 5, color 2" in table2.notes[0]
    assert table3.groups == (("", 2), ("Total score", 3), ("Observation 1", 2))
    assert table3.text_rows()[0] == ("m", "0-shot", "130.00", "40.00", "20.00", "-0.300", "33.3")
    assert "2 categories present (max 200 each" in table3.notes[0]
    md = table3.to_markdown()
    # MOVER intervals of the totals are not centred on them: shown by their ends
    assert (r"| m | 0-shot | 130.00 \[71.30, 173.73\] | 40.00 \[11.76, 115.42\] | "
            r"20.00 \[3.62, 98.27\] | -0.300 | 33.3 |") in md


def test_table_marks_a_category_a_run_lacks() -> None:
    samples, items = _example()
    full = cfmm_metrics(samples, items)
    only_count = cfmm_metrics([s for s in samples if s.group == "count"], items)
    table2, table3 = CfmmSuite().tables([_run("a", {}, full), _run("b", {}, only_count)])
    assert table2.rows[1][-3:] == ("–", "–", "–")
    assert table3.text_rows()[1][2:5] == ("80.00", "40.00", "20.00")

