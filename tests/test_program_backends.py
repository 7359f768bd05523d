"""ViperGPT- and VisProg-style backends end to end: a scripted code LLM on a local
OpenAI-compatible server writes the programs; oracle perception, caching, traces, tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from program_util import oracle_program, oracle_steps, program_rules
from util import page_data, run_outputs

from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import lookup

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def syn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """C-VQA-Synthetic, two images per template (24 items)."""
    out = tmp_path_factory.mktemp("syn") / "ds"
    lookup("generator", "cvqa-synthetic").obj.generate(out, per_template=2, seed=3, workers=1)
    return out


@pytest.fixture(scope="module")
def syn_1to4(syn: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The items of templates 1-4 of ``syn`` (16 items), as a dataset of their own."""
    source = load_dataset(syn)
    out = tmp_path_factory.mktemp("syn4") / "ds"
    keep = [i for i in source.items if i.group in HOSTILE]
    with DatasetWriter(out) as writer:
        for rel in sorted({img for item in keep for img in item.images}):
            writer.add_image(rel.removeprefix("images/"), (syn / rel).read_bytes())
        writer.add_items(keep)
        card = source.card
        writer.finish(name=card.name, suite=card.suite, version=card.version,
                      generator=card.generator, seed=card.seed)
    return out


def items_of(folder: Path) -> list[Item]:
    return list(load_dataset(folder).items)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*argv, "--no-progress"] if argv[0] == "run" else argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def samples_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def viper_args(url: str, model: str = "viper:openai:coder") -> list[str]:
    return ["--model", model, "-M", "detector=oracle", "--base-url", url]


def test_viper_oracle_programs_score_100_on_every_template(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"rules": program_rules(items_of(syn), oracle_program)})
    out = tmp_path / "run"
    code, text, err = run_cli(["run", "--suite", str(syn), *viper_args(server.url),
                               "--out", str(out)], capsys)
    assert code == 0, err
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    assert m["original_accuracy"] == m["counterfactual_accuracy"] == 100.0
    assert all(g["original_accuracy"] == g["counterfactual_accuracy"] == 100.0
               for g in m["by_group"].values()) and len(m["by_group"]) == 6
    assert m["program"]["failed"] == 0.0 and m["program"]["n_items"] == 24
    assert "ViperGPT with different code LLMs (Table 6 layout)" in text
    assert "Program outcomes" in text
    samples = samples_of(out)
    assert len(samples) == 24
    for s in samples:
        trace = s["trace"]
        assert trace["backend"] == "viper" and trace["failure"] is None
        assert "def execute_command(image, options):" in trace["program"]
        assert {c["tool"] for c in trace["calls"]} >= {"find"}
        assert trace["value"] == int(s["target"]) and s["prediction"] == s["target"]
    traces = page_data((out / "report.html").read_text())["runs"][0]["samples"]["trace"]
    assert all("def execute_command(image, options):" in t["program"] for t in traces)
    spec = json.loads((out / "results.json").read_text())["runs"][0]["spec"]["backend"]
    assert spec["code_llm"]["spec"] == "openai:coder"
    assert spec["tools"]["perception"] == {"name": "oracle"}
    assert spec["prompt_version"] == "viper-1" and spec["limits"]["timeout"] == 10.0

    calls = len(server.requests())
    assert calls == 24  # one program per item; oracle tools call no model
    again = tmp_path / "again"
    code, text, err = run_cli(["run", "--suite", str(syn), *viper_args(server.url),
                               "--out", str(again)], capsys)
    assert code == 0 and len(server.requests()) == calls  # a rerun makes no calls
    assert "24 from the store" in err or "24" in err
    assert run_outputs(again)[0] == run_outputs(out)[0]  # identical but for the run_id


def test_rank_mode_uses_the_program_answer(tmp_path: Path, syn: Path, fake_openai: Any,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"rules": program_rules(items_of(syn), oracle_program)})
    out = tmp_path / "run"
    code, _text, err = run_cli(["run", "--suite", str(syn), *viper_args(server.url),
                                "--answer-mode", "rank", "--out", str(out)], capsys)
    assert code == 0, err
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    assert m["original_accuracy"] == m["counterfactual_accuracy"] == 100.0
    assert all(s["scores"] and max(s["scores"]) == 0.0 for s in samples_of(out))


