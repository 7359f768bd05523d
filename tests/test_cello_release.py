"""CELLO release interoperability and protocol: import/export, the paper's prompt, parse and
sampling, metrics, and an end-to-end run."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from cello_fixtures import write_images, write_input

from whatifbench.answers.letters import letter_for
from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.builtin.program import ProgramBackend
from whatifbench.runner.evaluate import get_suite
from whatifbench.suites.cello.build import build_cello
from whatifbench.suites.cello.families import PHRASE
from whatifbench.suites.cello.paper import paper_prompt
from whatifbench.suites.cello.records import RELEASE_KEYS


@register("backend", "test:kind")
class KindBackend(ProgramBackend):
    """Picks the option of kind ``-M kind=...`` on multiple choice, the target on Yes/No."""

    def answer(self, item: Item, request: Request) -> str | None:
        kinds = item.meta.get("option_kinds")
        if not kinds:
            return item.target
        return item.choices[kinds.index(self.args["kind"])]


@register("backend", "test:recorder")
class RecorderBackend(Backend):
    """Answers ``B). No`` and keeps the requests it saw."""

    seen: ClassVar[list[Request]] = []

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            RecorderBackend.seen.append(request)
            yield i, Response(text="B). No")


@pytest.fixture
def example(shared_dir: Path) -> dict[str, Any]:
    return json.loads((shared_dir / "data" / "cello" / "example_record.json").read_text())


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    sg, data, images = write_input(tmp_path / "in")
    build_cello(sg, images, tmp_path / "built", image_data=data, per_task=3, seed=0,
                design="paper")
    return tmp_path / "built", images


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records), encoding="utf-8")
    return path


def _record(task: str, data_id: int, img_id: int = 1) -> dict[str, Any]:
    binary = task in ("sufficient_cause", "necessary_cause")
    return {"img_id": img_id, "question": f"Question {data_id}?", "graph_type": "direct",
            "task_type": task,
            "graph": {"nodes": [[1, {"obj_name": "beach", "obj_synsets": [], "boxes": [0, 0, 1, 1],
                                     "position": "left_upper"}],
                                [2, {"obj_name": "horse", "obj_synsets": [],
                                     "boxes": [[0, 0, 1, 1]], "position": "left_upper"}]],
                      "edges": [[1, 2, {"relation": "ON"}]]},
            "objs": [1, 2], "options": ["Yes", "No"] if binary else
            ["beach", "horse", "sky", "saddle"], "answer_index": data_id % 2,
            "data_id": data_id}


def test_import_the_example_record_and_export_it_back(tmp_path: Path, example: dict) -> None:
    write_images(tmp_path / "vg" / "VG_100K", [example["img_id"]])
    src = _jsonl(tmp_path / "cello_data.jsonl", [example])
    assert main(["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "vg"),
                 "--out", str(tmp_path / "ds")]) == 0
    (item,) = load_dataset(tmp_path / "ds").items
    assert (item.kind, item.choices, item.target, item.group) == (
        "choice", ("Yes", "No"), "No", "sufficient_cause")
    assert item.meta["rung"] == "counterfactual" and item.meta["format"] == "binary"
    assert item.images == ("images/2362590.jpg",)
    out = tmp_path / "out.jsonl"
    assert main(["export", str(tmp_path / "ds"), "--format", "cello-jsonl", "--out",
                 str(out)]) == 0
    (line,) = out.read_text().splitlines()
    exported = json.loads(line)
    assert exported == example and list(exported) == list(RELEASE_KEYS)


def test_the_readme_example_file_itself_imports(tmp_path: Path, shared_dir: Path,
                                               example: dict) -> None:
    """One pretty-printed record, as the release README shows it (tabs, several lines)."""
    src = shared_dir / "data" / "cello" / "example_record.json"
    assert src.read_text().count("\n") > 10
    write_images(tmp_path / "vg", [example["img_id"]])
    assert main(["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "vg"),
                 "--out", str(tmp_path / "ds")]) == 0
    (item,) = load_dataset(tmp_path / "ds").items
    assert item.meta["data_id"] == example["data_id"] and item.target == "No"
    array = tmp_path / "two.json"  # a JSON array of records is read too
    array.write_text(json.dumps([example, {**example, "data_id": example["data_id"] + 1}],
                                indent=2))
    assert main(["import", "cello", "--jsonl", str(array), "--images", str(tmp_path / "vg"),
                 "--out", str(tmp_path / "ds2")]) == 0
    assert len(load_dataset(tmp_path / "ds2").items) == 2


def test_export_import_round_trip(tmp_path: Path, built: tuple, example: dict) -> None:
    ds, images = built
    first = tmp_path / "a.jsonl"
    assert main(["export", str(ds), "--format", "cello-jsonl", "--out", str(first)]) == 0
    records = [json.loads(line) for line in first.read_text().splitlines()]
    for rec in records:                                   # the example record's shape
        assert list(rec) == list(example)
        for node_id, attrs in rec["graph"]["nodes"]:
            assert isinstance(node_id, int)
            assert set(attrs) == set(example["graph"]["nodes"][0][1])
        assert all(set(e[2]) == {"relation"} for e in rec["graph"]["edges"])
        assert rec["objs"] == [n[0] for n in rec["graph"]["nodes"]]
    assert main(["import", "cello", "--jsonl", str(first), "--images", str(images),
                 "--out", str(tmp_path / "re")]) == 0
    second = tmp_path / "b.jsonl"
    assert main(["export", str(tmp_path / "re"), "--format", "cello-jsonl", "--out",
                 str(second)]) == 0
    assert second.read_bytes() == first.read_bytes()
    again = load_dataset(tmp_path / "re").items
    for a, b in zip(load_dataset(ds).items, again, strict=True):
        assert (a.question, a.choices, a.target, a.group) == (b.question, b.choices, b.target,
                                                              b.group)
        assert a.meta["option_kinds"] is None or [
            k if k in ("correct", "graph") else "unknown" for k in a.meta["option_kinds"]
        ] == b.meta["option_kinds"]


def test_export_refuses_to_overwrite(tmp_path: Path, built: tuple,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    ds, _ = built
    out = tmp_path / "x.jsonl"
    out.write_text("keep")
    assert main(["export", str(ds), "--format", "cello-jsonl", "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and out.read_text() == "keep"
    assert main(["export", str(ds), "--format", "cello-jsonl", "--out", str(out),
                 "--overwrite"]) == 0
    assert out.read_text().count("\n") == 29
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["export", str(ds), "--format", "cello-jsonl", "--out",
                 str(blocker / "x.jsonl")]) == 2
    assert "Cannot create the folder" in capsys.readouterr().err


def test_export_of_a_foreign_dataset(tmp_path: Path) -> None:
    with DatasetWriter(tmp_path / "ds") as writer:
        writer.add_item(Item("q1", (), "How many?", "number", "3"))
        writer.finish(name="x", suite="cvqa-synthetic", version="1", generator={}, seed=None)
    with pytest.raises(WhatifError, match="Item q1 is not a CELLO item"):
        from whatifbench.suites.cello.exporter import export_cello

        export_cello(tmp_path / "ds", tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_bad_release_files(tmp_path: Path, example: dict,
                          capsys: pytest.CaptureFixture[str]) -> None:
    write_images(tmp_path / "img", [example["img_id"], 1])
    bad = dict(example, task_type="sufficient_causes")
    boxes = json.loads(json.dumps(example))
    boxes["graph"]["nodes"][0][1]["boxes"] = [1, 2]
    src = _jsonl(tmp_path / "r.jsonl", [example, "{not json", bad, boxes,
                                        dict(example, answer_index=2)])
    out = tmp_path / "ds"
    args = ["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "img"),
            "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{src} has 4 problems" in err
    assert f"{src}:2: not valid JSON" in err
    assert f"{src}:3: unknown task_type 'sufficient_causes'" in err
    assert f"{src}:4: graph node 3749557 has 'boxes' [1, 2]" in err
    assert f"{src}:5: 'answer_index' 2 is not an index" in err
    assert "Traceback" not in err and not out.exists()
    src = _jsonl(tmp_path / "r.jsonl", [example, dict(example, img_id=999, data_id=6),
                                        dict(example, img_id=998, data_id=7)])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "2 image(s) are missing (first: 998.jpg, 999.jpg)" in err and not out.exists()


def test_repeated_data_ids_keep_every_record(tmp_path: Path) -> None:
    write_images(tmp_path / "img", [1])
    src = _jsonl(tmp_path / "r.jsonl",
                 [_record("collider_bias", 3), _record("sufficient_cause", 3)])
    assert main(["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "img"),
                 "--out", str(tmp_path / "ds")]) == 0
    ds = load_dataset(tmp_path / "ds")
    assert [i.id for i in ds.items] == ["cello-3", "cello-3-L2"]
    assert ds.card.counts["repeated_data_ids"] == 1
    assert ds.items[0].meta["option_kinds"] == ["graph", "correct", "unknown", "unknown"]


def test_paper_prompt_and_prefix(tmp_path: Path, example: dict) -> None:
    assert paper_prompt(example["question"], example["options"]) == (
        "Question: If the beach were to suddenly erode, would the women still be able to ride "
        "the horses securely?\nChoose from the following options:\n(A). Yes\n(B). No\n")
    write_images(tmp_path / "img", [example["img_id"]])
    src = _jsonl(tmp_path / "r.jsonl", [example])
    main(["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "img"),
          "--out", str(tmp_path / "ds")])
    RecorderBackend.seen.clear()
    for prompt in ("paper", "default"):
        assert main(["run", "--suite", str(tmp_path / "ds"), "--model", "test:recorder",
                     "--prompt", prompt, "--parser", "paper", "--out", str(tmp_path / prompt),
                     "--no-progress"]) == 0
    paper, default = RecorderBackend.seen
    # a backend of no known family gets the release's generic local path: image, then the
    # prompt with the answer phrase in the user text
    assert paper.answer_prefix == "" and not paper.plain
    assert paper.prompt == paper_prompt(example["question"], example["options"]) + PHRASE
    assert paper.turns[-1].parts[0].image is not None
    assert default.answer_prefix == "" and default.prompt.startswith(example["question"])
    result = json.loads((tmp_path / "paper" / "results.json").read_text())["runs"][0]
    assert result["metrics"]["accuracy"] == 100.0
    assert result["metrics"]["parser_agreement"] == 100.0
    assert result["spec"]["protocol"]["family"] == "other"


def test_paper_rank_mode_scores_letters_after_the_phrase(tmp_path: Path, example: dict) -> None:
    write_images(tmp_path / "img", [example["img_id"]])
    src = _jsonl(tmp_path / "r.jsonl", [example])
    main(["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "img"),
          "--out", str(tmp_path / "ds")])
    out = tmp_path / "rank"
    assert main(["run", "--suite", str(tmp_path / "ds"), "--model", "test:kind", "-M",
                 "kind=correct", "--prompt", "paper", "--answer-mode", "rank", "--out", str(out),
                 "--no-progress"]) == 0
    (sample,) = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert sample["correct"] and sample["scores"] == [-1.0, 0.0]


def test_subset_paper_is_the_release_sampling(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    order = (["sufficient_cause"] * 3 + ["collider_bias", "necessary_cause"]) * 60
    records = [_record(task, k) for k, task in enumerate(order)]
    write_images(tmp_path / "img", [1])
    src = _jsonl(tmp_path / "r.jsonl", records)
    main(["import", "cello", "--jsonl", str(src), "--images", str(tmp_path / "img"),
          "--out", str(tmp_path / "ds")])
    state = random.getstate()
    try:                                  # the release's utils.sampling_test_data, verbatim logic
        random.seed(0)
        by_task: dict[str, list[dict]] = defaultdict(list)
        for rec in records:
            by_task[rec["task_type"]].append(rec)
        sampled: list[dict] = []
        for items in by_task.values():
            sampled.extend(items if len(items) < 100 else random.sample(items, 100))
    finally:
        random.setstate(state)
    expected = [f"cello-{r['data_id']}" for r in sampled]
    assert len(expected) == 100 + 60 + 60
    # --limit then takes items from each task type in turn: the first ten of each
    firsts = {f"cello-{r['data_id']}" for task in by_task
              for r in [x for x in sampled if x["task_type"] == task][:10]}
    spread = [x for x in expected if x in firsts]
    for extra, want in (([], expected), (["--limit", "30"], spread)):
        out = tmp_path / f"run{len(extra)}"
        assert main(["run", "--suite", str(tmp_path / "ds"), "--model", "builtin:random",
                     "--subset", "paper", "--out", str(out), "--no-progress", *extra]) == 0
        ids = [json.loads(line)["item_id"] for line in (out / "samples.jsonl").read_text()
               .splitlines()]
        assert ids == want
    capsys.readouterr()
    assert main(["run", "--suite", str(tmp_path / "ds"), "--model", "builtin:random",
                 "--subset", "papers", "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "has no subset named 'papers'; this suite offers paper" in capsys.readouterr().err
    with pytest.raises(WhatifError, match="cvqa-synthetic has no subset named 'paper'"):
        get_suite("cvqa-synthetic").select([], "paper", 0)


def test_end_to_end_run_with_cello_metrics(tmp_path: Path, built: tuple) -> None:
    ds, _ = built
    out = tmp_path / "out"
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out", str(out),
                 "--no-progress"]) == 0
    (run,) = json.loads((out / "results.json").read_text())["runs"]
    m = run["metrics"]
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert m["n_items"] == len(samples) == 29
    assert m["accuracy"] == round(100 * sum(s["correct"] for s in samples) / 29, 2)
    assert list(m["by_rung"]) == ["discovery", "association", "intervention", "counterfactual"]
    assert len(m["by_task_type"]) == 12 and set(m["by_format"]) == {"binary",
                                                                      "multiple_choice"}
    assert set(m["by_graph_type"]) <= {"direct", "chain", "confounding", "collision"}
    mc_wrong = sum(not s["correct"] for s in samples if s["meta"]["format"] ==
                   "multiple_choice")
    assert m["distractor_errors"]["n_errors"] == mc_wrong
    assert sum(v["count"] for v in m["distractor_errors"]["by_kind"].values()) == mc_wrong
    report = (out / "report.md").read_text()
    assert "accuracy by rung" in report and "kind of option chosen when wrong" in report


@pytest.mark.parametrize("kind", ["image", "graph", "text"])
def test_distractor_error_rates(tmp_path: Path, built: tuple, kind: str) -> None:
    ds, _ = built
    out = tmp_path / "out"
    assert main(["run", "--suite", str(ds), "--model", "test:kind", "-M", f"kind={kind}",
                 "--out", str(out), "--no-progress"]) == 0
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    assert m["by_format"]["multiple_choice"]["accuracy"] == 0.0
    assert m["by_format"]["binary"]["accuracy"] == 100.0
    chosen = m["distractor_errors"]["by_kind"]
    n = m["by_format"]["multiple_choice"]["n"]
    assert chosen[kind] == {"count": n, "share_of_errors": 100.0, "rate": 100.0}
    assert all(v["count"] == 0 for k, v in chosen.items() if k != kind)
    assert letter_for(0) == "A"
