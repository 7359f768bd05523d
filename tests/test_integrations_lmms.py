"""lmms-eval: the exported task folder (plain utils.py reproducing our prompts, parsers and paired
metrics), ``whatif import-results lmms-eval`` and its refusals. The run of the real lmms-eval on
a tiny LLaVA is in test_integrations_lmms_run.py (marker ``lmms_eval``)."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from interop_util import BUILDERS, kind_datasets  # noqa: F401  (session fixture)

from whatifbench.answers.letters import extract_choice
from whatifbench.answers.numbers import extract_number
from whatifbench.answers.yesno import extract_yes_no
from whatifbench.cli.main import main
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.errors import WhatifError
from whatifbench.integrations.common import image_labels, prompts
from whatifbench.integrations.lmms.export import export_lmms_eval
from whatifbench.integrations.lmms.samples import import_lmms_eval
from whatifbench.integrations.replay import ReplayBackend, replay

datasets = pytest.importorskip("datasets")
CASES = Path(__file__).parent / "cases"
REPLIES = ("A", "(B)", "The answer is C.", "D: 7", "3", "There would be 12.", "yes", "Yes",
           "No, it would not.", "I cannot tell.", "image B", "<think>hmm</think> B", "two",
           "1. A ball rolls.\n2. The stack falls.\n3. The ball hits the stack, so it topples.")
# Ours → the task's metric names (CFMM calls the paired metrics acc_b, acc_c, acc+).
CFMM_NAMES = {"original_accuracy": "acc_b", "counterfactual_accuracy": "acc_c",
              "pair_accuracy": "acc_plus"}


def task_code(folder: Path) -> ModuleType:
    """The exported ``utils.py``, imported from its folder as lmms-eval does."""
    spec = importlib.util.spec_from_file_location(f"utils_{abs(hash(folder))}",
                                                  folder / "utils.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reply_for(item_id: str) -> str:
    return REPLIES[int(hashlib.sha256(item_id.encode()).hexdigest(), 16) % len(REPLIES)]


def docs(folder: Path, tmp: Path) -> list[dict[str, Any]]:
    """The task's documents as lmms-eval loads them (datasets.load_dataset of the hf folder)."""
    return list(datasets.load_dataset(str(folder / "hf"), split="test", cache_dir=str(tmp)))


def fake_samples(path: Path, utils: ModuleType, rows: list[dict[str, Any]],
                 edit: dict[str, Any] | None = None) -> Path:
    """A samples file in lmms-eval's --log_samples layout, scored by the task's own code."""
    lines = []
    for doc_id, doc in enumerate(rows):
        reply = reply_for(doc["id"])
        line = {"doc_id": doc_id, "target": doc["target"], "filtered_resps": reply,
                "input": utils.doc_to_text(doc), **utils.process_results(doc, [reply])}
        lines.append(json.dumps({**line, **(edit or {})} if doc_id == 1 else line))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_task_code_is_plain(kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    done = export_lmms_eval(kind_datasets("choice"), tmp_path / "task")
    tree = ast.parse((tmp_path / "task" / "utils.py").read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}
    assert imported == {"json", "re", "pathlib"}
    yaml_text = (tmp_path / "task" / f"{done.task}.yaml").read_text()
    assert f"task: {done.task}" in yaml_text and "!function utils.pair_accuracy" in yaml_text
    assert json.dumps(str((tmp_path / "task" / "hf").resolve())) in yaml_text
    assert "reasoning_tags: none" in yaml_text
    assert done.metrics == ("original_accuracy", "counterfactual_accuracy", "drop",
                            "pair_accuracy", "accuracy", "unparsed")


def fuzz_replies(n: int = 3000) -> list[str]:
    """Seeded random replies built from the words our parsers react to."""
    words = ["A", "B", "(C)", "D:", "b)", "answer", "is", "Answer:", "option", "the", "if",
             "there", "would", "be", ",", ".", "3", "12", "1,000", "three", "twenty-one", "no",
             "none", "not", "yes", "true", "false", "=", "2 + 2", "more", "than", "of",
             "<think>", "</think>", "cannot", "tell", "I", "choose", "10", "red", "blue",
             "n't", "nobody", "\n", "**", "image", "Yes", "No", "no more than", "one of",
             "if 2 were removed,", "fewer than", "no one", "(A)", "option B", "B.", "C)"]
    rng = random.Random(0)
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 9))) for _ in range(n)]


