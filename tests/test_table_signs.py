"""One sign convention everywhere: tables show Δ = counterfactual − original (a drop is
negative, as the C-VQA paper prints it); results.json keeps drop = original − counterfactual."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from util import page_data

from whatifbench.cli.main import main
from whatifbench.report.table import fmt_delta


@pytest.mark.parametrize(("change", "shown"), [(-12.44, "(-12.4)"), (3.0, "(+3.0)"),
                                                (0.0, "(+0.0)"), (-0.04, "(+0.0)"),
                                                (None, "")])
def test_fmt_delta_always_shows_the_sign(change: float | None, shown: str) -> None:
    assert fmt_delta(change) == shown


def test_terminal_markdown_and_html_show_the_change(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--model", "builtin:ignore-premise", "--limit", "48", "--out", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    assert m["drop"] > 0  # accuracy fell: results.json's drop is positive
    assert m["drop"] == pytest.approx(m["original_accuracy"] - m["counterfactual_accuracy"],
                                      abs=0.01)
    cell = f"{m['counterfactual_accuracy']:.1f} ({-m['drop']:+.1f}"
    assert cell.split("(")[1].startswith("-")
    markdown = (out / "report.md").read_text()
    for shown in (text, markdown):
        assert "cf (Δ)" in shown and "(drop)" not in shown
        # the cell: "8.0 (-92.0*)" in the terminal, "8.0 ±3.1 (-92.0*)" in Markdown
        value, change = cell.split(" ")
        assert re.search(re.escape(value) + r"( ±[0-9.]+| \\?\[[0-9.]+, [0-9.]+\\?\])? "
                         + re.escape(change) + r"(\\?\*)?\)", shown)  # Markdown escapes the star
        assert "Δ = counterfactual − original" in shown
    assert not re.search(r"drop = original − counterfactual\.", text)
    page = html.unescape((out / "report.html").read_text())
    assert "(drop)" not in page
    [table] = page_data(page)["datasets"][0]["tables"]  # the explorer: cells as numbers
    assert "cf (Δ)" in table["columns"]
    assert any("Δ = counterfactual − original" in note for note in table["notes"])
    overall = table["rows"][0][table["columns"].index("cf (Δ)", len(table["columns"]) - 4)]
    assert overall["v"] == m["counterfactual_accuracy"] and overall["dv"] == -m["drop"]
