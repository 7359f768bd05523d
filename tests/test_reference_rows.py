"""Reference rows in every results table: chance (the expected score of guessing, computed by
the suite's own metrics) and the audit's blind accuracy (read from its cache, placed in the
columns that are exactly one of its slices), in the tables, report.md and results."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from util import png

from whatifbench import api
from whatifbench.analysis.audit.audit import audit_dataset
from whatifbench.analysis.audit.chance import chance_accuracy, chance_per_item
from whatifbench.analysis.audit.store import save_audit
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.report.policies import EYES, FLIP, JOINT
from whatifbench.report.policies import NOTE as POLICY_NOTE
from whatifbench.report.reference import BLIND, CHANCE, references
from whatifbench.report.render import tables_for
from whatifbench.report.table import Cell, Table
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.results import RunResult


def mixed_dataset(out: Path) -> Path:
    """C-VQA-Synthetic-style pairs whose questions have 2, 3 or 4 options (so chance differs by
    column), in two groups."""
    with DatasetWriter(out) as writer:
        for k in range(12):
            rel = writer.add_image(f"{k}.png", png((20 * k, 90, 90)))
            for role, size in (("original", 2 + k % 3), ("counterfactual", 4 - k % 2)):
                choices = tuple(str(v) for v in range(10 + k, 10 + k + size))
                writer.add_item(Item(
                    id=f"p{k}-{role[0]}", images=(rel,), question=f"How many ({role})?",
                    kind="choice", target=choices[k % size], choices=choices, pair_id=f"p{k}",
                    role=role, group=f"abs_counting_{1 + k % 2}", meta={"template": 1 + k % 2}))
        writer.finish(name="mixed", suite="cvqa-synthetic", version="t", generator={"name": "h"},
                      seed=0)
    return out


def open_dataset(out: Path) -> Path:
    """C-VQA-Real-style pairs: number and yes/no questions (chance: the most common answer)."""
    with DatasetWriter(out) as writer:
        answers = ["2", "2", "3", "2", "5", "1", "2", "4"]
        for k, answer in enumerate(answers):
            rel = writer.add_image(f"{k}.png", png((30 * k, 40, 40)))
            boolean = k % 4 == 3
            for role in ("original", "counterfactual"):
                target = ("yes" if role == "original" else "no") if boolean else answer
                writer.add_item(Item(
                    id=f"q{k}-{role[0]}", images=(rel,), question=f"How many cats? ({role})",
                    kind="yes-no" if boolean else "number", target=target, pair_id=f"q{k}",
                    role=role, group="boolean" if boolean else "direct"))
        writer.finish(name="open", suite="cvqa-real", version="t", generator={"name": "h"},
                      seed=0)
    return out


def _runs(ds: Path, models: tuple[str, ...] = ("builtin:random", "builtin:constant")
          ) -> list[RunResult]:
    return api.run_all([ds], list(models), options=RunOptions(progress=False))


def _row(table: Table, label: str) -> tuple[str | Cell, ...]:
    found = [r for r in table.rows if r[0] == label]
    assert len(found) == 1, [r[0] for r in table.rows]
    return found[0]


def _value(cell: str | Cell) -> float | None:
    return cell.value if isinstance(cell, Cell) else None


def test_the_chance_row_is_the_expected_score_of_guessing_in_every_column(tmp_path: Path
                                                                          ) -> None:
    ds = mixed_dataset(tmp_path / "ds")
    items = list(load_dataset(ds).items)
    table = tables_for(_runs(ds))[0]
    assert table.reference_rows == 3 and [r[0] for r in table.rows[-3:]] == [CHANCE, EYES, FLIP]
    chance = dict(zip(table.flat_columns(annotated=False), _row(table, CHANCE), strict=True))
    per_item = dict(zip((i.id for i in items), chance_per_item(items), strict=True))

    def mean(ids: list[str]) -> float:
        return 100 * sum(per_item[i] for i in ids) / len(ids)

    for group in ("abs_counting_1", "abs_counting_2"):  # columns named as the groups
        for role, column in (("original", "orig"), ("counterfactual", "cf (Δ)")):
            ids = [i.id for i in items if i.group == group and i.role == role]
            assert _value(chance[f"{group} {column}"]) == pytest.approx(mean(ids), abs=0.01)
    assert _value(chance["all orig"]) == pytest.approx(
        mean([i.id for i in items if i.role == "original"]), abs=0.01)
    # pair accuracy: both guesses right, 1 / (K_original × K_counterfactual) per pair
    pairs = [1 / (len(o.choices) * len(c.choices)) for o, c in zip(items[::2], items[1::2],
                                                                     strict=True)]
    assert _value(chance["pair acc"]) == pytest.approx(100 * sum(pairs) / len(pairs), abs=0.01)
    all_cf = chance["all cf (Δ)"]
    assert isinstance(all_cf, Cell) and all_cf.delta == pytest.approx(
        mean([i.id for i in items if i.role == "counterfactual"])
        - mean([i.id for i in items if i.role == "original"]), abs=0.01)
    assert all_cf.ci is None and all_cf.p is None  # an expectation has no sampling interval
    assert chance["unparsed %"] == "–"  # no replies: over nothing
    overall = 100 * chance_accuracy(items)  # analysis.audit.chance: one definition
    assert (_value(chance["all orig"]) + _value(chance["all cf (Δ)"])) / 2 == pytest.approx(
        overall, abs=0.01)
    assert any("chance = the expected score of guessing" in n for n in table.notes)
    # the explorer's ranking (counterfactual accuracy) gets the same expectation
    headline = references(_runs(ds)).headline
    assert headline == pytest.approx(mean([i.id for i in items if i.role == "counterfactual"]),
                                     abs=0.01)


def test_open_answers_guess_the_most_common_answer(tmp_path: Path) -> None:
    ds = open_dataset(tmp_path / "ds")
    items = list(load_dataset(ds).items)
    tables = tables_for(_runs(ds))
    main, parsers = tables[0], tables[1]
    chance = dict(zip(main.flat_columns(annotated=False), _row(main, CHANCE), strict=True))
    numbers = [i for i in items if i.kind == "number"]
    share = sum(i.target == "2" for i in numbers) / len(numbers)  # "2" is the most common
    assert _value(chance["Numerical Direct orig"]) == pytest.approx(100 * share, abs=0.01)
    assert _value(chance["Boolean orig"]) == 50.0
    assert (_value(chance["all orig"]) + _value(chance["all cf (Δ)"])) / 2 == pytest.approx(
        100 * chance_accuracy(items), abs=0.01)
    assert parsers.reference_rows == 0  # a table of text alone gets no reference row


def test_the_blind_row_shows_the_audit_where_a_column_is_exactly_one_of_its_slices(
        tmp_path: Path) -> None:
    ds = mixed_dataset(tmp_path / "ds")
    runs = _runs(ds)
    without = tables_for(runs)[0]
    assert any("run 'whatif audit " in n and str(ds) in n for n in without.notes)
    assert BLIND not in [r[0] for r in without.rows]
    save_audit(load_dataset(ds).items_sha256, {
        "dataset": {"name": "mixed"},
        "blind": {"accuracy": 41.7, "chance": 31.9, "n": 24, "interval": [24.0, 61.0]},
        "slices": [
            {"key": "role", "value": "counterfactual", "n": 12, "blind": 58.3, "chance": 29.2,
             "interval": [32.0, 81.0], "flagged": False},
            {"key": "role", "value": "original", "n": 12, "blind": 25.0, "chance": 34.7,
             "interval": [9.0, 53.0], "flagged": False},
            {"key": "template", "value": "1", "n": 12, "blind": 50.0, "chance": 33.0,
             "interval": [25.0, 75.0], "flagged": False}],
        "pairs": {}})
    table = tables_for(runs)[0]
    assert table.reference_rows == 4
    assert [r[0] for r in table.rows[-4:]] == [CHANCE, BLIND, EYES, FLIP]
    blind = dict(zip(table.flat_columns(annotated=False), _row(table, BLIND), strict=True))
    assert _value(blind["all orig"]) == 25.0 and _value(blind["all cf (Δ)"]) == 58.3
    cell = blind["all cf (Δ)"]
    assert isinstance(cell, Cell) and cell.ci == (32.0, 81.0) and cell.n == 12
    # the template slice mixes both roles: no column is exactly it
    shown = {k for k, v in blind.items() if isinstance(v, Cell)}
    assert shown == {"all orig", "all cf (Δ)"}
    assert any("41.7 % over all 24 items" in n for n in table.notes)
    md = api.tables_for(runs)[0].to_markdown()
    # 58.3 in [32.0, 81.0] is not centred: the cell shows the interval's ends
    assert f"| {BLIND} |" in md and r"| 58.3 \[32.0, 81.0\] |" in md


def test_cello_overall_and_task_columns_take_their_slices(tmp_path: Path) -> None:
    from cello_fixtures import write_input

    from whatifbench.suites.cello.build import build_cello

    sg, data, images = write_input(tmp_path / "in")
    build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=3, seed=0,
                design="paper")  # the five fixture graphs have no contrasting images
    ds = load_dataset(tmp_path / "ds")
    items = list(ds.items)
    tasks = sorted({str(i.meta["task_type"]) for i in items})
    save_audit(ds.items_sha256, {
        "dataset": {}, "blind": {"accuracy": 70.0, "chance": 40.0, "n": len(items),
                                 "interval": [60.0, 80.0]},
        "slices": [{"key": "task_type", "value": t, "n": 3, "blind": 10.0 + k, "chance": 50.0,
                    "interval": [1.0, 40.0], "flagged": False} for k, t in enumerate(tasks)],
        "pairs": {}})
    rung, by_task = tables_for(_runs(tmp_path / "ds"))[:2]
    assert _value(_row(rung, BLIND)[1]) == 70.0  # overall = the whole dataset
    chance = _row(rung, CHANCE)[1]
    assert _value(chance) == pytest.approx(100 * chance_accuracy(items), abs=0.01)
    blind = _row(by_task, BLIND)
    from whatifbench.suites.cello.causal.tasks import TASKS

    for k, task in enumerate(TASKS):
        present = [i for i in items if i.meta.get("task_type") == task]
        expected = 10.0 + tasks.index(task) if present else None
        assert _value(blind[1 + k]) == expected


def test_a_moved_dataset_is_found_through_roots_or_named(tmp_path: Path) -> None:
    ds = mixed_dataset(tmp_path / "ds")
    runs = _runs(ds)
    moved = tmp_path / "elsewhere" / "ds"
    moved.parent.mkdir()
    shutil.move(str(ds), str(moved))
    lost = tables_for(runs)[0]
    assert lost.reference_rows == 0
    assert any(n.startswith("No reference rows: The dataset mixed is not at") and
               "--dataset-root" in n for n in lost.notes)
    found = tables_for(runs, roots=(moved.parent,))[0]
    assert found.reference_rows == 3 and _row(found, CHANCE)


def test_report_md_shows_the_reference_rows(tmp_path: Path) -> None:
    ds = mixed_dataset(tmp_path / "ds")
    paths = api.write_outputs(tmp_path / "run", _runs(ds))
    md = paths["report.md"].read_text()
    assert f"| {CHANCE} |" in md
    assert "No blind row: this dataset has not been audited" in md
    csv = sorted((tmp_path / "run" / "tables").glob("01-*.csv"))[0].read_text()
    assert CHANCE in csv


def test_latex_sets_the_reference_rows_apart(tmp_path: Path) -> None:
    from whatifbench.report.table_export import to_latex

    table = tables_for(_runs(mixed_dataset(tmp_path / "ds")))[0]
    lines = to_latex(table).splitlines()
    chance = next(k for k, line in enumerate(lines) if line.startswith(CHANCE))
    assert lines[chance - 1] == r"\midrule"
    assert sum(line == r"\midrule" for line in lines) == 2


def test_a_shortcut_free_cello_gets_its_exact_chance_row(tmp_path: Path) -> None:
    """Contrast sets of two and four questions beside single ones gave "too many combinations
    to enumerate" while the audit computed chance (issue 34): the pseudo-runs by shape of unit
    are exact, and the headline equals the audit's chance."""
    from cello_world import write_world

    from whatifbench.core.suite import suite_for
    from whatifbench.report.reference_runs import chance_tables, guessing_runs
    from whatifbench.suites.cello.build import build_cello

    sg, data, images = write_world(tmp_path / "in", 300)
    build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=20, seed=0,
                design="shortcut-free")
    items = list(load_dataset(tmp_path / "ds").items)
    sizes = {sum(1 for i in items if i.unit == u) for u in {i.unit for i in items}}
    assert len(sizes) > 1  # units of several sizes: no single pattern of guesses
    runs = guessing_runs(suite_for("cello"), items)
    assert runs is not None and sum(w for w, _ in runs) == pytest.approx(1.0)
    found = chance_tables(suite_for("cello"), items, "cello", CHANCE)
    assert found is not None
    assert found[1] == pytest.approx(100 * chance_accuracy(items), abs=0.01)
    rung = tables_for(_runs(tmp_path / "ds"))[0]
    assert CHANCE in [r[0] for r in rung.rows]
    assert not any("No chance row" in n for n in rung.notes)