def test_extraction_reproduces_ours(kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    export_lmms_eval(kind_datasets("choice"), tmp_path / "task")
    utils = task_code(tmp_path / "task")
    letters = json.loads((CASES / "letters.json").read_text())["cases"]
    numbers = json.loads((CASES / "answers_numbers.json").read_text())["cases"]
    yes_no = json.loads((CASES / "answers_yesno.json").read_text())["cases"]
    choice_sets = [case["choices"] for case in letters] + [["red", "blue"], ["Yes", "No"]]
    for case in letters:
        found = extract_choice(case["reply"], case["choices"])
        assert utils.extract_choice(case["reply"], case["choices"]) == (found.value, found.flag)
    replies = [c["reply"] for c in numbers + yes_no] + fuzz_replies()
    for k, reply in enumerate(replies):
        for ours, theirs in ((extract_number, utils.extract_number),
                             (extract_yes_no, utils.extract_yes_no)):
            found = ours(reply)
            assert theirs(reply) == (found.value, found.flag), (ours.__name__, reply)
        choices = choice_sets[k % len(choice_sets)]
        found = extract_choice(reply, choices)
        assert utils.extract_choice(reply, choices) == (found.value, found.flag), reply


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_task_scores_as_we_do(kind: str, kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    folder = kind_datasets(kind)
    data = load_dataset(folder)
    done = export_lmms_eval(folder, tmp_path / "task")
    utils = task_code(tmp_path / "task")
    rows = docs(tmp_path / "task", tmp_path / "cache")
    posed = prompts(data)
    for doc, item in zip(rows, data.items, strict=True):
        labels = image_labels(item)
        assert utils.doc_to_text(doc) == "".join(f"{x}:<image>\n" for x in labels) + posed[item.id]
        content = utils.doc_to_messages(doc)[0]["content"]
        assert [c["type"] for c in content] == [
            *(["text", "image"] * len(labels) if labels else ["image"] * len(item.images)),
            "text"]
        assert [c["text"] for c in content if c["type"] == "text"] == [
            *(f"{x}:" for x in labels), posed[item.id]]
    records = [utils.process_results(doc, [reply_for(doc["id"])]) for doc in rows]
    run = replay(data, ReplayBackend("lmms-eval:test", {}, {d["id"]: reply_for(d["id"])
                                                            for d in rows}, "t"), {})
    ours = {s.item_id: s for s in run.samples}
    for record in records:
        first = record[done.metrics[0]]
        assert all(value is first for value in record.values())
        if first["scored"]:
            assert first["correct"] == ours[first["id"]].correct, first
            assert first["prediction"] == ours[first["id"]].prediction, first
    kinds = {item.id: item.kind for item in data.items}
    scored = [s for s in run.samples if kinds[s.item_id] != "text"]
    expected = {"accuracy": round(100 * sum(s.correct for s in scored) / len(scored), 2)}
    for name in done.metrics:
        if name == "accuracy":
            continue
        key = CFMM_NAMES.get(name, name) if data.suite == "cfmm" else name
        expected[name] = run.metrics[key]
    got = {name: getattr(utils, name)([r[name] for r in records]) for name in done.metrics}
    assert got == pytest.approx(expected)


def test_import_results_writes_our_run(kind_datasets, tmp_path: Path,  # noqa: F811
                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = kind_datasets("multi-image")  # MuCR: the free-text Exp items get judged on import
    export_lmms_eval(folder, tmp_path / "task")
    utils = task_code(tmp_path / "task")
    logs = tmp_path / "logs" / "model"
    logs.mkdir(parents=True)
    samples = fake_samples(logs / "20260101_000000_samples_whatif_mucr_synthetic.jsonl", utils,
                           docs(tmp_path / "task", tmp_path / "cache"))
    (logs / "20260101_000000_results.json").write_text(json.dumps({
        "config": {"model": "llava_hf", "model_args": "pretrained=/m/tiny,api_key=sk-secret"},
        "configs": {"whatif_mucr_synthetic": {"generation_kwargs": {"max_new_tokens": 99}}}}))
    assert main(["import-results", "lmms-eval", str(samples), "--dataset", str(folder),
                 "--out", str(tmp_path / "run")]) == 0
    assert "agrees with whatifbench's on all" in capsys.readouterr().out
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    (run,) = results["runs"]
    assert run["model"] == "lmms-eval:llava_hf:/m/tiny"
    assert run["spec"]["source"]["tool"] == "lmms-eval"
    assert run["spec"]["protocol"]["max_new_tokens"] == 99
    assert "sk-secret" not in (tmp_path / "run" / "results.json").read_text()
    assert run["metrics"]["exp"] is not None and run["metrics"]["n"]["exp"] > 0
    lines = (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    assert len(lines) == len(load_dataset(folder).items)
    assert (tmp_path / "run" / "report.html").is_file()
    # Replies and judge calls went to the run store ($WHATIF_HOME's): importing again computes
    # nothing, and gives the same run.
    again = import_lmms_eval(samples, load_dataset(folder))
    done = again.run.execution  # replies and judge calls are counted apart
    assert done.computed == 0 and done.judge_computed == 0
    assert (done.from_store, done.judge_from_store) == (len(lines), run["metrics"]["n"]["exp"])
    assert json.loads(json.dumps(again.run.metrics)) == run["metrics"]


def import_with_model_args(kind_datasets: Any, tmp_path: Path, whatif_home: Path,  # noqa: F811
                           capsys: pytest.CaptureFixture[str], model_args: Any
                           ) -> tuple[dict[str, Any], str]:
    """Import fake samples whose results file logs ``model_args``; the run and everything
    written or printed."""
    folder = kind_datasets("choice")
    export_lmms_eval(folder, tmp_path / "task")
    utils = task_code(tmp_path / "task")
    logs = tmp_path / "logs" / "model"
    logs.mkdir(parents=True)
    task = "whatif_" + load_dataset(folder).card.suite.replace("-", "_")
    samples = fake_samples(logs / f"20260101_000000_samples_{task}.jsonl", utils,
                           docs(tmp_path / "task", tmp_path / "cache"))
    (logs / "20260101_000000_results.json").write_text(json.dumps({
        "config": {"model": "openai_compatible", "model_args": model_args}}))
    assert main(["import-results", "lmms-eval", str(samples), "--dataset", str(folder),
                 "--out", str(tmp_path / "run")]) == 0
    out, err = capsys.readouterr()
    written = "\n".join(p.read_bytes().decode("utf-8", "replace")
                        for root in (tmp_path / "run", whatif_home)
                        for p in sorted(root.rglob("*")) if p.is_file()) + out + err
    (run,) = json.loads((tmp_path / "run" / "results.json").read_text())["runs"]
    return run, written


def test_import_results_records_no_url_credentials(kind_datasets, tmp_path: Path,  # noqa: F811
                                                   whatif_home: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A logged config whose URLs carry user:password and token query values: neither reaches
    the results, samples, reports, run store or terminal; the URLs are kept, redacted."""
    model_args = ("pretrained=http://alice:hunter2pass@models.lan:8000/m/tiny?token=tok-0123456789,"
                  "base_url=https://bob:s3cretpw@api.lan/v1?region=eu&access_token=at-abcdef12")
    run, written = import_with_model_args(kind_datasets, tmp_path, whatif_home, capsys,
                                          model_args)
    for secret in ("hunter2pass", "tok-0123456789", "s3cretpw", "at-abcdef12", "alice:", "bob:"):
        assert secret not in written, secret
    assert run["model"] == "lmms-eval:openai_compatible:http://***@models.lan:8000/m/tiny?token=***"
    assert run["spec"]["backend"]["args"]["model_args"]["base_url"] == \
        "https://***@api.lan/v1?region=eu&access_token=***"


def _other_dataset(tmp_path: Path) -> Dataset:
    from whatifbench.core.registry import lookup

    lookup("generator", "cvqa-synthetic").obj.generate(tmp_path / "other", seed=1,
                                                       per_template=1)
    return load_dataset(tmp_path / "other")


def test_import_results_refusals(kind_datasets, tmp_path: Path,  # noqa: F811
                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = kind_datasets("choice")
    data = load_dataset(folder)
    export_lmms_eval(folder, tmp_path / "task")
    utils = task_code(tmp_path / "task")
    rows = docs(tmp_path / "task", tmp_path / "cache")

    # Samples of another lmms-eval task: no whatifbench record.
    foreign = tmp_path / "x_samples_mmbench_en.jsonl"
    foreign.write_text(json.dumps({"doc_id": 0, "filtered_resps": "A", "input": "Q",
                                   "gpt_eval_score": {"index": 0, "prediction": "A"}}) + "\n")
    assert main(["import-results", "lmms-eval", str(foreign), "--dataset", str(folder),
                 "--out", str(tmp_path / "r1")]) == 2
    err = capsys.readouterr().err
    assert "not a samples file of a task written by 'whatif export" in err
    assert "mmbench_en" in err and not (tmp_path / "r1" / "results.json").exists()

    # Samples of our task for another dataset.
    other = _other_dataset(tmp_path)
    export_lmms_eval(other, tmp_path / "task2")
    utils2 = task_code(tmp_path / "task2")
    wrong = fake_samples(tmp_path / "y_samples_whatif_cvqa_synthetic.jsonl", utils2,
                         docs(tmp_path / "task2", tmp_path / "cache2"))
    with pytest.raises(WhatifError, match="samples were made on another dataset") as info:
        import_lmms_eval(wrong, data)
    assert other.items_sha256[:12] in str(info.value) and data.items_sha256[:12] in str(
        info.value)

    # A task whose prompt was edited, and an item that is not in the dataset.
    edited = fake_samples(tmp_path / "z_samples_t.jsonl", utils, rows,
                          edit={"input": "Answer briefly. " + rows[1]["prompt"]})
    with pytest.raises(WhatifError, match="not with whatifbench's prompt"):
        import_lmms_eval(edited, data)
    lines = fake_samples(tmp_path / "w_samples_t.jsonl", utils, rows).read_text().splitlines()
    first = json.loads(lines[0])
    for key in ("original_accuracy", "counterfactual_accuracy", "drop", "pair_accuracy",
                "accuracy", "unparsed"):
        first[key] = {**first[key], "id": "no-such-item"}
    (tmp_path / "w_samples_t.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]))
    with pytest.raises(WhatifError, match="item 'no-such-item' is not in the dataset"):
        import_lmms_eval(tmp_path / "w_samples_t.jsonl", data)


def test_import_results_from_a_log_folder(kind_datasets, tmp_path: Path,  # noqa: F811
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A log folder is searched for the task's samples file; a folder without one (lmms-eval
    exits 0 when its model crashes, and writes none) gets a message saying so."""
    folder = kind_datasets("choice")
    data = load_dataset(folder)
    task = export_lmms_eval(folder, tmp_path / "task")
    utils = task_code(tmp_path / "task")
    logs = tmp_path / "logs"
    (logs / "model").mkdir(parents=True)
    (logs / "model" / "20260101_000000_results.json").write_text("{}")
    assert main(["import-results", "lmms-eval", str(logs), "--dataset", str(folder),
                 "--out", str(tmp_path / "r0")]) == 2
    err = capsys.readouterr().err
    assert f"The lmms-eval log folder {logs} holds no samples file" in err
    assert "exits with status 0" in err and "Error during evaluation" in err
    assert not (tmp_path / "r0").exists()

    rows = docs(tmp_path / "task", tmp_path / "cache")
    ours = fake_samples(logs / "model" / f"20260101_000000_samples_{task.task}.jsonl", utils, rows)
    assert main(["import-results", "lmms-eval", str(logs), "--dataset", str(folder),
                 "--out", str(tmp_path / "r1")]) == 0
    (run,) = json.loads((tmp_path / "r1" / "results.json").read_text())["runs"]
    assert run["spec"]["source"]["samples"] == str(ours)
    # Another task's samples beside ours: ours is still found; two of ours must be chosen.
    fake_samples(logs / "model" / "20260101_000000_samples_other_task.jsonl", utils, rows)
    assert import_lmms_eval(logs, data).run.spec.source["samples"] == str(ours)
    second = logs / "again" / f"20260102_000000_samples_{task.task}.jsonl"
    second.parent.mkdir()
    second.write_bytes(ours.read_bytes())
    with pytest.raises(WhatifError, match="holds 2 samples files") as info:
        import_lmms_eval(logs, data)
    assert str(second) in str(info.value)
    with pytest.raises(WhatifError, match="does not exist"):
        import_lmms_eval(tmp_path / "missing", data)
