"""Bias analysis (C-VQA §4.3) on hand-made run folders with known answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from whatifbench.analysis.bias import analyze_bias
from whatifbench.cli.main import main
from whatifbench.errors import WhatifError
from whatifbench.metrics import intervals

# model A: 10 "m" pairs (originals all right, 8 counterfactuals right) → diff 20;
#          5 "f" pairs (originals all right, 2 counterfactuals right) → diff 60; gap f − m = 40.
# model B: every original right, every counterfactual wrong → both diffs 100, gap exactly 0.
PAIRS = [("A", f"m{k}.jpg", True, k < 8) for k in range(10)] + \
        [("A", f"f{k}.jpg", True, k < 2) for k in range(5)] + \
        [("B", f"m{k}.jpg", True, False) for k in range(10)] + \
        [("B", f"f{k}.jpg", True, False) for k in range(5)] + \
        [("A", "other.jpg", False, True)]


def make_run(folder: Path, with_image: bool = True,
             pairs: list[tuple[str, str, bool, bool]] = PAIRS) -> Path:
    """A run folder with samples.jsonl (and results.json pointing at a dataset's items)."""
    folder.mkdir(parents=True)
    lines, items = [], []
    for model, image, ori_ok, cf_ok in pairs:
        pair = image.removesuffix(".jpg")
        for role, ok in (("original", ori_ok), ("counterfactual", cf_ok)):
            item_id = f"{pair}-{role[:3]}"
            meta = {"image": image} if with_image else {}
            lines.append({"dataset": "d", "model": model, "item_id": item_id, "pair_id": pair,
                          "role": role, "group": "direct", "question": "q", "prompt": "q",
                          "target": "1", "response": "1", "scores": None, "prediction": "1",
                          "correct": ok, "unparsed": False, "flag": None, "error": None,
                          "parses": {}, "meta": meta})
            items.append({"id": item_id, "images": [f"images/{image}"]})
    (folder / "samples.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    data = folder / "dataset"
    data.mkdir()
    (data / "items.jsonl").write_text("".join(json.dumps(x) + "\n" for x in items))
    (folder / "results.json").write_text(json.dumps({"runs": [
        {"suite": "cvqa-real", "dataset": "d", "model": m, "n_items": 32, "metrics": {},
         "spec": {"dataset": {"path": str(data)}}} for m in "AB"]}))
    return folder


def groups_file(path: Path) -> Path:
    rows = [f"m{k}.jpg,male" for k in range(10)] + [f"f{k}.jpg,female" for k in range(5)]
    path.write_text("image,group\n" + "\n".join(rows) + "\nunused.jpg,male\n")
    return path


def test_known_diffs_gap_and_interval(tmp_path: Path) -> None:
    report = analyze_bias(make_run(tmp_path / "run"), groups_file(tmp_path / "g.csv"))
    stats = {(s.model, s.subgroup): s for s in report.subgroups}
    assert (stats["A", "male"].original_accuracy, stats["A", "male"].counterfactual_accuracy,
            stats["A", "male"].diff, stats["A", "male"].n_pairs) == (100.0, 80.0, 20.0, 10)
    assert (stats["A", "female"].diff, stats["A", "female"].n_pairs) == (60.0, 5)
    assert stats["B", "male"].diff == stats["B", "female"].diff == 100.0
    # 5 of 5 pairs right then wrong: an interval that does not collapse at the edge (a
    # percentile bootstrap gave [100, 100]); Newcombe's own figure for 5 pairs all discordant
    low, high = stats["B", "female"].diff_ci
    assert high == 100.0 and 30.0 < low < 50.0
    assert stats["B", "female"].diff_ci == intervals.paired_difference(0, 5, 0, 0)
    gaps = {g.model: g for g in report.gaps}
    assert (gaps["A"].first, gaps["A"].second, gaps["A"].gap) == ("female", "male", 40.0)
    # gaps: the MOVER difference of the two subgroups' intervals, never of zero width
    assert gaps["B"].gap == 0.0 and gaps["B"].ci[0] < 0.0 < gaps["B"].ci[1]
    fa, ma = stats["A", "female"], stats["A", "male"]
    assert gaps["A"].ci == intervals.independent_difference(fa.diff, fa.diff_ci, ma.diff,
                                                           ma.diff_ci)
    assert gaps["A"].ci[0] < 40.0 < gaps["A"].ci[1]
    assert report.interval_methods == {"diff_ci": "newcombe-paired", "ci": "mover-difference"}
    assert report.ungrouped_pairs == 1 and report.unused_images == 1
    again = analyze_bias(tmp_path / "run", tmp_path / "g.csv")
    assert again == report


def test_ungrouped_pairs_count_once_and_tiny_subgroups_are_flagged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = [*PAIRS, ("B", "other.jpg", True, False), ("A", "solo.jpg", True, True),
             ("B", "solo.jpg", True, False)]
    groups = groups_file(tmp_path / "g.csv")
    groups.write_text(groups.read_text() + "solo.jpg,solo\n")
    report = analyze_bias(make_run(tmp_path / "run", pairs=pairs), groups)
    assert report.ungrouped_pairs == 1  # other.jpg, answered by both models
    stats = {(s.model, s.subgroup): s for s in report.subgroups}
    # one pair still has an honest (wide) interval
    assert stats["A", "solo"].n_pairs == 1 and stats["A", "solo"].diff_ci == (-79.35, 79.35)
    assert all(g.ci is not None for g in report.gaps if "solo" in (g.first, g.second))
    assert any("subgroup 'solo' has only 1 pair(s); its interval is wide" in w
               for w in report.warnings)
    assert any("'female' has only 5 pair(s); its interval is wide" in w
               for w in report.warnings)
    assert main(["analyze", "bias", str(tmp_path / "run"), "--groups", str(groups)]) == 0
    out = capsys.readouterr().out
    assert "1 evaluated pair(s) have no group" in out and "! A on d: subgroup 'solo'" in out


def test_image_names_from_the_dataset_when_samples_lack_them(tmp_path: Path) -> None:
    report = analyze_bias(make_run(tmp_path / "run", with_image=False),
                          groups_file(tmp_path / "g.csv"))
    assert {(s.model, s.subgroup): s.diff for s in report.subgroups}[("A", "female")] == 60.0


def test_cli_writes_table_json_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = make_run(tmp_path / "run")
    code = main(["analyze", "bias", str(run), "--groups", str(groups_file(tmp_path / "g.csv"))])
    out = capsys.readouterr().out
    assert code == 0 and "Δ(female) − Δ(male)" in out
    # the tables show the change Δ = cf − orig (a drop is negative); bias.json keeps diff
    assert "-40.0" in out and "-20.0" in out and "-60.0" in out and "Δ 95% CI" in out
    data = json.loads((run / "bias" / "bias.json").read_text())
    assert [g["gap"] for g in data["gaps"]] == [40.0, 0.0]
    with Image.open(run / "bias" / "bias.png") as img:
        assert img.format == "PNG" and img.width > 200


def test_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = make_run(tmp_path / "run")
    (tmp_path / "cols.csv").write_text("file,sex\na.jpg,m\n")
    assert main(["analyze", "bias", str(run), "--groups", str(tmp_path / "cols.csv")]) == 2
    assert "must have the columns image,group" in capsys.readouterr().err
    (tmp_path / "clash.csv").write_text("image,group\nm1.jpg,male\nm1.jpg,female\n")
    assert main(["analyze", "bias", str(run), "--groups", str(tmp_path / "clash.csv")]) == 2
    assert "line 3: image m1.jpg is in group 'female' here and in 'male' on line 2" in \
        capsys.readouterr().err
    (tmp_path / "none.csv").write_text("image,group\nzzz.jpg,male\n")
    with pytest.raises(WhatifError, match="No image of the run"):
        analyze_bias(run, tmp_path / "none.csv")
    assert main(["analyze", "bias", str(tmp_path), "--groups", str(tmp_path / "none.csv")]) == 2
    assert "holds no results.json" in capsys.readouterr().err
