"""Programs with overflowing numbers and programs that break a tool: each is that item's recorded
outcome, the run finishes and writes its outputs, a rerun replays the cached program the same way
(issue 23, item 1)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from program_util import program_rules
from util import page_data

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import lookup

pytestmark = pytest.mark.timeout(300)

NINES = "9" * 400
VIPER = {  # group → program
    "abs_counting_1": "```python\ndef execute_command(image):\n"
                      "    return image.crop(10**400, 0, 1, 1)\n```",
    "abs_counting_2": "```python\ndef execute_command(image):\n"
                      "    try:\n        image.crop(-10**400, 0, 10**400, 1)\n"
                      "    except ToolError as exc:\n        return str(exc)\n```",
    "abs_counting_3": "```python\ndef execute_command(image):\n"
                      "    return 10.0 ** 400\n```",
    "abs_counting_4": f"```python\ndef execute_command(image):\n    return {NINES}\n```",
}
VISPROG = {
    "abs_counting_1": f'```\nA=EVAL(expr="{NINES}/7")\nFINAL=RESULT(var=A)\n```',
    "abs_counting_2": f"```\nA=COUNT(box={NINES})\n```",
    "abs_counting_3": f'```\nA=EVAL(expr="{NINES} * 1")\nFINAL=RESULT(var=A)\n```',
    "abs_counting_4": f'```\nA=EVAL(expr="{NINES}.5 - 1")\nFINAL=RESULT(var=A)\n```',
}


@pytest.fixture(scope="module")
def syn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """C-VQA-Synthetic, one image per template (12 items; the paper design, whose items are
    written in template order under the release's names, which the tests read)."""
    out = tmp_path_factory.mktemp("syn") / "ds"
    lookup("generator", "cvqa-synthetic").obj.generate(out, per_template=1, seed=3, workers=1,
                                                       design="paper")
    return out


def items_of(folder: Path) -> list[Item]:
    return [i for i in load_dataset(folder).items if i.group in VIPER]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main([*argv, "--no-progress"])
    return code, capsys.readouterr().err


def samples_of(out: Path) -> dict[str, dict[str, Any]]:
    lines = (out / "samples.jsonl").read_text().splitlines()
    return {s["item_id"]: s for s in map(json.loads, lines)}


def hostile_run(tmp_path: Path, syn: Path, fake_openai: Any, family: str,
                programs: dict[str, str], capsys: pytest.CaptureFixture[str]
                ) -> tuple[Path, Path, Any]:
    """Run the programs twice (the second run from the store); both runs finish."""
    items = items_of(syn)
    server = fake_openai({"rules": program_rules(items, lambda i: programs[str(i.group)])})
    argv = ["run", "--suite", str(syn), "--model", f"{family}:openai:coder", "-M",
            "detector=oracle", "--base-url", server.url, "--limit", "8"]
    first, second = tmp_path / "first", tmp_path / "second"
    code, err = run([*argv, "--out", str(first)], capsys)
    assert code == 0, err
    calls = len(server.requests())
    code, err = run([*argv, "--out", str(second)], capsys)
    assert code == 0, err
    assert len(server.requests()) == calls  # the programs and their outcomes were cached
    assert samples_of(first).keys() == samples_of(second).keys()
    for key, sample in samples_of(first).items():
        again = samples_of(second)[key]
        assert (sample["flag"], sample["trace"]) == (again["flag"], again["trace"])
    return first, second, server


def test_overflowing_viper_programs_are_failed_items(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str]) -> None:
    first, _second, _server = hostile_run(tmp_path, syn, fake_openai, "viper", VIPER, capsys)
    samples = samples_of(first)
    by_group = {s["group"]: s for s in samples.values() if s["role"] == "original"}
    crop = by_group["abs_counting_1"]
    assert crop["flag"] == "program-raise" and not crop["correct"]
    assert "crop() takes four finite numbers" in crop["trace"]["failure"]["reason"]
    assert crop["trace"]["calls"][0]["tool"] == "crop"
    caught = by_group["abs_counting_2"]  # the program catches the tool's ToolError
    assert caught["trace"]["failure"] is None
    assert "crop() takes four finite numbers" in caught["trace"]["value"]
    assert by_group["abs_counting_3"]["flag"] == "program-raise"
    assert "OverflowError" in by_group["abs_counting_3"]["trace"]["failure"]["reason"]
    big = by_group["abs_counting_4"]  # a 400-digit value is an answer (wrong), not a crash
    assert big["trace"]["failure"] is None and big["response"] == NINES
    m = json.loads((first / "results.json").read_text())["runs"][0]["metrics"]
    assert m["n_errors"] == 0 and m["program"]["n_failed"] == 4
    assert "program-raise" in (first / "report.html").read_text()