def test_visprog_oracle_steps_and_program_failures_per_role(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"rules": program_rules(items_of(syn), oracle_steps)})
    out = tmp_path / "run"
    code, text, err = run_cli(["run", "--suite", str(syn), *viper_args(
        server.url, "visprog:openai:coder"), "--out", str(out)], capsys)
    assert code == 0, err
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    for k in (1, 2, 3, 4):  # the step language expresses templates 1-4 exactly
        g = m["by_group"][f"abs_counting_{k}"]
        assert g["original_accuracy"] == g["counterfactual_accuracy"] == 100.0
    for k in (5, 6):  # no program (the fake server's default reply): compile failures
        assert m["by_group"][f"abs_counting_{k}"]["original_accuracy"] == 0.0
    for role in ("original", "counterfactual"):
        shares = m["program"]["by_role"][role]
        assert shares["compile"] == shares["failed"] == 33.33 and shares["n_items"] == 12
    assert m["unparsed"] == 0.0 and m["n_errors"] == 0
    failed = [s for s in samples_of(out) if s["group"] in ("abs_counting_5", "abs_counting_6")]
    assert all(s["flag"] == "program-compile" and not s["correct"] for s in failed)
    assert failed[0]["trace"]["failure"]["reason"].startswith(
        "the code LLM's reply holds no program steps")
    steps = next(s for s in samples_of(out) if s["group"] == "abs_counting_2"
                 and s["role"] == "counterfactual")["trace"]["calls"]
    assert [c["tool"] for c in steps] == ["LOC", "FILTER", "LOC", "INSIDE", "COUNT", "EVAL",
                                          "RESULT"]
    assert "VisProg with different code LLMs (Table 6 layout)" in text


HOSTILE = {
    "abs_counting_1": "```python\nimport os\ndef execute_command(image):\n"
                      "    return os.getcwd()\n```",
    "abs_counting_2": "```python\ndef execute_command(image):\n    return 1 / 0\n```",
    "abs_counting_3": "```python\ndef execute_command(image):\n    while True:\n        pass\n```",
    "abs_counting_4": "I would rather not write code.",
}


def test_failed_programs_are_stored_outcomes_not_errors(
        tmp_path: Path, syn_1to4: Path, fake_openai: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    items = items_of(syn_1to4)
    server = fake_openai({"rules": program_rules(items, lambda i: HOSTILE[str(i.group)])})
    out = tmp_path / "run"
    argv = ["run", "--suite", str(syn_1to4), *viper_args(server.url), "-M",
            "sandbox_cpu_seconds=1", "-M", "sandbox_timeout=1", "--out", str(out)]
    code, _text, err = run_cli(argv, capsys)
    assert code == 0, err
    flags = {(s["group"], s["flag"]) for s in samples_of(out)}
    assert flags == {("abs_counting_1", "program-compile"), ("abs_counting_2", "program-raise"),
                     ("abs_counting_3", "program-timeout"), ("abs_counting_4", "program-compile")}
    reasons = {s["group"]: s["trace"]["failure"]["reason"] for s in samples_of(out)}
    assert "import of 'os' is not allowed" in reasons["abs_counting_1"]
    assert reasons["abs_counting_2"] == "ZeroDivisionError: division by zero (line 2)"
    assert "CPU seconds" in reasons["abs_counting_3"] or "wall clock" in reasons["abs_counting_3"]
    assert reasons["abs_counting_4"].startswith("the code LLM's reply holds no Python code")
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    assert m["n_errors"] == 0 and m["original_accuracy"] == 0.0 and m["unparsed"] == 0.0
    assert m["program"]["by_role"]["original"] == {
        "failed": 100.0, "compile": 50.0, "raise": 25.0, "timeout": 25.0, "n_items": 8,
        "n_failed": 8, "n_compile": 4, "n_raise": 2, "n_timeout": 2}
    calls = len(server.requests())
    code, _text, err = run_cli([*argv[:-1], str(tmp_path / "again")], capsys)
    assert code == 0 and len(server.requests()) == calls  # outcomes were cached


def test_unreachable_code_llm_is_an_error_retried_next_run(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"cycle": ["500"]})
    out = tmp_path / "run"
    code, _text, _err = run_cli(["run", "--suite", str(syn), *viper_args(server.url),
                                 "-M", "max_retries=0", "--limit", "4", "--out", str(out)], capsys)
    samples = samples_of(out)
    assert code == 3 and len(samples) == 4
    assert all(s["error"] and "the code LLM openai:coder failed" in s["error"] for s in samples)
    assert all(s["trace"] is None for s in samples)
    before = len(server.requests())
    run_cli(["run", "--suite", str(syn), *viper_args(server.url), "-M", "max_retries=0",
             "--limit", "4", "--out", str(tmp_path / "again")], capsys)
    assert len(server.requests()) == before + 4  # errors are not cached


