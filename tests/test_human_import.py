"""Crowd sheets → human runs: every annotator's accuracy and Krippendorff's alpha checked against
an independent computation (the ``krippendorff`` package), clear file:line errors, skipping,
and human rows beside model rows in a merged report."""

from __future__ import annotations

import json
import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from util import make_choice_dataset, page_data, png, whatif

from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.errors import WhatifError
from whatifbench.human import api
from whatifbench.human.alpha import alpha

ANNOTATORS = ("ann1", "ann2", "ann3")
FORMS = ("{L}", "({L})", "Answer: {L}", "{L}.")


def _their_alpha(matrix: list[list[float]], level: str) -> float:
    return float(krippendorff.alpha(reliability_data=np.array(matrix, dtype=float),
                                    level_of_measurement=level))


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_alpha_equals_the_krippendorff_package(level: str) -> None:
    rng = random.Random(7)
    for trial in range(40):
        coders, units = rng.randint(2, 5), rng.randint(3, 40)
        values = rng.randint(2, 6)
        truth = [rng.randrange(values) for _ in range(units)]
        matrix = [[(t if rng.random() < 0.6 + 0.3 * (trial % 2) else rng.randrange(values))
                   if rng.random() > 0.2 else np.nan for t in truth] for _ in range(coders)]
        try:
            theirs: float | None = _their_alpha(matrix, level)
        except ValueError:  # "at least one unit with values assigned by at least two coders"
            theirs = None
        if theirs is not None and not np.isfinite(theirs):
            theirs = None  # no variation at all: undefined
        mine = alpha([[None if np.isnan(row[u]) else row[u] for row in matrix]
                      for u in range(units)], level)
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert mine == pytest.approx(theirs, abs=1e-9)


def test_alpha_is_undefined_without_pairs_or_variation() -> None:
    assert alpha([["a", None], [None, "b"]]) is None
    assert alpha([["a", "a"], ["a", "a"]]) is None
    assert alpha([[1, 2], [3, 3]], "interval") is not None


