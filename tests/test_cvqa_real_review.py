"""Human review sheets: export (CSV, HTML), import (accept/edit/reject/new), the hook."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images, write_photos

from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.item import Item
from whatifbench.errors import WhatifError
from whatifbench.review.api import export_review, import_review
from whatifbench.review.html import CSV_JS
from whatifbench.suites.cvqa.real.importer import import_release
from whatifbench.suites.cvqa.real.release import pair_items


@pytest.fixture()
def sample_ds(tmp_path: Path, shared_dir: Path) -> Path:
    """The release sample imported with real photos."""
    sample_images(shared_dir, tmp_path / "coco")
    import_release(sample_csv(shared_dir), tmp_path / "coco", tmp_path / "ds")
    return tmp_path / "ds"


def read(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write(path: Path, rows: list[dict[str, str]]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_export_csv_and_apply_decisions(tmp_path: Path, sample_ds: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    before = sha256_file(sample_ds / "items.jsonl")
    assert main(["review", "export", str(sample_ds), "--out", str(tmp_path / "s.csv")]) == 0
    rows = read(tmp_path / "s.csv")
    assert len(rows) == 36 and {r["decision"] for r in rows} == {"accept"}
    assert list(rows[0]) == ["key", "decision", "flags", "llm_steps", "image", "group",
                             "question", "answer", "new_question", "new_answer", "comment"]
    # The release's own rows are checked too (a premise that states the answer is flagged).
    pool = next(r for r in rows if r["question"].startswith("How many people appear"))
    assert pool["flags"].startswith("leak:")
    rows[0]["decision"] = "reject"
    rows[14]["decision"] = "edit"
    rows[14]["new_answer"] = "4"
    rows[14]["comment"] = "recounted"
    added = dict(rows[30], key="", decision="new", group="indirect",
                 new_question="How many clock faces would be visible if the clock was covered?",
                 new_answer="1")
    rows.append(added)
    sheet = write(tmp_path / "filled.csv", rows)
    assert main(["review", "import", str(sample_ds), str(sheet), "--out",
                 str(tmp_path / "new")]) == 0
    assert "decisions: 34 accept, 1 edit, 1 new, 1 reject" in capsys.readouterr().out
    new = load_dataset(tmp_path / "new")
    assert sha256_file(sample_ds / "items.jsonl") == before  # input untouched
    pairs = new.pairs()
    assert "real-00001" not in pairs and len(pairs) == 36
    edited = {i.role: i for i in pairs["real-00015"]}
    assert edited["counterfactual"].target == "4"
    assert edited["original"].target == rows[14]["answer"]
    assert edited["counterfactual"].provenance["review"]["changed"] == {"new_answer": ["3", "4"]}
    assert edited["counterfactual"].meta["review"]["comment"] == "recounted"
    hand = {i.role: i for i in pairs["hand-0001"]}
    assert hand["counterfactual"].question == added["new_question"]
    assert hand["counterfactual"].group == "indirect" and hand["original"].kind == "number"
    assert hand["original"].images == (f"images/{added['image']}",)
    assert new.card.counts["review"] == {"accept": 34, "edit": 1, "new": 1, "reject": 1}
    assert new.card.generator["name"] == "review:cvqa-real"
    assert not (new.root / "images" / rows[0]["image"]).exists()


def test_bad_sheets_name_their_lines(tmp_path: Path, sample_ds: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    export_review(sample_ds, tmp_path / "s.csv")
    rows = read(tmp_path / "s.csv")
    rows[1]["new_answer"] = "7"                       # changed but still 'accept' (line 3)
    rows[2]["decision"] = "maybe"                     # line 4
    rows[15]["decision"] = "edit"
    rows[15]["new_answer"] = "lots"                   # line 17, direct group wants digits
    rows.append(dict(rows[4], key="", decision="new", image="COCO_val2014_000000999999.jpg"))
    rows.append(dict(rows[5]))                        # duplicate key
    sheet = write(tmp_path / "bad.csv", rows)
    code = main(["review", "import", str(sample_ds), str(sheet), "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and "line 4: decision 'maybe'" in err and "already appears on line 7" in err
    assert not (tmp_path / "x").exists()
    rows[2]["decision"] = "accept"
    del rows[-1]
    write(sheet, rows)
    code = main(["review", "import", str(sample_ds), str(sheet), "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2
    assert "line 3: changes new_answer but its decision is 'accept'" in err
    assert "line 17: 'new_answer': answer 'lots' is not a non-negative whole number" in err
    assert "line 38: image 'COCO_val2014_000000999999.jpg' is not in the dataset" in err
    assert not (tmp_path / "x").exists()
    write(sheet, rows[:10])
    code = main(["review", "import", str(sample_ds), str(sheet), "--out", str(tmp_path / "x")])
    assert code == 2 and "26 unit(s) of the dataset have no row" in capsys.readouterr().err
    code = main(["review", "import", str(sample_ds), str(tmp_path / "s.csv")])
    assert code == 2 and "--in-place" in capsys.readouterr().err
    code = main(["review", "export", str(sample_ds), "--out", str(tmp_path / "s.csv")])
    assert code == 2 and "already exists" in capsys.readouterr().err
    code = main(["review", "export", str(sample_ds), "--out", str(tmp_path / "s.txt")])
    assert code == 2 and "must end in .csv" in capsys.readouterr().err


def test_in_place_replaces_atomically(tmp_path: Path, sample_ds: Path) -> None:
    export_review(sample_ds, tmp_path / "s.csv")
    rows = read(tmp_path / "s.csv")
    for row in rows[:6]:
        row["decision"] = "reject"
    card = import_review(sample_ds, write(tmp_path / "s.csv", rows), in_place=True)
    assert card.counts["pairs"] == 30
    assert len(load_dataset(sample_ds).pairs()) == 30
    assert [p.name for p in sample_ds.parent.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(WhatifError, match="is the input dataset"):
        import_review(sample_ds, tmp_path / "s.csv", sample_ds)


def built_dataset(tmp_path: Path) -> Path:
    """A small dataset shaped like the pipeline's output: one pair flagged by a check."""
    write_photos(tmp_path / "coco", ["COCO_val2014_000000000001.jpg"])
    image = "COCO_val2014_000000000001.jpg"
    checks = [{"code": "answer-mismatch", "message": "Step2 computes 2-1+2 = 3, but the new "
               "answer is 1."}]
    with DatasetWriter(tmp_path / "built") as writer:
        rel = writer.add_image(image, (tmp_path / "coco" / image).read_bytes())
        writer.add_items(pair_items(
            "q1", rel, "direct", "How many zebras are here?", "2",
            "How many zebras would there be if 1 zebra left and 2 zebras came?", "1",
            {"image": image, "flags": ["answer-mismatch"], "status": "flagged"},
            {"checks": checks, "parsed": {"step1": "1 zebra left and 2 zebras came",
                                          "step2": "The answer would be 2-1+2=3"}}))
        writer.add_items(pair_items(
            "q2", rel, "boolean", "Is the <b>sky</b> clear?", "yes",
            "Would the sky be clear if it was cloudy?</textarea><script>alert(1)</script>",
            "no", {"image": image, "flags": [], "status": "auto-verified"}, {"checks": []}))
        writer.finish(name="built", suite="cvqa-real", version="1",
                      generator={"name": "build:cvqa-real", "params": {}}, seed=0)
    return tmp_path / "built"


