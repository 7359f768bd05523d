"""The C-VQA-Real construction pipeline with a scripted LLM backend (VQAv2-format inputs)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from cvqa_real_helpers import write_photos

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.runner.store import RunStore
from whatifbench.suites.cvqa.real.build import build_dataset
from whatifbench.suites.cvqa.real.exporter import export_release
from whatifbench.suites.cvqa.real.llm_prompts import BOOLEAN, NUMERICAL_DIRECT

REPLIES = {
    # good numerical rewrite
    "How many birds are there?": "Original question:How many birds are there?\nOriginal answer:3"
    "\nStep1:Add 2 birds\nStep2:The answer would be 3+2=5\n"
    "New question:How many birds would there be if 2 more birds came?\nNew answer:5",
    # the paper's own prompt example: 2-1+2=3 but "New answer:1"
    "How many zebras are here?": "Step1:1 zebra left and 2 zebras came\n"
    "Step2:The answer would be 2-1+2=3\n"
    "New question:How many zebras would there be if 1 zebra left and 2 zebras came?\n"
    "New answer:1",
    # wrong arithmetic
    "How many dogs are on the grass?": "Step1:Add 3 dogs\nStep2:The answer would be 4+3=8\n"
    "New question:How many dogs would be on the grass if 3 more dogs came?\nNew answer:8",
    # the premise leaks the answer (0 + 3 = 3, and "3" is in the premise)
    "How many cats are there?": "Step1:add 3 cats\nStep2:The answer would be 0+3=3\n"
    "New question:How many cats would there be if 3 cats came?\nNew answer:3",
    # good boolean rewrite (markdown and spaces tolerated)
    "Is the ground wet?": "**Step1:** The new answer should be yes, so the ground is wet.\n"
    "**Step2:** How to make the ground wet: make it rain.\n"
    "**New question:** Would the ground be wet if it was raining?\n**New answer:** Yes.",
    # boolean answer not flipped
    "Is the sky clear?": "Step1:The new answer should be no, so the sky is not clear.\n"
    "Step2:How to make the sky not clear: make it cloudy.\n"
    "New question:Would the sky be clear if it was cloudy?\nNew answer:yes",
    # malformed: no format at all
    "Is the man happy?": "Sure! Would the man be happy if he was laughing? I think so.",
}


class ScriptedBackend(Backend):
    """Answers each rewriting prompt from a script keyed by the original question."""

    calls = 0
    failing: ClassVar[set[str]] = set()
    """Questions whose call fails (as a server error would; not part of the cache key)."""

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        super().__init__(spec, args)
        self.script = (json.loads(Path(args["replies"]).read_text(encoding="utf-8"))
                       if "replies" in args else dict(REPLIES))

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            ScriptedBackend.calls += 1
            question = re.findall(r"Original question:(.*)\n", request.prompt)[-1]
            if question in ScriptedBackend.failing:
                yield i, Response(error="HTTP 500 from the test server")
            else:
                yield i, Response(text=self.script.get(question, "no idea"))


SCRIPTED = "test:cvqa-real-scripted"
register("backend", SCRIPTED)(ScriptedBackend)

QUESTIONS = [
    # (question_id, image_id, question, answers)
    (1, 11, "How many birds are there?", ["3"] * 9 + ["4"]),
    (2, 12, "How many zebras are here?", ["2"] * 10),
    (3, 13, "How many dogs are on the grass?", ["four"] * 8 + ["5", "3"]),
    (4, 14, "How many cats are there?", ["0"] * 10),
    (5, 15, "Is the ground wet?", ["no"] * 10),
    (6, 16, "Is the sky clear?", ["yes"] * 10),
    (7, 17, "Is the man happy?", ["no"] * 9 + ["yes"]),
    (8, 18, "How many people are there?", ["2"] * 5 + ["3"] * 5),   # no consensus
    (9, 19, "What color is the bus?", ["red"] * 10),                # neither group
    (10, 99, "How many trains are there?", ["1"] * 10),             # image missing
]


def vqa_files(tmp: Path) -> tuple[Path, Path, Path]:
    """VQAv2-format questions/annotations files and a COCO folder with real photos."""
    qs = {"data_subtype": "val2014", "questions": [
        {"image_id": img, "question": q, "question_id": qid} for qid, img, q, _ in QUESTIONS]}
    anns = {"annotations": [
        {"question_id": qid, "image_id": img, "answer_type": "other",
         "answers": [{"answer": a, "answer_confidence": "yes", "answer_id": k + 1}
                     for k, a in enumerate(answers)]} for qid, img, _, answers in QUESTIONS]}
    (tmp / "q.json").write_text(json.dumps(qs), encoding="utf-8")
    (tmp / "a.json").write_text(json.dumps(anns), encoding="utf-8")
    write_photos(tmp / "coco", [f"COCO_val2014_{img:012d}.jpg" for _, img, _, _ in QUESTIONS
                                if img != 99])
    return tmp / "q.json", tmp / "a.json", tmp / "coco"


def test_prompts_are_verbatim_from_appendix_b(shared_dir: Path) -> None:
    paper = next((shared_dir / "papers").glob("000_*.txt")).read_text(encoding="utf-8")
    for start, end, prompt in (("B.1 Numerical Direct Group", "B.2 Boolean Group",
                                NUMERICAL_DIRECT), ("B.2 Boolean Group", "Appendix C", BOOLEAN)):
        section = paper[paper.index(start):paper.index(end)].splitlines()
        lines = prompt.split("\n")
        assert len(lines) == 77
        for number, line in enumerate(lines, start=1):
            assert f"{number}{line}" in section, (number, line)
    assert "FLip the original Answer" in BOOLEAN
    assert "2-1+2=3\nNew question:How many zebras would there be" in NUMERICAL_DIRECT


def test_build_verifies_flags_and_resumes(tmp_path: Path) -> None:
    q, a, coco = vqa_files(tmp_path)
    store = tmp_path / "store.sqlite"
    ScriptedBackend.calls = 0
    result = build_dataset(tmp_path / "built", questions=q, annotations=a, images=coco,
                           model=SCRIPTED, store=store)
    assert ScriptedBackend.calls == 7 and result.computed == 7
    assert result.outcomes == {"auto-verified": 2, "flagged": 4, "malformed": 1}
    ds = load_dataset(tmp_path / "built")
    assert ds.suite == "cvqa-real"
    cf = {i.pair_id: i for i in ds.items if i.role == "counterfactual"}
    assert set(cf) == {"q1", "q2", "q3", "q4", "q5", "q6"}
    flags = {k: v.meta["flags"] for k, v in cf.items()}
    assert flags["q1"] == [] and flags["q5"] == []
    assert "answer-mismatch" in flags["q2"] and "arithmetic-error" not in flags["q2"]
    assert "arithmetic-error" in flags["q3"]
    assert flags["q4"] == ["leak"]
    assert flags["q6"] == ["not-flipped", "step1-mismatch"]
    assert cf["q5"].target == "yes" and cf["q5"].group == "boolean"
    assert cf["q1"].kind == "number" and cf["q1"].target == "5"
    ori = next(i for i in ds.items if i.id == "q3-ori")
    assert ori.target == "4"  # consensus "four" normalised to digits
    messages = cf["q2"].provenance["checks"]
    assert any("2-1+2 = 3" in m["message"] and "new answer is 1" in m["message"]
               for m in messages)
    assert cf["q1"].provenance["vqa"] == {"question_id": 1, "answer": "3", "agreement": 9,
                                          "annotators": 10}
    log = [json.loads(line) for line in (ds.root / "pipeline.jsonl").read_text().splitlines()]
    malformed = [e for e in log if e["status"] == "malformed"]
    assert [e["question_id"] for e in malformed] == [7]
    assert "no 'Step1'" in malformed[0]["reason"]
    assert ds.card.counts["outcomes"] == {"auto-verified": 2, "flagged": 4, "malformed": 1}
    assert ds.card.counts["qualified_questions"] == 8 and ds.card.counts["with_image"] == 7
    # The built dataset exports in the release format.
    rows = (export_release(ds, tmp_path / "release")).read_text(encoding="utf-8").splitlines()
    assert rows[0] == "img_path,query,answer,new query,new answer,type" and len(rows) == 7
    assert rows[1] == ("COCO_val2014_000000000011.jpg,How many birds are there?,3,"
                       "How many birds would there be if 2 more birds came?,5,direct")
    # A repeat is served by the run store and writes identical bytes.
    again = build_dataset(tmp_path / "again", questions=q, annotations=a, images=coco,
                          model=SCRIPTED, store=store)
    assert ScriptedBackend.calls == 7 and again.from_store == 7 and again.computed == 0
    for name in ("items.jsonl", "card.json", "pipeline.jsonl"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "built" / name).read_bytes()


def test_build_drop_flagged_and_per_group(tmp_path: Path) -> None:
    q, a, coco = vqa_files(tmp_path)
    result = build_dataset(tmp_path / "clean", questions=q, annotations=a, images=coco,
                           model=ScriptedBackend(SCRIPTED, {}), drop_flagged=True,
                           store=tmp_path / "s.sqlite")
    ds = load_dataset(tmp_path / "clean")
    assert sorted(str(i.pair_id) for i in ds.items if i.role == "original") == ["q1", "q5"]
    assert result.outcomes["flagged"] == 4
    one = build_dataset(tmp_path / "one", questions=q, annotations=a, images=coco,
                        model=ScriptedBackend(SCRIPTED, {}), per_group=1, seed=3,
                        store=tmp_path / "s.sqlite")
    assert one.card.counts["selected"] == 2
    groups = sorted({str(i.group) for i in load_dataset(tmp_path / "one").items})
    assert groups == ["boolean", "direct"]


def test_failed_calls_stop_without_output_and_are_retried(tmp_path: Path) -> None:
    q, a, coco = vqa_files(tmp_path)
    store = RunStore(tmp_path / "s.sqlite")
    ScriptedBackend.failing = {"Is the sky clear?"}
    try:
        with pytest.raises(WhatifError, match="1 of 7 model calls failed .*run the same comm"):
            build_dataset(tmp_path / "out", questions=q, annotations=a, images=coco,
                          model=ScriptedBackend(SCRIPTED, {}), store=store)
    finally:
        ScriptedBackend.failing = set()
    assert not (tmp_path / "out").exists()
    ScriptedBackend.calls = 0
    result = build_dataset(tmp_path / "out", questions=q, annotations=a, images=coco,
                           model=ScriptedBackend(SCRIPTED, {}), store=store)
    assert ScriptedBackend.calls == 1 and result.from_store == 6
    store.close()


def test_build_cli_and_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q, a, coco = vqa_files(tmp_path)
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(REPLIES), encoding="utf-8")
    code = main(["build", "cvqa-real", "--vqa-questions", str(q), "--vqa-annotations", str(a),
                 "--images", str(coco), "--model", SCRIPTED, "-M", f"replies={replies}",
                 "--out", str(tmp_path / "cli"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0 and "2 pass every check, 4 flagged, 1 malformed" in err
    ScriptedBackend.calls = 0
    code = main(["build", "cvqa-real", "--vqa-questions", str(q), "--vqa-annotations", str(a),
                 "--images", str(coco), "--model", SCRIPTED, "--out", str(tmp_path / "cli")])
    assert code == 2 and "already exists" in capsys.readouterr().err
    assert ScriptedBackend.calls == 0
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    code = main(["build", "cvqa-real", "--vqa-questions", str(tmp_path / "bad.json"),
                 "--vqa-annotations", str(a), "--images", str(coco), "--model", SCRIPTED,
                 "--out", str(tmp_path / "x")])
    assert code == 2 and "bad.json is not a JSON file" in capsys.readouterr().err
    code = main(["build", "cvqa-real", "--vqa-questions", str(q), "--vqa-annotations", str(a),
                 "--images", str(coco), "--model", SCRIPTED, "--groups", "indirect",
                 "--out", str(tmp_path / "x")])
    assert code == 2 and "written by hand" in capsys.readouterr().err
    code = main(["build", "cvqa-real", "--vqa-questions", str(q), "--vqa-annotations", str(a),
                 "--images", str(coco), "--model", SCRIPTED, "--min-agreement", "11",
                 "--out", str(tmp_path / "x")])
    assert code == 2 and "No question qualifies" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
