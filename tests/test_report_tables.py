"""Tables as data: cells with intervals and counts, terminal width, CSV, LaTeX, row labels."""

from __future__ import annotations

import csv
import io

import pytest

from whatifbench.errors import WhatifError
from whatifbench.report.labels import run_labels
from whatifbench.report.table import Cell, Table
from whatifbench.report.table_export import latex_escape, to_csv, to_latex
from whatifbench.runner.naming import named_models, split_model_name
from whatifbench.runner.results import RunResult


def _table(ns: tuple[int, int, int, int] = (50, 50, 50, 50)) -> Table:
    rows = (("model_a", Cell(62.14, ci=(59.8, 64.4), n=ns[0]),
             Cell(48.0, ci=(45.0, 51.0), n=ns[1], delta=-14.14, delta_ci=(-17.0, -11.0),
                  p=0.0001), "0.0"),
            ("b&c", Cell(30.0, ci=(28.0, 32.0), n=ns[2]),
             Cell(31.0, ci=(29.0, 33.0), n=ns[3], delta=1.0, delta_ci=(-1.0, 3.0), p=0.4),
             "2.5"))
    return Table("T_1", ("model", "orig", "cf (Δ)", "unparsed %"), rows,
                 (("", 1), ("Group #1", 2), ("", 1)), ("a note",), unit="pairs")


def test_cells_show_interval_change_sign_and_mark() -> None:
    cell = Cell(48.0, ci=(45.0, 51.0), delta=-14.14, p=0.001)
    assert cell.render() == "48.0 (-14.1*)"
    assert cell.render(pm=True) == "48.0 ±3.0 (-14.1*)"
    assert Cell(31.0, delta=-0.04, p=0.9).render() == "31.0 (+0.0)"  # never "-0.0"
    assert Cell(100.0, n=1).render(n=True) == "100.0 n=1"
    assert Cell(None).render(pm=True) == "–"


def test_n_once_per_table_per_span_or_per_cell() -> None:
    uniform = _table()
    assert uniform.headers()[2][-1] == "n = 50 pairs per value."
    assert "n=" not in uniform.to_text()
    two = Table("t", ("model", "a", "b"), (("m", Cell(1.0, n=3), Cell(2.0, n=7)),
                                           ("k", Cell(1.0, n=3), Cell(2.0, n=7))))
    spans, names, _ = two.headers()
    assert names == ["model", "a (n=3)", "b (n=7)"]
    grouped = Table("t", ("model", "a", "b", "c"),
                    (("m", Cell(1.0, n=3), Cell(2.0, n=3), Cell(5.0, n=9)),),
                    (("", 1), ("G", 2), ("H", 1)))
    spans, names, _ = grouped.headers()
    assert spans == [("", 1), ("G (n=3)", 2), ("H (n=9)", 1)] and names[1] == "a"
    varying = _table((50, 50, 1, 1))
    assert varying.text_rows()[1][1] == "30.0 n=1" and varying.text_rows()[0][1] == "62.1 n=50"


def test_terminal_tables_split_by_column_groups_to_fit_the_width() -> None:
    rows = tuple((f"model-{k}", *(Cell(10.0 * j + k, delta=-1.0) for j in range(12)))
                 for k in range(3))
    spans = (("", 1), *((f"group {j}", 2) for j in range(6)))
    table = Table("wide", ("model", *(["orig", "cf (Δ)"] * 6)), rows, spans)
    whole = table.to_text()
    assert max(len(line) for line in whole.splitlines()) > 100
    split = table.to_text(width=60)
    lines = split.splitlines()
    assert max(len(line) for line in lines) <= 60
    for j in range(6):
        assert f"group {j}" in split
    blocks = sum(line.startswith("model ") for line in lines)
    assert blocks >= 3 and split.count("model-0") == blocks  # the row names start every block


def test_csv_keeps_numbers_intervals_counts_and_p_values() -> None:
    table = _table((50, 50, 1, 1))
    rows = list(csv.DictReader(io.StringIO(to_csv(table))))
    first = rows[0]
    assert first["model"] == "model_a"
    assert float(first["Group #1 orig"]) == 62.14
    assert float(first["Group #1 orig ci_low"]) == 59.8
    assert float(first["Group #1 cf (Δ) Δ"]) == -14.14
    assert float(first["Group #1 cf (Δ) Δ ci_high"]) == -11.0
    assert float(first["Group #1 cf (Δ) Δ p"]) == 0.0001
    assert rows[1]["Group #1 orig n"] == "1" and rows[1]["unparsed %"] == "2.5"


def test_latex_in_the_paper_layout_is_escaped() -> None:
    tex = to_latex(_table())
    assert r"\multicolumn{2}{c}{Group \#1}" in tex and r"\cmidrule(lr){2-3}" in tex
    assert r"model\_a" in tex and r"b\&c" in tex and r"\caption{T\_1}" in tex
    assert r"62.1{\scriptsize$\pm$2.3}" in tex
    assert "($-14.1^{*}$)" in tex and "($+1.0$)" in tex
    assert r"cf ($\Delta$)" in tex and r"{\footnotesize a note n = 50 pairs per value.}" in tex
    assert latex_escape(r"50% of $x_1 {a}\ ~^") == (
        r"50\% of \$x\_1 \{a\}\textbackslash{} \textasciitilde{}\textasciicircum{}")


def _run(model: str, protocol: dict, name: str | None = None) -> RunResult:
    spec = {"protocol": {"strategy": "zero-shot", "parser": "default", **protocol},
            "backend": {"spec": model, "args": {}}, "selection": {"limit": None}}
    if name:
        spec["model_name"] = name
    return RunResult("cvqa-synthetic", "d", model, 2, {}, spec)


def test_row_labels_name_the_facts_that_differ() -> None:
    runs = [_run("builtin:random", {}), _run("builtin:random", {"strategy": "cot"}),
            _run("builtin:random", {"parser": "paper"})]
    assert run_labels(runs) == ["builtin:random [strategy=zero-shot, parser=default]",
                                "builtin:random [strategy=cot, parser=default]",
                                "builtin:random [strategy=zero-shot, parser=paper]"]
    assert run_labels(runs, skip=("strategy",))[1] == "builtin:random [parser=default]"
    assert run_labels([_run("hf:/m/llava", {}, "llava"), _run("builtin:constant", {})]) == [
        "llava", "builtin:constant"]
    same = [_run("hf:/a", {}, "x"), _run("hf:/b", {}, "x")]
    assert run_labels(same) == ["x [spec=hf:/a]", "x [spec=hf:/b]"]
    assert run_labels([_run("m", {}), _run("m", {})]) == ["m #1", "m #2"]


def test_model_display_names() -> None:
    assert split_model_name("llava=hf:/models/llava") == ("llava", "hf:/models/llava")
    assert split_model_name("hf:/models/a=b") == (None, "hf:/models/a=b")
    assert split_model_name("builtin:random") == (None, "builtin:random")
    with pytest.raises(WhatifError, match="NAME=SPEC"):
        split_model_name("=builtin:random")
    with pytest.raises(WhatifError, match="named 'x'"):
        named_models(["x=builtin:random", "x=builtin:constant"])