def test_flagged_pairs_are_pre_rejected_and_html_is_escaped(tmp_path: Path) -> None:
    ds = built_dataset(tmp_path)
    export_review(ds, tmp_path / "s.csv")
    rows = read(tmp_path / "s.csv")
    assert [r["decision"] for r in rows] == ["reject", "accept"]
    assert rows[0]["flags"].startswith("answer-mismatch: Step2 computes 2-1+2 = 3")
    assert rows[0]["llm_steps"] == ("Step1: 1 zebra left and 2 zebras came | Step2: The answer "
                                    "would be 2-1+2=3")
    card = import_review(ds, tmp_path / "s.csv", tmp_path / "kept")
    assert list(load_dataset(tmp_path / "kept").pairs()) == ["q2"]
    assert card.counts["review"] == {"accept": 1, "reject": 1}
    # Fix the flagged pair by hand: edit its answer to 3.
    rows[0].update(decision="edit", new_answer="3")
    import_review(ds, write(tmp_path / "fixed.csv", rows), tmp_path / "fixed")
    fixed = {i.id: i for i in load_dataset(tmp_path / "fixed").items}
    assert fixed["q1-cf"].target == "3" and fixed["q1-cf"].meta["status"] == "reviewed"
    page = export_review(ds, tmp_path / "s.html").read_text(encoding="utf-8")
    assert page.count("data:image/jpeg;base64,") == 2
    assert "<script>alert(1)</script>" not in page and "</textarea><script>" not in page
    assert "&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Is the &lt;b&gt;sky&lt;/b&gt; clear?" in page
    assert "http://" not in page and "https://" not in page  # self-contained
    assert "s.csv" in page and "<option selected>reject</option>" in page


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_html_csv_quoting_reads_back_in_python(tmp_path: Path) -> None:
    values = ["plain", 'say "hi"', "a,b", "two\nlines", "", "ünï", "x\r\ny"]
    script = CSV_JS + f"\nprocess.stdout.write(csvLine({json.dumps(values)}) + '\\n');"
    out = subprocess.run(["node", "-e", script], capture_output=True, check=True, timeout=30)
    text = out.stdout.decode("utf-8")
    assert list(csv.reader(io.StringIO(text, newline=""), strict=True)) == [values]
    # The page's whole script is valid JavaScript.
    page = export_review(built_dataset(tmp_path), tmp_path / "s.html").read_text()
    script = page[page.index("<script>") + 8:page.index("</script>")]
    (tmp_path / "page.js").write_text(script, encoding="utf-8")
    subprocess.run(["node", "--check", str(tmp_path / "page.js")], check=True, timeout=30)


def test_review_hook_dispatches_by_card(tmp_path: Path) -> None:
    write_photos(tmp_path / "img", ["a.jpg"])
    for suite, extra in (("cvqa-synthetic", {}), ("cvqa-synthetic", {"review": "cvqa-real"})):
        out = tmp_path / f"{suite}-{len(extra)}"
        with DatasetWriter(out) as writer:
            rel = writer.add_image("a.jpg", (tmp_path / "img" / "a.jpg").read_bytes())
            writer.add_items([
                Item("p-ori", (rel,), "How many dots?", "number", "3", pair_id="p",
                     role="original", group="direct"),
                Item("p-cf", (rel,), "How many dots would there be if 1 was removed?", "number",
                     "2", pair_id="p", role="counterfactual", group="direct")])
            writer.finish(name="x", suite=suite, version="1", generator={}, seed=0, extra=extra)
        if extra:
            assert len(read(export_review(out, tmp_path / "hook.csv"))) == 1
        else:
            with pytest.raises(WhatifError, match="has no review sheet; review sheets exist "
                                                  "for: cvqa-real"):
                export_review(out, tmp_path / "none.csv")