def test_code_generations_are_shared_through_the_store(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str]) -> None:
    server = fake_openai({"rules": program_rules(items_of(syn), oracle_program)})
    base = ["run", "--suite", str(syn), *viper_args(server.url), "--limit", "4"]
    assert run_cli([*base, "--out", str(tmp_path / "a")], capsys)[0] == 0
    calls = len(server.requests())
    # Other tools make another backend identity, but the same code LLM request is served
    # from the store: the same programs run with other settings, without new calls.
    assert run_cli([*base, "-M", "llm_query=none", "--out", str(tmp_path / "b")], capsys)[0] == 0
    assert len(server.requests()) == calls
    a = json.loads((tmp_path / "a" / "results.json").read_text())["runs"][0]["spec"]["backend"]
    b = json.loads((tmp_path / "b" / "results.json").read_text())["runs"][0]["spec"]["backend"]
    assert a["tools"]["llm_query"] is not None and b["tools"]["llm_query"] is None


def test_report_gives_table6_layout_over_code_llms(
        tmp_path: Path, syn: Path, fake_openai: Any, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # each row whole on one line
    items = items_of(syn)
    good = fake_openai({"rules": program_rules(items, oracle_program)})
    # The second "code LLM" ignores every premise: it writes the original's program.
    originals = {i.pair_id: i for i in items if i.role == "original"}
    naive = fake_openai({"rules": program_rules(
        items, lambda i: oracle_program(originals[i.pair_id]))})
    for name, server in (("coder-a", good), ("coder-b", naive)):
        assert run_cli(["run", "--suite", str(syn), *viper_args(server.url, f"viper:openai:{name}"),
                        "--out", str(tmp_path / name)], capsys)[0] == 0
    code, text, err = run_cli(["report", str(tmp_path / "coder-a"), str(tmp_path / "coder-b"),
                               "--out", str(tmp_path / "report")], capsys)
    assert code == 0, err
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines)
                 if "ViperGPT with different code LLMs (Table 6 layout)" in line)
    table = "\n".join(lines[start:start + 8])
    assert "code LLM" in table
    row_a = next(line for line in lines[start:] if line.startswith("openai:coder-a"))
    row_b = next(line for line in lines[start:] if line.startswith("openai:coder-b"))
    assert "100.0" in row_a and row_a.count("100.0") > row_b.count("100.0")
    assert "Table 6 layout" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.parametrize(("extra", "needle"), [
    (["-M", "segmenter=sam"], "Unknown argument(s) segmenter for viper:openai:coder"),
    (["-M", "detector=/no/such/folder"], "-M detector=/no/such/folder: there is no checkpoint"),
    (["-M", "detector=oracle", "-M", "sandbox_timeout=-1"],
     "-M sandbox_timeout must be a positive number"),
])
def test_bad_arguments_give_one_message(tmp_path: Path, syn: Path, extra: list[str],
                                        needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run_cli(["run", "--suite", str(syn), "--model", "viper:openai:coder",
                               "--base-url", "http://127.0.0.1:9/v1", *extra,
                               "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and needle in err and "Traceback" not in err
    assert not (tmp_path / "out" / "results.json").exists()


def test_missing_detector_and_nested_backends_are_refused(
        tmp_path: Path, syn: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run_cli(["run", "--suite", str(syn), "--model", "viper:openai:coder",
                               "--base-url", "http://127.0.0.1:9/v1", "--out",
                               str(tmp_path / "out")], capsys)
    assert code == 2 and "pass -M detector=oracle" in err
    code, _out, err = run_cli(["run", "--suite", str(syn), "--model", "viper:visprog:x",
                               "-M", "detector=oracle", "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "cannot itself be a program backend" in err


def test_missing_restricted_python_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from whatifbench.errors import WhatifError
    from whatifbench.models.program.viper import ViperBackend

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "RestrictedPython" else real(name, *a))
    with pytest.raises(WhatifError, match=r'pip install "whatifbench\[program\]"'):
        ViperBackend("viper:openai:coder", {"detector": "oracle"})


@pytest.mark.parametrize("ablation", ["blank", "shuffled", "none"])
def test_an_ablation_of_oracle_perception_is_refused_up_front(
        tmp_path: Path, syn: Path, ablation: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The oracle reads scenes from provenance, not pixels: every ablation would score as the
    full run and be read as "the score did not need the image" (issue 32, item 2)."""
    code, _out, err = run_cli(["run", "--suite", str(syn), *viper_args("http://127.0.0.1:9/v1"),
                               "--image-ablation", ablation, "--out", str(tmp_path / "out")],
                              capsys)
    assert code == 2, err
    assert "with -M detector=oracle its tools read each scene from the items' provenance" in err
    assert not (tmp_path / "out").exists()
