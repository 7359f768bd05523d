"""JSON nested deeper than Python's parser can follow (a RecursionError) in the files ``whatif
import hf``, ``whatif import-results`` and ``whatif report`` read: one message naming the file,
exit 2, no traceback, nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.core.jsonfile import MAX_DEPTH, loads

DEEP = "[" * 100_000 + "]" * 100_000
"""Far past Python's recursion limit."""
FAIRLY_DEEP = '{"a": ' * 600 + "1" + "}" * 600
"""Parses, but writing it back (indented) or walking it would recurse too deep."""


def _refused(capsys: pytest.CaptureFixture[str], *names: str) -> str:
    err = capsys.readouterr().err
    assert "nested" in err and "Traceback" not in err and "internal error" not in err, err
    for name in names:
        assert name in err, err
    return err


def test_loads_refuses_deep_nesting_as_invalid_json() -> None:
    for text in (DEEP, FAIRLY_DEEP, '["x", ' * (MAX_DEPTH + 1) + "1" + "]" * (MAX_DEPTH + 1)):
        with pytest.raises(json.JSONDecodeError, match="nested more than"):
            loads(text)
    shallow = '{"a": [[["[[[[", "{{{{\\"["]]], "b": "]]]]"}'
    assert loads(shallow) == json.loads(shallow)
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) == json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)


def test_report_of_a_run_folder_with_nested_results(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    results = tmp_path / "run" / "results.json"
    good = results.read_text()
    for deep in (DEEP, FAIRLY_DEEP):
        capsys.readouterr()
        results.write_text(good.replace('"metrics": {', f'"deep": {deep}, "metrics": {{', 1))
        assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "m")]) == 2
        _refused(capsys, str(results))
        assert not (tmp_path / "m").exists()
    results.write_text(good)
    samples = tmp_path / "run" / "samples.jsonl"
    lines = samples.read_text().splitlines()
    samples.write_text("\n".join([lines[0][:-1] + f', "deep": {DEEP}}}', *lines[1:]]) + "\n")
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "m")]) == 2
    _refused(capsys, f"{samples}:1")


def test_report_with_a_nested_dataset_line_shows_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from whatifbench.report.datasets import _items

    assert set(_items('{"id": "a"}\n' + f'{{"id": "b", "meta": {DEEP}}}\n')) == {"a"}


def test_import_results_with_nested_samples(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    samples = tmp_path / "20260101_000000_samples_whatif_x.jsonl"
    samples.write_text(f'{{"doc_id": 0, "x": {DEEP}}}\n')
    assert main(["import-results", "lmms-eval", str(samples), "--dataset", str(ds),
                 "--out", str(tmp_path / "run")]) == 2
    _refused(capsys, f"{samples}:1")
    assert not (tmp_path / "run").exists()


def test_import_hf_with_a_nested_meta_column(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    pytest.importorskip("datasets")
    from whatifbench.integrations.hf_datasets import export_hf

    ds = make_choice_dataset(tmp_path / "ds")
    done = export_hf(ds, tmp_path / "hf")
    shard = tmp_path / "hf" / done.shards[0]
    table = pq.read_table(shard)
    meta = table.column("meta").to_pylist()
    for deep in (DEEP, FAIRLY_DEEP):
        meta[2] = deep
        pq.write_table(table.set_column(table.column_names.index("meta"), "meta", [meta]),
                       shard)
        assert main(["import", "hf", "--path", str(tmp_path / "hf"), "--out",
                     str(tmp_path / "out")]) == 2
        _refused(capsys, "row 3", "meta")
        assert not (tmp_path / "out").exists()


def test_a_server_reply_nested_too_deep_is_an_item_error(fake_openai: Any) -> None:
    from whatifbench.core.requests import Part, Request, Turn
    from whatifbench.models.openai_compat.backend import OpenAIBackend

    server = fake_openai({"schedule": {"1": "nested"}})
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": server.url, "max_retries": 1,
                                                "backoff": 0.01, "max_connections": 1})
    requests = [Request(f"q{k}", (Turn("user", (Part(text=f"Question {k}?"),)),))
                for k in range(2)]
    got = dict(backend.generate(requests))
    assert all(r.error is None and r.text for r in got.values())  # retried, then answered
    assert sum(r.meta["attempts"] for r in got.values()) == 3
    once = fake_openai({"cycle": ["nested"]})
    backend = OpenAIBackend("openai:fake-vlm", {"base_url": once.url, "max_retries": 0})
    [(_, response)] = list(backend.generate(requests[:1]))
    assert response.error is not None and "not JSON" in response.error
