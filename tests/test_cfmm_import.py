"""``whatif import cfmm``: good JSONL and CSV files, and every kind of bad file (case table)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cfmm_util import good_records, write_csv, write_images, write_jsonl

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset

CASES = json.loads((Path(__file__).parent / "cases" / "cfmm_import.json").read_text())["cases"]


def _snapshot(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _import(fmt: str, path: Path, images: Path, out: Path, *extra: str) -> int:
    return main(["import", "cfmm", f"--{fmt}", str(path), "--images", str(images),
                 "--out", str(out), *extra])


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_good_file(tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    records = good_records()
    records[3]["image"] = records[2]["image"]  # two pairs may share an image
    images = write_images(tmp_path / "imgs", records)
    write = write_jsonl if fmt == "jsonl" else write_csv
    source = write(tmp_path / f"pairs.{fmt}", records)
    before = _snapshot(tmp_path)
    assert _import(fmt, source, images, tmp_path / "ds") == 0
    assert "Wrote 24 items (12 pairs)" in capsys.readouterr().out
    assert _snapshot(tmp_path / "imgs") == {p: b for p, b in before.items() if "imgs" in p.parts}
    assert source.read_bytes() == before[source]

    ds = load_dataset(tmp_path / "ds")
    assert ds.suite == "cfmm" and ds.card.seed is None
    assert ds.card.generator["params"]["format"] == fmt
    assert ds.card.generator["params"]["images"] == 11
    assert ds.card.counts["by_role"] == {"basic": 12, "counterfactual": 12}
    assert ds.card.extra["answer_changed_percent"] == 100.0
    assert ds.card.extra["correct_option_percent"] == {"A": 50.0, "B": 50.0}
    assert ds.card.extra["pairs_by_category"] == {c: 2 for c in
                                                  ("count", "color", "size", "shape",
                                                   "direction", "common")}
    basic, cf = ds.items[0], ds.items[1]
    assert (basic.id, basic.role, cf.id, cf.role) == ("count-0-b", "basic", "count-0-c",
                                                      "counterfactual")
    assert basic.pair_id == cf.pair_id == "count-0" and basic.group == "count"
    assert basic.kind == "choice" and basic.choices == ("2", "3") and basic.target == "2"
    assert cf.target == "3" and cf.images == ("images/count.png",)
    assert basic.provenance["explanation"] == "The image shows 2."
    assert cf.provenance["explanation"].endswith("becomes 3.")
    line = 1 if fmt == "jsonl" else 2
    assert cf.provenance["source"] == f"pairs.{fmt}:{line}"
    assert "explanation" not in ds.items[2].provenance  # count-1 has no basic explanation
    assert ds.items[3].images == ("images/sub/count_1.png",)
    assert ds.items[6].images == ds.items[4].images  # shared image copied once
    assert (tmp_path / "ds" / "images" / "sub" / "count_1.png").read_bytes() == \
        (images / "sub" / "count_1.png").read_bytes()


def test_jsonl_and_csv_give_the_same_items_and_imports_are_deterministic(tmp_path: Path) -> None:
    records = good_records()
    images = write_images(tmp_path / "imgs", records)
    jsonl = write_jsonl(tmp_path / "p.jsonl", records)
    csv_file = write_csv(tmp_path / "p.csv", records)
    for n, (fmt, path) in enumerate([("jsonl", jsonl), ("jsonl", jsonl), ("csv", csv_file)]):
        assert _import(fmt, path, images, tmp_path / f"ds{n}") == 0
    assert _snapshot(tmp_path / "ds0") == {tmp_path / "ds0" / p.relative_to(tmp_path / "ds1"): b
                                           for p, b in _snapshot(tmp_path / "ds1").items()}

    def strip(ds: Path) -> list[dict[str, Any]]:
        items = [json.loads(x) for x in (ds / "items.jsonl").read_text().splitlines()]
        for item in items:
            item["provenance"].pop("source")
        return items

    assert strip(tmp_path / "ds0") == strip(tmp_path / "ds2")


def test_csv_quoting_bom_and_spaces(tmp_path: Path) -> None:
    records = good_records(1)
    records[0]["basic_question"] = 'How many "cups", saucers\nand plates?'
    records[0]["basic_option_b"] = " 3 "
    images = write_images(tmp_path / "imgs", records)
    path = write_csv(tmp_path / "p.csv", records)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # a UTF-8 byte-order mark
    assert _import("csv", path, images, tmp_path / "ds") == 0
    first = load_dataset(tmp_path / "ds").items[0]
    assert first.question == 'How many "cups", saucers\nand plates?'
    assert first.choices == ("2", "3")
    assert load_dataset(tmp_path / "ds").items[2].provenance["source"] == "p.csv:4"


def _needles(case: dict[str, Any], fmt: str, path: Path, lines: list[int]) -> list[str]:
    needles = case["needles"]
    if isinstance(needles, dict):
        needles = needles[fmt]

    def fill(text: str) -> str:
        text = re.sub(r"\{at:(\d+)\}", lambda m: f"{path}:{lines[int(m.group(1))]}", text)
        text = re.sub(r"\{line:(\d+)\}", lambda m: str(lines[int(m.group(1))]), text)
        return text.replace("{file}", str(path))

    return [fill(n) for n in needles]


BAD_FILES = [(case, fmt) for case in CASES for fmt in case.get("formats", ["jsonl", "csv"])]
"""Each bad-file case in every format that can express it (a non-JSON line has no CSV form)."""


@pytest.mark.parametrize(("case", "fmt"), BAD_FILES,
                         ids=[f"{c['name']}-{f}" for c, f in BAD_FILES])
def test_bad_file_gives_one_message_and_no_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: dict[str, Any],
        fmt: str) -> None:
    good = good_records()
    images = write_images(tmp_path / "imgs", good)
    records: list[Any] = [dict(r) for r in good[:case.get("keep", len(good))]]
    for index, edits in case.get("edits", {}).items():
        for key, value in edits.items():
            if value is None:
                records[int(index)].pop(key)
            else:
                records[int(index)][key] = value
    for index, raw in case.get("raw", {}).items():
        records[int(index)] = raw
    for name in case.get("corrupt", []):
        (images / name).write_bytes(b"\x89PNG\r\n\x1a\n not really a picture")
    path = (write_jsonl if fmt == "jsonl" else write_csv)(tmp_path / f"in.{fmt}", records)
    lines = [i + (1 if fmt == "jsonl" else 2) for i in range(len(records))]
    before = _snapshot(tmp_path)

    code = _import(fmt, path, images, tmp_path / "out" / "ds")
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("whatif: error:") == 1 and "Traceback" not in err
    for needle in _needles(case, fmt, path, lines):
        assert needle in err
    assert not (tmp_path / "out" / "ds").exists()
    assert not list((tmp_path / "out").glob(".*")) if (tmp_path / "out").exists() else True
    assert _snapshot(tmp_path) == before


def test_csv_structure_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = good_records(1)
    images = write_images(tmp_path / "imgs", records)
    path = write_csv(tmp_path / "p.csv", records)
    header, *rows = path.read_text().splitlines()
    path.write_text("\n".join([header.replace(",basic_answer", ""), *rows]) + "\n")
    assert _import("csv", path, images, tmp_path / "ds") == 2
    err = capsys.readouterr().err
    assert f"{path}:1: the header lacks the column(s) basic_answer" in err
    path.write_text("\n".join([header, rows[0] + ",extra", *rows[1:]]) + "\n")
    assert _import("csv", path, images, tmp_path / "ds") == 2
    err = capsys.readouterr().err
    assert f"{path}:2: 14 cells but the header has 13 columns" in err
    assert not (tmp_path / "ds").exists()


def test_output_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = good_records(1)
    images = write_images(tmp_path / "imgs", records)
    path = write_jsonl(tmp_path / "p.jsonl", records)
    before = _snapshot(images)
    assert _import("jsonl", path, images, images, "--overwrite") == 2
    assert "would replace it" in capsys.readouterr().err
    assert _import("jsonl", path, images, tmp_path, "--overwrite") == 2
    assert "would replace it" in capsys.readouterr().err
    assert _snapshot(images) == before
    assert _import("jsonl", path, tmp_path / "nowhere", tmp_path / "ds") == 2
    assert "The images folder" in capsys.readouterr().err
    assert _import("jsonl", tmp_path / "none.jsonl", images, tmp_path / "ds") == 2
    assert "does not exist" in capsys.readouterr().err
    assert _import("jsonl", path, images, tmp_path / "ds") == 0
    assert _import("jsonl", path, images, tmp_path / "ds") == 2
    assert "--overwrite" in capsys.readouterr().err
    assert _import("jsonl", path, images, tmp_path / "ds", "--overwrite") == 0


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_round_trip(tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    records = good_records()
    images = write_images(tmp_path / "imgs", records)
    assert _import("jsonl", write_jsonl(tmp_path / "p.jsonl", records), images,
                   tmp_path / "ds") == 0
    exported = tmp_path / f"export.{fmt}"
    assert main(["export", str(tmp_path / "ds"), "--format", f"cfmm-{fmt}", "--out",
                 str(exported)]) == 0
    if fmt == "jsonl":
        assert [json.loads(x) for x in exported.read_text().splitlines()] == records
    else:
        assert exported.read_text().splitlines()[0].split(",")[:3] == ["id", "image", "category"]
    assert _import(fmt, exported, tmp_path / "ds" / "images", tmp_path / "again") == 0

    def items(ds: Path) -> list[dict[str, Any]]:
        out = [json.loads(x) for x in (ds / "items.jsonl").read_text().splitlines()]
        for item in out:
            item["provenance"].pop("source")
        return out

    assert items(tmp_path / "again") == items(tmp_path / "ds")
    assert main(["export", str(tmp_path / "ds"), "--format", f"cfmm-{fmt}", "--out",
                 str(exported)]) == 2
    assert "--overwrite" in capsys.readouterr().err