def _sheet(dataset_dir: Path, path: Path, seed: int = 0) -> list[dict[str, str]]:
    """Three annotators; each answers most items (agreeing with the target most of the time),
    in several reply formats; some items are left out."""
    dataset = load_dataset(dataset_dir)
    rng = random.Random(seed)
    rows = []
    for item in dataset.items:
        for k, who in enumerate(ANNOTATORS):
            if rng.random() < 0.15:
                continue
            good = rng.random() < (0.9, 0.7, 0.5)[k]
            index = item.target_index if good else rng.randrange(len(item.choices))
            reply = rng.choice(FORMS).format(L="ABCD"[index])
            rows.append({"item_id": item.id, "annotator": who, "answer": reply,
                         "seconds": f"{rng.uniform(2, 9):.2f}", "index": str(index)})
    lines = ["item_id,annotator,answer,seconds,worker_country"]
    lines += [f"{r['item_id']},{r['annotator']},\"{r['answer']}\",{r['seconds']},NL" for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rows


def test_three_annotator_sheet_matches_an_independent_computation(tmp_path: Path) -> None:
    ds_dir = make_choice_dataset(tmp_path / "ds", n_pairs=12)
    dataset = load_dataset(ds_dir)
    items = {i.id: i for i in dataset.items}
    rows = _sheet(ds_dir, tmp_path / "sheet.csv")
    done = api.import_sheet(dataset, tmp_path / "sheet.csv", tmp_path / "run")
    runs = {r.spec.human.annotator: r for r in done.runs}
    assert list(runs) == [*ANNOTATORS, "majority"]
    results = json.loads((tmp_path / "run" / "results.json").read_text())["runs"]
    assert [r["spec"]["model_name"] for r in results] == [
        "human: ann1", "human: ann2", "human: ann3", "human (majority)"]
    for who in ANNOTATORS:
        mine = [r for r in rows if r["annotator"] == who]
        for role, key in (("original", "original_accuracy"),
                          ("counterfactual", "counterfactual_accuracy")):
            answered = [r for r in mine if items[r["item_id"]].role == role]
            right = sum(int(r["index"]) == items[r["item_id"]].target_index for r in answered)
            assert runs[who].metrics[key] == round(100 * right / len(answered), 2)
        assert runs[who].n_items == len(mine)
        seconds = sorted(float(r["seconds"]) for r in mine)
        assert runs[who].metrics["human"]["seconds"]["median"] == pytest.approx(
            float(np.median(seconds)), abs=0.01)
    ids = list(items)
    matrix = [[next((float(r["index"]) for r in rows
                     if r["annotator"] == who and r["item_id"] == i), np.nan) for i in ids]
              for who in ANNOTATORS]
    summary = runs["majority"].metrics["human"]
    assert summary["alpha"]["nominal"]["alpha"] == pytest.approx(
        _their_alpha(matrix, "nominal"), abs=1e-4)
    for group in sorted({i.group for i in items.values()}):
        cols = [k for k, i in enumerate(ids) if items[i].group == group]
        theirs = _their_alpha([[row[k] for k in cols] for row in matrix], "nominal")
        assert summary["by_slice"]["group"][group]["nominal"]["alpha"] == pytest.approx(
            theirs, abs=1e-4)
    # the majority row: each item's most frequent answer (ties: no answer), scored as usual
    for s in runs["majority"].samples:
        votes = [int(r["index"]) for r in rows if r["item_id"] == s.item_id]
        counts = sorted(((votes.count(v), v) for v in set(votes)), reverse=True)
        tie = len(counts) > 1 and counts[0][0] == counts[1][0]
        expected = None if tie else items[s.item_id].choices[counts[0][1]]
        assert s.prediction == expected
        assert s.meta["human"]["agreement"] == pytest.approx(counts[0][0] / len(votes), abs=1e-4)


def _number_dataset(out: Path) -> Path:
    with DatasetWriter(out) as writer:
        for k in range(8):
            rel = writer.add_image(f"{k}.png", png((10 * k, 90, 30)))
            for role in ("original", "counterfactual"):
                writer.add_item(Item(
                    id=f"q{k}-{role[0]}", images=(rel,), question=f"How many cups ({role})?",
                    kind="number", target=str(k + (role == "counterfactual")),
                    pair_id=f"q{k}", role=role, group="direct"))
        writer.finish(name="numbers", suite="cvqa-real", version="test",
                      generator={"name": "hand"}, seed=0)
    return out


def test_number_answers_get_interval_alpha(tmp_path: Path) -> None:
    dataset = load_dataset(_number_dataset(tmp_path / "ds"))
    rng = random.Random(3)
    table: dict[str, list[float]] = {}
    lines = []
    for who in ANNOTATORS:
        table[who] = []
        for item in dataset.items:
            value = int(item.target) + rng.choice((0, 0, 1, 2, 4))  # counts: no negatives
            table[who].append(float(value))
            lines.append(json.dumps({"item_id": item.id, "annotator": who,
                                     "answer": f"I think {value}."}))
    (tmp_path / "sheet.jsonl").write_text("\n".join(lines) + "\n")
    done = api.import_sheet(dataset, tmp_path / "sheet.jsonl", tmp_path / "run")
    found = done.runs[-1].metrics["human"]["alpha"]
    assert "nominal" not in found
    assert found["interval"]["alpha"] == pytest.approx(
        _their_alpha([table[w] for w in ANNOTATORS], "interval"), abs=1e-4)


def test_bad_rows_are_named_with_file_and_line_or_skipped(tmp_path: Path,
                                                           whatif_home: Path) -> None:
    ds_dir = make_choice_dataset(tmp_path / "ds", n_pairs=3)
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("item_id,annotator,answer,seconds\n"
                     "p0-o,a1,B,3\n"
                     "nope,a1,B,3\n"
                     "p0-c,a1,A,\n"
                     "p0-c,a1,C,2\n"
                     "p1-o,a1,no idea,2\n"
                     "p1-c,a1,B,-4\n"
                     "p2-o,bad name!,B,1\n", encoding="utf-8")
    with pytest.raises(WhatifError) as err:
        api.import_sheet(load_dataset(ds_dir), sheet, tmp_path / "run")
    text = str(err.value)
    for line, what in ((3, "'nope' is not in the dataset"), (5, "already on line 4"),
                       (6, "cannot be read by the cvqa-synthetic parser"),
                       (7, "not a non-negative number"), (8, "not a usable name")):
        assert f"{sheet}:{line}: " in text and what in text
    assert not (tmp_path / "run").exists()
    done = whatif(["human", "import", str(ds_dir), str(sheet), "--out", str(tmp_path / "run"),
                   "--skip-invalid"], home=whatif_home)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("skipped: ") == 5
    results = json.loads((tmp_path / "run" / "results.json").read_text())["runs"]
    assert [r["n_items"] for r in results] == [2]


@pytest.mark.parametrize("line, what", [
    ('{"item_id": "p0-o", "annotator": "a1", "answer": "A\\ud800"}', "surrogate"),
    ('{"item_id": "p0-o", "annotator": "a1", "answer": ' + "[" * 5000 + "]" * 5000 + "}",
     "not valid JSON"),
    ("not json", "not valid JSON"),
])
def test_a_jsonl_sheet_line_that_cannot_be_stored_is_named(tmp_path: Path, line: str,
                                                           what: str) -> None:
    """A JSONL sheet line with a lone surrogate or nested too deeply is one clear error naming
    the file and line (not a crash when the answer is stored), and nothing is written."""
    ds_dir = make_choice_dataset(tmp_path / "ds", n_pairs=2)
    sheet = tmp_path / "sheet.jsonl"
    sheet.write_text('{"item_id": "p0-c", "annotator": "a1", "answer": "B"}\n' + line + "\n",
                     encoding="utf-8")
    with pytest.raises(WhatifError) as err:
        api.import_sheet(load_dataset(ds_dir), sheet, tmp_path / "run")
    assert f"{sheet}:2 " in str(err.value) and what in str(err.value)
    assert not (tmp_path / "run").exists()


def test_report_merges_human_rows_after_the_models(tmp_path: Path, whatif_home: Path) -> None:
    ds_dir = make_choice_dataset(tmp_path / "ds", n_pairs=8)
    _sheet(ds_dir, tmp_path / "sheet.csv", seed=1)
    for args in (["run", "--suite", str(ds_dir), "--model", "builtin:random", "--model",
                  "builtin:ignore-premise", "--out", str(tmp_path / "models"), "--no-progress"],
                 ["human", "import", str(ds_dir), str(tmp_path / "sheet.csv"), "--out",
                  str(tmp_path / "people")],
                 ["report", str(tmp_path / "people"), str(tmp_path / "models"), "--out",
                  str(tmp_path / "merged")]):
        done = whatif(args, home=whatif_home)
        assert done.returncode == 0, done.stderr
    md = (tmp_path / "merged" / "report.md").read_text()
    first = next(b for b in md.split("\n\n") if b.startswith("| model"))
    order = [line.split("|")[1].strip() for line in first.splitlines() if line.startswith("| ")]
    rows = [r for r in order if r.startswith(("builtin", "human"))]
    assert rows[:2] == ["builtin:random", "builtin:ignore-premise"]
    assert sorted(rows[2:5]) == ["human: ann1", "human: ann2", "human: ann3"]
    assert rows[5:] == ["human (majority)"]
    assert "people's answers (whatif human)" in md
    for title in ("Human baseline: handmade", "Agreement between annotators: handmade",
                  "Best model vs humans: handmade"):
        assert title in md
    assert (tmp_path / "merged" / "tables").is_dir()
    data = page_data((tmp_path / "merged" / "report.html").read_text())
    ranked = data["datasets"][0]["ranking"]["rows"]
    assert [bool(r.get("human")) for r in ranked] == [False] * 2 + [True] * 4
    labels = [data["runs"][k]["label"] for k in data["datasets"][0]["runs"]]
    assert labels[:2] == ["builtin:random", "builtin:ignore-premise"]  # humans after the models


def _people_sheet(ds_dir: Path, path: Path, wrong: dict[str, set[int]]) -> None:
    """Each annotator's answer to every item: right except on the item numbers in
    ``wrong[annotator]``, where they take the next option."""
    items = load_dataset(ds_dir).items
    lines = ["item_id,annotator,answer"]
    for who, misses in wrong.items():
        for k, item in enumerate(items):
            lines.append(f"{item.id},{who},{'ABCD'[(item.target_index + (k in misses)) % 4]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_two_annotators_are_each_shown_with_their_agreement_and_no_majority(
        tmp_path: Path) -> None:
    """With two people every disagreement was a tie, counted as no answer: a 'majority' of
    56.7 while the two scored 83.3 and 73.3. Now each person is the people's score."""
    from whatifbench import api as whatif_api
    from whatifbench.report.human import human_tables
    from whatifbench.runner.evaluate import RunOptions

    ds_dir = make_choice_dataset(tmp_path / "ds", n_pairs=15)
    dataset = load_dataset(ds_dir)
    # 30 items: one person wrong on 5 (83.3 %), the other on 8 (73.3 %), 3 misses shared
    _people_sheet(ds_dir, tmp_path / "sheet.csv",
                  {"ann1": {0, 7, 12, 20, 25}, "ann2": {0, 7, 12, 3, 9, 15, 21, 28}})
    people = api.import_sheet(dataset, tmp_path / "sheet.csv", tmp_path / "people").runs
    assert [r.spec.model_name for r in people] == ["human: ann1", "human: ann2"]
    for run, right in zip(people, (25, 22), strict=True):
        hits = sum(bool(s.correct) for s in run.samples)
        assert hits == right and round(100 * hits / 30, 1) in (83.3, 73.3)
    group = people[0].metrics["human"]["group"]
    assert group["annotators"] == ["ann1", "ann2"] and group["item_agreement"]["items"] == 30
    models = whatif_api.run_all([dataset], ["builtin:constant"],
                                options=RunOptions(progress=False))
    tables = human_tables([*models, *people])
    titles = [t.title for t in tables]
    assert any(t.startswith("Agreement between annotators") for t in titles)
    text = "\n".join(t.to_text(200) for t in tables)
    assert "human (majority)" not in text
    baseline = tables[0]
    assert [r[0] for r in baseline.rows] == ["human: ann1", "human: ann2"]
    assert baseline.rows[0][-1] == baseline.rows[1][-1] != "–"  # their alpha, on both rows
    versus = next(t for t in tables if t.title.startswith("Best model vs humans"))
    assert [str(r[0]).split(" vs ")[1] for r in versus.rows] == ["human: ann1", "human: ann2"]


def test_a_majority_needs_three_answers_and_ties_are_left_out_not_failures(
        tmp_path: Path) -> None:
    ds_dir = make_choice_dataset(tmp_path / "ds", n_pairs=6)
    dataset = load_dataset(ds_dir)
    # four people: item 0 splits 2-2 (a tie), every other item has a clear majority
    _people_sheet(ds_dir, tmp_path / "sheet.csv",
                  {"a": {0}, "b": {0}, "c": set(), "d": {5}})
    runs = api.import_sheet(dataset, tmp_path / "sheet.csv", tmp_path / "people").runs
    majority = runs[-1]
    assert majority.spec.model_name == "human (majority)"
    assert majority.metrics["human"]["ties"] == 1
    assert majority.n_items == 11  # the tie is left out, not scored as an unparsed answer
    assert not any(s.unparsed for s in majority.samples)
    assert all(s.correct for s in majority.samples)