def test_reference_rows_show_no_unparsed_share(tmp_path: Path) -> None:
    """A chance or blind row made no replies, so its unparsed share is over nothing: "–", not
    0.0 (issue 39: "chance and blind rows print unparsed 0.0 over nothing")."""
    runs = _runs(mixed_dataset(tmp_path / "ds"))
    table = tables_for(runs)[0]
    column = table.columns.index("unparsed %")
    chance = next(r for r in table.rows if r[0] == CHANCE)
    assert chance[column] == "–"
    assert all(r[column] != "–" for r in table.rows[:len(runs)])  # the runs' own shares stay


def test_paired_tables_show_the_eyes_references_and_the_joint_blind_guesser(tmp_path: Path
                                                                            ) -> None:
    """Issue 41: a paired suite's tables show what believing one's eyes and flipping them
    score (exactly what builtin:ignore-premise and builtin:flip-eyes score as runs), and, once
    audited, the pair-aware blind guesser's row."""
    ds = mixed_dataset(tmp_path / "ds")
    runs = _runs(ds, ("builtin:ignore-premise", "builtin:flip-eyes"))
    table = tables_for(runs)[0]
    for label, run in ((EYES, 0), (FLIP, 1)):
        ran = [c for c in table.rows[run][1:] if isinstance(c, Cell)]
        shown = [c for c in _row(table, label)[1:] if isinstance(c, Cell)]
        assert [c.value for c in shown] == [c.value for c in ran], label
    assert JOINT not in [r[0] for r in table.rows]
    audit_dataset(ds)
    joint = _row(tables_for(runs)[0], JOINT)
    assert any(isinstance(c, Cell) for c in joint)
    assert any(POLICY_NOTE == n for n in table.notes)