def test_overflowing_visprog_steps_are_failed_items_with_finite_traces(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str]) -> None:
    first, _second, _server = hostile_run(tmp_path, syn, fake_openai, "visprog", VISPROG,
                                          capsys)
    samples = samples_of(first)
    by_group = {s["group"]: s for s in samples.values() if s["role"] == "original"}
    division = by_group["abs_counting_1"]
    assert division["flag"] == "program-raise"
    assert "too large" in division["trace"]["failure"]["reason"]
    count = by_group["abs_counting_2"]  # the 400-digit argument: recorded as a string
    assert count["flag"] == "program-raise"
    assert count["trace"]["calls"][0]["args"]["box"] == "inf"
    whole = by_group["abs_counting_3"]  # an exact whole number is kept exact
    assert whole["trace"]["failure"] is None and whole["response"] == NINES
    assert by_group["abs_counting_4"]["flag"] == "program-raise"
    page = page_data((first / "report.html").read_text())  # strict JSON: no Infinity
    assert page["runs"][0]["samples"]


def test_an_unexpected_tool_exception_is_the_items_error(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool that breaks on what a program asks (a bug of ours, not the program's) ends that
    item as an error: the run finishes with exit 3, other items are answered, the rerun replays
    the cached program into the same error without calling the code LLM again."""
    from whatifbench.models.program.tools.oracle import OraclePerception

    real = OraclePerception.find

    def find(self: OraclePerception, ctx: Any, view: Any, name: str) -> Any:
        if name == "explode":
            raise KeyError("the scene has no such table")
        return real(self, ctx, view, name)

    monkeypatch.setattr(OraclePerception, "find", find)
    programs = {g: "```python\ndef execute_command(image):\n    return len(image.find('dot'))\n```"
                for g in VIPER}
    programs["abs_counting_1"] = ("```python\ndef execute_command(image):\n"
                                  "    return len(image.find('explode'))\n```")
    items = items_of(syn)
    server = fake_openai({"rules": program_rules(items, lambda i: programs[str(i.group)])})
    argv = ["run", "--suite", str(syn), "--model", "viper:openai:coder", "-M",
            "detector=oracle", "--base-url", server.url, "--limit", "8"]
    code, err = run([*argv, "--out", str(tmp_path / "first")], capsys)
    assert code == 3, err
    samples = samples_of(tmp_path / "first")
    broken = [s for s in samples.values() if s["group"] == "abs_counting_1"]
    assert len(broken) == 2 and all(s["flag"] == "error" for s in broken)
    assert "KeyError" in broken[0]["error"] and "find" in broken[0]["error"]
    assert all(s["error"] is None for s in samples.values() if s["group"] != "abs_counting_1")
    calls = len(server.requests())
    code, err = run([*argv, "--out", str(tmp_path / "second")], capsys)
    assert code == 3 and len(server.requests()) == calls
    assert [s["error"] for s in samples_of(tmp_path / "second").values()] == \
        [s["error"] for s in samples.values()]


def test_finite_json_writes_non_finite_numbers_as_strings() -> None:
    from whatifbench.core.fsutil import finite_json

    value = {"a": [math.inf, -math.inf, 1.5, {"b": math.nan}], "c": (1, "x"), "d": None}
    assert finite_json(value) == {"a": ["inf", "-inf", 1.5, {"b": "nan"}], "c": [1, "x"],
                                  "d": None}
