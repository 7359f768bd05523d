"""CFMM runs end to end: rank and generate modes, one-shot demonstrations, text-prior, stats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cfmm_util import good_records, write_images, write_jsonl

from whatifbench.cli.main import main
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Request
from whatifbench.errors import WhatifError
from whatifbench.runner.backends import make_backend
from whatifbench.runner.requests import RequestBuilder, choose_demos
from whatifbench.suites.cfmm.importer import import_cfmm
from whatifbench.suites.cfmm.suite import LETTER_INSTRUCTION, RANK_INSTRUCTION, CfmmSuite


@pytest.fixture()
def dataset(tmp_path: Path) -> Dataset:
    records = good_records()
    images = write_images(tmp_path / "imgs", records)
    import_cfmm(tmp_path / "ds", images=images, jsonl=write_jsonl(tmp_path / "p.jsonl", records))
    return load_dataset(tmp_path / "ds")


def _run(dataset: Dataset, out: Path, *args: str) -> tuple[dict, list[dict], str]:
    code = main(["run", "--suite", str(dataset.root), "--out", str(out), "--no-progress", *args])
    assert code == 0
    results = json.loads((out / "results.json").read_text())["runs"][0]
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    return results, samples, (out / "report.md").read_text()


def test_rank_mode_by_default(dataset: Dataset, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    run, samples, md = _run(dataset, tmp_path / "out", "--model", "builtin:ignore-premise")
    assert run["spec"]["protocol"]["answer_mode"] == "rank"
    m = run["metrics"]
    # Right on every basic question; every counterfactual answered with the basic answer.
    assert (m["acc_b"], m["acc_c"], m["acc_plus"]) == (100.0, 0.0, 0.0)
    assert m["total"]["acc_b"] == 600.0 and m["total"]["max"] == 600
    # every question has two options: the share would be 100 by construction, so it is absent
    assert m["cf_errors_chose_basic"] is None and m["n_cf_errors_considered"] == 0
    assert m["n_cf_errors_two_options"] == 12
    assert set(m["by_category"]) == {"count", "color", "size", "shape", "direction", "common"}
    first = samples[0]
    assert first["response"] is None and len(first["scores"]) == 2
    assert first["prompt"] == f"How many cups are on the table?\n{RANK_INSTRUCTION}"
    out = capsys.readouterr().out
    assert "CFMM (Table 2 layout)" in out and "Total score" in out and "600.00" in out
    assert "cf err = basic %" not in out and "is not shown: no question here can tell it" in out
    # intervals at 0 and 100 % neither collapse nor pretend to be symmetric (2 pairs each)
    assert (r"| builtin:ignore-premise | 0-shot | 100.00 \[34.24, 100.00\] | "
            r"0.00 \[0.00, 65.76\] | 0.00 \[0.00, 65.76\] |") in md


def test_generate_mode_lists_letters(dataset: Dataset, tmp_path: Path) -> None:
    run, samples, md = _run(dataset, tmp_path / "out", "--model", "builtin:ignore-premise",
                            "--answer-mode", "generate")
    assert run["spec"]["protocol"]["answer_mode"] == "generate"
    assert (run["metrics"]["acc_b"], run["metrics"]["acc_c"]) == (100.0, 0.0)
    first, second = samples[0], samples[3]
    assert first["prompt"] == ("How many cups are on the table?\nA. 2\nB. 3\n"
                               f"{LETTER_INSTRUCTION}")
    assert (first["response"], first["prediction"]) == ("A", "2")
    assert (second["response"], second["prediction"]) == ("B", "2")  # options 3, 2: basic's 2
    assert "0-shot (generate)" in md


def test_rank_requests_score_option_texts(dataset: Dataset) -> None:
    protocol = Protocol().resolved(CfmmSuite.default_answer_mode)
    request = RequestBuilder(CfmmSuite(), protocol, dataset).build(dataset.items[3])
    assert request.candidates == ("3", "2")  # the option texts in file order, not letters
    assert "A." not in request.prompt and request.answer_prefix == ""


def _demo_turns(dataset: Dataset, strategy: str, mode: str, item: Item) -> tuple[str, str]:
    protocol = Protocol(strategy=strategy, answer_mode=mode).resolved("rank")
    demos = choose_demos(dataset, dataset.items, seed=0, suite=CfmmSuite())
    request = RequestBuilder(CfmmSuite(), protocol, dataset, demos).build(item)
    assert len(request.turns) == 3 and request.turns[1].role == "assistant"
    assert len(request.images) == 2  # the demonstration's image, then the item's
    return request.turns[0].text, request.turns[1].text


def test_one_shot_demonstrations(dataset: Dataset) -> None:
    cf = dataset.items[1]  # count-0-c; its demonstration is count-1-c (target "3", options 3, 2)
    prompt, answer = _demo_turns(dataset, "one-shot", "rank", cf)
    assert prompt.startswith("If one more cup") and prompt.endswith(RANK_INSTRUCTION)
    assert answer == "3"  # rank mode: the demonstration answers with the scored option text
    prompt, answer = _demo_turns(dataset, "one-shot", "generate", cf)
    assert "A. 3\nB. 2" in prompt and answer == "A"
    _, answer = _demo_turns(dataset, "one-shot-cot", "rank", cf)
    assert answer == "The premise changes the count, so the answer becomes 3. So the answer is 3."
    # count-1-b is shown count-0-b, which has a basic explanation (options 2, 3; target 2) ...
    _, answer = _demo_turns(dataset, "one-shot-cot", "generate", dataset.items[2])
    assert answer == "The image shows 2. So the answer is A."
    # ... but count-0-b is shown count-1-b, which has none.
    with pytest.raises(WhatifError, match="needs a worked reasoning"):
        _demo_turns(dataset, "one-shot-cot", "rank", dataset.items[0])


def test_one_shot_run_is_labelled(dataset: Dataset, tmp_path: Path) -> None:
    run, _, md = _run(dataset, tmp_path / "out", "--model", "builtin:ignore-premise",
                      "--strategy", "one-shot")
    assert run["spec"]["protocol"]["strategy"] == "one-shot"
    assert run["spec"]["demonstrations"]["count-0-c"] == "count-1-c"
    assert "| builtin:ignore-premise | 1-shot |" in md


def test_rank_with_cot_is_refused(dataset: Dataset, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--suite", str(dataset.root), "--model", "builtin:random", "--strategy",
                 "cot", "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 2 and "cannot be combined with --answer-mode rank" in capsys.readouterr().err


def _choice(item_id: str, question: str, choices: tuple[str, ...], target: str) -> Item:
    return Item(item_id, (), question, "choice", target, choices)


def _answers(items: list[Item], **args: object) -> list[str | None]:
    backend = make_backend("builtin:text-prior", args)
    backend.prepare(items)
    requests = [Request(i.id, (), candidates=i.choices, item=i) for i in items]
    scored = dict(backend.score(requests))
    return [i.choices[max(range(len(i.choices)), key=lambda k: scored[n].scores[k])]
            for n, i in enumerate(items)]


def test_text_prior_reads_only_the_text() -> None:
    leak = _choice("a", "If I painted this bus blue, what colour would it be?",
                   ("red", "blue"), "red")
    number = _choice("b", "If two more triangles were added, how many would there be?",
                     ("2", "5"), "5")
    frequent = [_choice(f"f{k}", "How many?", ("3", str(10 + k)), "3") for k in range(4)]
    reversed_ = _choice("r", "How many now?", ("7", "3"), "7")
    items = [leak, number, *frequent, reversed_]
    assert _answers(items) == ["blue", "2", "3", "3", "3", "3", "3"]
    # Targets play no part: the same questions with other targets get the same answers.
    flipped = [Item(i.id, (), i.question, "choice", i.choices[1 - i.target_index], i.choices)
               for i in items]
    assert _answers(flipped) == _answers(items)


def test_text_prior_breaks_ties_without_position_bias() -> None:
    items = [_choice(f"t{k}", "Which one?", (f"x{k}", f"y{k}"), f"x{k}") for k in range(400)]
    firsts = sum(a == i.choices[0] for a, i in zip(_answers(items), items, strict=True))
    assert 160 < firsts < 240
    assert _answers(items, seed=1) != _answers(items)
    assert _answers(items) == _answers(items)


def test_text_prior_on_the_imported_suite(dataset: Dataset, tmp_path: Path) -> None:
    run, _, _ = _run(dataset, tmp_path / "out", "--model", "builtin:text-prior")
    assert run["spec"]["backend"]["spec"] == "builtin:text-prior"
    assert run["metrics"]["n_pairs"] == 12


def test_stats_table(dataset: Dataset, capsys: pytest.CaptureFixture[str],
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one block: the total row read whole
    assert main(["stats", str(dataset.root)]) == 0
    out = capsys.readouterr().out
    assert "CFMM pairs per category" in out
    total = next(line for line in out.splitlines() if line.startswith("total"))
    assert total.split()[:2] == ["total", "12"] and total.split()[-2:] == ["100.0", "50.0"]


def test_runs_of_several_strategies_share_one_table(dataset: Dataset, tmp_path: Path) -> None:
    from whatifbench import api

    runs = []
    for protocol in (Protocol(), Protocol(strategy="one-shot"),
                     Protocol(strategy="one-shot", answer_mode="generate")):
        runs += api.run_all([dataset], ["builtin:ignore-premise", "builtin:text-prior"],
                            protocol=protocol, options=api.RunOptions(progress=False))
    api.write_outputs(tmp_path / "out", runs)
    md = (tmp_path / "out" / "report.md").read_text()
    assert md.count("CFMM (Table 2 layout)") == 1 and md.count("CFMM (Table 3 layout)") == 1
    for label in ("0-shot", "1-shot", "1-shot (generate)"):
        row = (f"| builtin:ignore-premise | {label} | 600.00 \\[438.92, 600.00\\] | "
               r"0.00 \[0.00, 161.08\] | 0.00 \[0.00, 161.08\] |")
        assert row in md
