"""`whatif export-replies`: a run's replies as the C-VQA release's response CSV, plus our paper
parse in the form the release's format_response.py writes, consistent with results.json."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.models.base import Backend
from whatifbench.suites.cvqa.real.importer import import_release

CASES = json.loads((Path(__file__).parent / "cases" / "cvqa_real_paper_parser.json")
                   .read_text(encoding="utf-8"))["cases"]
NUMERIC = [c for c in CASES if c["kind"] == "number"]
BOOLEAN = [c for c in CASES if c["kind"] == "boolean"]


def case_for(item_id: str, kind: str) -> dict:
    """A case-table reply chosen by the item's id (deterministic)."""
    table = NUMERIC if kind == "number" else BOOLEAN
    return table[int(hashlib.sha256(item_id.encode()).hexdigest(), 16) % len(table)]


@register("backend", "test:case-replies")
class CaseReplies(Backend):
    """Replies with adversarial replies of the paper parser's case table."""

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            assert request.item is not None
            yield i, Response(text=case_for(request.item_id, request.item.kind)["reply"])


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_export_replies_writes_the_release_files(tmp_path: Path, shared_dir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    sample_images(shared_dir, tmp_path / "coco")
    import_release(sample_csv(shared_dir), tmp_path / "coco", tmp_path / "ds")
    run = tmp_path / "run"
    assert main(["run", "--suite", str(tmp_path / "ds"), "--model", "test:case-replies",
                 "--prompt", "paper", "--parser", "paper", "--out", str(run),
                 "--no-progress"]) == 0
    assert main(["export-replies", str(run), "--out", str(tmp_path / "x")]) == 0
    names = sorted(p.name for p in (tmp_path / "x").iterdir() if p.name != ".whatifbench")
    assert names == ["cvqa-real_test_case-replies_responses.csv",
                     "cvqa-real_test_case-replies_results_whatif.csv"]
    assert (tmp_path / "x" / names[1]).read_bytes().count(b"\r\n") == 37  # as csv writes
    raw = _rows(tmp_path / "x" / names[0])
    parsed = _rows(tmp_path / "x" / names[1])
    release = _rows(sample_csv(shared_dir))
    assert list(raw[0]) == ["img_path", "query", "answer", "new query", "new answer", "type",
                            "response", "new_response"]
    assert len(raw) == len(parsed) == len(release) == 36
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    by_pair = {(s["pair_id"], s["role"]): s for s in samples}
    for k, (r, p, rel) in enumerate(zip(raw, parsed, release, strict=True)):
        # the question table is the release's row; the replies are the model's, verbatim
        assert {key: r[key] for key in rel} == rel
        for role, column in (("original", "response"), ("counterfactual", "new_response")):
            sample = by_pair[(f"real-{k + 1:05d}", role)]
            assert r[column] == sample["response"]
            case = case_for(sample["item_id"], "number" if rel["type"] != "boolean"
                            else "yes-no")
            want = case["expect"] if case["expect"] is not None else (
                "release-crash" if case.get("flag") else "fail")
            assert p[column] == want
            assert (sample["parses"]["paper"] or "fail") == (want if case["expect"] else "fail")
    # calc_acc.py's rule (text equality over every row of a type) gives results.json's numbers
    metrics = json.loads((run / "results.json").read_text())["runs"][0]["metrics"]
    for group in ("direct", "indirect", "boolean"):
        rows = [p for p in parsed if p["type"] == group]
        ori = 100 * sum(p["response"] == p["answer"] for p in rows) / len(rows)
        cf = 100 * sum(p["new_response"] == p["new answer"] for p in rows) / len(rows)
        got = metrics["by_group"][group]
        assert got["original_accuracy"] == pytest.approx(ori, abs=0.01)
        assert got["counterfactual_accuracy"] == pytest.approx(cf, abs=0.01)
        assert got["drop"] == pytest.approx(ori - cf, abs=0.02)


def test_export_replies_refuses_other_runs(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=2)  # a C-VQA-Synthetic dataset
    assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--out", str(run),
                 "--no-progress"]) == 0
    assert main(["export-replies", str(run), "--out", str(tmp_path / "x")]) == 2
    assert "holds no C-VQA-Real run" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
