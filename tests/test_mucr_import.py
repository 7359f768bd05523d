"""MuCR release import: the record template's format (with its quirks) and every bad input."""

from __future__ import annotations

import inspect
import json
import re
from collections import Counter
from pathlib import Path
from typing import get_args

import pytest
from mucr_util import make_records, photo, write_release

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.private import read_private
from whatifbench.errors import WhatifError
from whatifbench.suites.mucr.importer import Reading, dataset_name, import_mucr, importer_namer
from whatifbench.suites.mucr.reasons import DEFAULT_READING, READINGS


def stored(name: str) -> str:
    """Where the import stores a release image (an opaque name under the test's home secret;
    seed 0)."""
    return f"images/{dataset_name(name, importer_namer(None, 0))}"


def _import(tmp_path: Path, release_dir: str = "release", **kw: object) -> Path:
    rel = write_release(tmp_path / release_dir, **kw)  # type: ignore[arg-type]
    out = tmp_path / "ds"
    assert main(["import", "mucr", "--jsonl", str(rel.jsonl), "--images", str(rel.images),
                 "--out", str(out)]) == 0
    return out


def test_template_format_imports_four_items_per_pair(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    rel = write_release(tmp_path / "release", template_layout=True)
    before = {p: p.read_bytes() for p in (tmp_path / "release").rglob("*") if p.is_file()}
    out = tmp_path / "ds"
    assert main(["import", "mucr", "--jsonl", str(rel.jsonl), "--images", str(rel.images),
                 "--out", str(out), "--causal-reason", "parts"]) == 0
    assert "Wrote 32 items (8 pairs)" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in before} == before  # inputs untouched
    ds = load_dataset(out)
    assert ds.card.suite == "mucr" and ds.card.counts["groups"] == 2
    truth = {str(r["id"]): r for r in rel.records}
    by_pair = ds.pairs()
    assert len(by_pair) == 8
    for pid, items in by_pair.items():
        r = truth[pid]
        assert [i.group for i in items] == ["c2e", "e2c", "cue", "exp"]
        assert [i.role for i in items] == ["c2e", "e2c", "cue", "exp"]
        c2e, e2c, cue, exp = items
        group = {str(x) for x in json.loads(str(r["link_id"]).replace("'", '"'))} \
            if isinstance(r["link_id"], str) else {str(x) for x in r["link_id"]}
        # C2E: the cause, then the effects of the group's four pairs; the target is the true one.
        assert c2e.images[0] == stored(r["image_0"])
        effects = {stored(truth[x]["image_1"]) for x in group | {pid}}
        assert set(c2e.images[1:]) == effects
        assert c2e.images[1 + "ABCD".index(c2e.target)] == stored(r["image_1"])
        assert c2e.meta["image_labels"] == ["Cause", "A", "B", "C", "D"]
        assert e2c.images[0] == stored(r["image_1"])
        assert e2c.images[1 + "ABCD".index(e2c.target)] == stored(r["image_0"])
        assert e2c.meta["image_labels"] == ["Effect", "A", "B", "C", "D"]
        assert cue.target == r["cue"] and set(cue.choices) == {r["cue"], *r["false_cue"]}
        assert cue.images == (stored(r["image_0"]), stored(r["image_1"]))
        assert exp.kind == "text" and exp.meta["references"] == [[t] for t in r["causal_reason"]]
        assert exp.target.splitlines() == [f"{k}. {t}" for k, t in
                                           enumerate(r["causal_reason"], 1)]
        for item in items:
            assert item.meta["category"] == r["label"] and item.meta["style"] == r["style"]
            # the release's names (cause_001.png ...) only in the private file
            names = read_private(out)["images"]
            assert [stored(names[p]) for p in item.images] == list(item.images)
            assert "image_names" not in item.provenance
            assert all(re.fullmatch(r"images/[0-9a-f]{16}\.(png|jpe?g)", path)
                       for path in item.images), item.images
    # Images are stored byte for byte (PNG and JPEG alike), under opaque names.
    for r in rel.records:
        for key in ("image_0", "image_1"):
            assert (out / stored(r[key])).read_bytes() == (rel.images / r[key]).read_bytes()
    # Positions are balanced: each letter is correct for two of the eight pairs per metric.
    for metric in ("c2e", "e2c", "cue"):
        targets = [i for i in ds.items if i.group == metric]
        letters = Counter("ABCD"[i.target_index] for i in targets)
        assert letters == {"A": 2, "B": 2, "C": 2, "D": 2}, (metric, letters)


def test_quirks_tolerated_and_link_forms_equivalent(tmp_path: Path) -> None:
    plain = make_records()
    quirky = make_records(link_string=True)
    for k, r in enumerate(quirky):
        r["label"] = r["label"].capitalize() + "s"  # "Humans", "Animals" ...
        r["style"] = {"photograph": "Photo", "comic": "Cartoon"}[r["style"]]
        if k % 3 == 0:
            r["flase_cue"] = r.pop("false_cue")
        elif k % 3 == 1:
            cues = r.pop("false_cue")
            r.update({"false_cue1": cues[0], "false_cue2": cues[1], "flase_cue3": cues[2]})
        if k == 2:
            r["link_id"] = "['1', '2', '4']"  # quoted ids
        r["id"] = str(r["id"])
    out_a = tmp_path / "a"
    out_b = tmp_path / "b"
    ra = write_release(tmp_path / "ra", plain)
    rb = write_release(tmp_path / "rb", quirky)
    import_mucr(ra.jsonl, ra.images, out_a)
    import_mucr(rb.jsonl, rb.images, out_b)
    items_a = load_dataset(out_a).items
    items_b = load_dataset(out_b).items
    strip = [(i.id, i.images, i.question, i.choices, i.target, i.meta) for i in items_a]
    assert strip == [(i.id, i.images, i.question, i.choices, i.target, i.meta) for i in items_b]


def test_json_array_input(tmp_path: Path) -> None:
    rel = write_release(tmp_path / "release")
    array = tmp_path / "release" / "array.json"
    array.write_text(json.dumps(rel.records, indent=2), encoding="utf-8")
    import_mucr(array, rel.images, tmp_path / "ds")
    assert len(load_dataset(tmp_path / "ds").items) == 32


def test_import_is_deterministic_and_seeded(tmp_path: Path) -> None:
    rel = write_release(tmp_path / "release")
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        import_mucr(rel.jsonl, rel.images, tmp_path / name, seed=seed)
    a, b, c = [(tmp_path / n / "items.jsonl").read_bytes() for n in "abc"]
    assert a == b and a != c
    card = "card.json"
    assert (tmp_path / "a" / card).read_bytes() == (tmp_path / "b" / card).read_bytes()
    targets_a = [i.target for i in load_dataset(tmp_path / "a").items if i.group == "c2e"]
    targets_c = [i.target for i in load_dataset(tmp_path / "c").items if i.group == "c2e"]
    assert targets_a != targets_c


def _fails(tmp_path: Path, records: list[dict], capsys: pytest.CaptureFixture[str],
           setup: object = None) -> str:
    rel = write_release(tmp_path / "release", records)
    if callable(setup):
        setup(rel)
    before = {p: p.read_bytes() for p in (tmp_path / "release").rglob("*") if p.is_file()}
    out = tmp_path / "ds"
    code = main(["import", "mucr", "--jsonl", str(rel.jsonl), "--images", str(rel.images),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ds")]  # no staging left
    assert {p: p.read_bytes() for p in before} == before
    return err


def test_missing_linked_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = make_records()
    del records[3]  # pair 4 is linked by pairs 1-3
    err = _fails(tmp_path, records, capsys)
    assert "mucr.jsonl:1: pair '1' links to '4', which the file does not contain" in err
    assert "mucr.jsonl:3:" in err and "has 3 problems" in err


def test_inconsistent_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = make_records()
    records[0]["link_id"] = [2, 3, 5]  # pair 5 belongs to the other group
    err = _fails(tmp_path, records, capsys)
    assert "mucr.jsonl:1: pair '1' forms the group ['1', '2', '3', '5']" in err


def test_missing_and_corrupt_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def damage(rel: object) -> None:
        (rel.images / "cause_002.png").unlink()  # type: ignore[attr-defined]
        (rel.images / "effect_005.png").write_bytes(b"not a png")  # type: ignore[attr-defined]

    err = _fails(tmp_path, make_records(), capsys, damage)
    assert "mucr.jsonl:2: image_0 cause_002.png" in err and "is missing" in err
    assert "mucr.jsonl:5: image_1 effect_005.png" in err and "cannot be read as an image" in err


def test_malformed_line_and_bad_fields_all_reported(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    records = make_records()
    records[6]["label"] = 7  # not a text (an unknown text is kept; see the template test)
    records[7]["false_cue"] = ["only one"]
    rel = write_release(tmp_path / "release", records)
    lines = rel.jsonl.read_text().splitlines()
    lines[1] = lines[1][:40]  # truncated JSON on line 2
    rel.jsonl.write_text("\n".join(lines) + "\n")
    out = tmp_path / "ds"
    code = main(["import", "mucr", "--jsonl", str(rel.jsonl), "--images", str(rel.images),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "mucr.jsonl:2: not valid JSON" in err
    assert "mucr.jsonl:7: 'label' must be a non-empty text such as 'human', got 7" in err
    assert "mucr.jsonl:8: 'false_cue' must be a list of three" in err
    assert "links to '2'" not in err  # links to a broken record are not reported twice
    assert "Traceback" not in err


def test_duplicate_id_and_same_cue_twice(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    records = make_records()
    records.append(dict(records[4]))
    records[0]["false_cue"][0] = records[0]["cue"].upper()
    err = _fails(tmp_path, records, capsys)
    assert "mucr.jsonl:9: duplicate id '5' (first on line 5)" in err
    assert "mucr.jsonl:1: the cue 'cue phrase 1' and false cues" in err


@pytest.mark.parametrize("what", ["jsonl", "images"])
def test_missing_input_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    rel = write_release(tmp_path / "release")
    args = {"jsonl": str(rel.jsonl), "images": str(rel.images)}
    args[what] = str(tmp_path / "nowhere")
    code = main(["import", "mucr", "--jsonl", args["jsonl"], "--images", args["images"],
                 "--out", str(tmp_path / "ds")])
    err = capsys.readouterr().err
    assert code == 2 and "nowhere" in err and "does not exist" in err
    assert not (tmp_path / "ds").exists()


def test_existing_output_needs_overwrite(tmp_path: Path) -> None:
    rel = write_release(tmp_path / "release")
    import_mucr(rel.jsonl, rel.images, tmp_path / "ds")
    with pytest.raises(WhatifError, match="--overwrite"):
        import_mucr(rel.jsonl, rel.images, tmp_path / "ds")
    import_mucr(rel.jsonl, rel.images, tmp_path / "ds", seed=3, overwrite=True)
    assert load_dataset(tmp_path / "ds").card.seed == 3


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rel = write_release(tmp_path / "release")
    rel.jsonl.write_text("\n\n")
    code = main(["import", "mucr", "--jsonl", str(rel.jsonl), "--images", str(rel.images),
                 "--out", str(tmp_path / "ds")])
    assert code == 2 and "holds no records" in capsys.readouterr().err
    assert not (tmp_path / "ds").exists()


def _template_group(shared_dir: Path) -> list[dict]:
    """The release README's record template (shared data), verbatim but for the four ids of a
    group and their links."""
    template = json.loads((shared_dir / "data" / "mucr" / "record_template.json").read_text())
    ids = ["ID", "a", "b", "c"]
    return [{**template, "id": rid, "link_id": "[" + ",".join(i for i in ids if i != rid) + "]"}
            for rid in ids]


def test_the_readme_template_imports(tmp_path: Path, shared_dir: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Its placeholders 'label' and 'style' are kept as categories of their own (one warning);
    its image names have spaces and no extension."""
    records = _template_group(shared_dir)
    assert records[1]["label"] == "label" and records[1]["image_0"] == "cause image"
    src = tmp_path / "template.json"
    src.write_text("\n".join(json.dumps(r, indent=1) for r in records))  # pretty-printed
    images = tmp_path / "images"
    images.mkdir()
    photo("astronaut").save(images / "cause image", format="PNG")
    photo("coffee").save(images / "effect image", format="JPEG")
    out = tmp_path / "ds"
    assert main(["import", "mucr", "--jsonl", str(src), "--images", str(images), "--out",
                 str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("warning") == 1
    assert "label 'label' (4)" in err and "style 'style' (4)" in err and "kept as given" in err
    ds = load_dataset(out)
    assert len(ds.items) == 16
    assert ds.card.counts["pairs_by_category"] == {"human": 0, "animal": 0, "plant": 0,
                                                   "character": 0, "mixture": 0, "label": 4}
    assert ds.card.counts["pairs_by_style"] == {"photograph": 0, "comic": 0, "style": 4}
    assert ds.card.counts["unknown_labels"] == {"label": 4}
    assert ds.card.generator["params"]["causal_reason"] == "annotators"
    exp = next(i for i in ds.items if i.id == "ID-exp")
    assert exp.meta["category"] == "label" and exp.meta["style"] == "style"
    # annotators: each placeholder is one whole explanation, the reference of every part
    assert exp.meta["references"] == [["Explanation_1", "Explanation_2", "Explanation_3"]] * 3
    assert exp.meta["reference_reading"] == "annotators"
    assert main(["run", "--suite", str(out), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    metrics = json.loads((tmp_path / "run" / "results.json").read_text())["runs"][0]["metrics"]
    assert set(metrics["by_category"]) == {"label"} and set(metrics["by_style"]) == {"style"}
    assert "label" in (tmp_path / "run" / "report.md").read_text()


ANNOTATORS = [
    ("The cause image shows a man under dark clouds. The effect image shows him soaked. The "
    "clouds brought rain."),
    "1. A man walks as clouds gather.\n2. The man is wet through.\n3. Bad weather: it rained.",
    ["A cloudy sky over a walker.", "A drenched walker.", "The storm broke."],
    "He got wet.",
]


def test_causal_reason_readings(tmp_path: Path) -> None:
    records = make_records(groups=1)
    records[0]["causal_reason"] = ANNOTATORS
    rel = write_release(tmp_path / "release", records)
    import_mucr(rel.jsonl, rel.images, tmp_path / "ann")
    exp = next(i for i in load_dataset(tmp_path / "ann").items if i.id == "1-exp")
    assert exp.meta["references"] == [
        ["The cause image shows a man under dark clouds.", "A man walks as clouds gather.",
         "A cloudy sky over a walker.", "He got wet."],
        ["The effect image shows him soaked.", "The man is wet through.", "A drenched walker.",
         "He got wet."],
        ["The clouds brought rain.", "Bad weather: it rained.", "The storm broke.",
         "He got wet."]]
    assert exp.target == ("1. The cause image shows a man under dark clouds.\n2. The effect "
                          "image shows him soaked.\n3. The clouds brought rain.")
    # the later README's single string is one annotator's explanation
    records[0]["causal_reason"] = ANNOTATORS[0]
    rel = write_release(tmp_path / "one", records)
    import_mucr(rel.jsonl, rel.images, tmp_path / "one-ds")
    exp = next(i for i in load_dataset(tmp_path / "one-ds").items if i.id == "1-exp")
    assert [len(refs) for refs in exp.meta["references"]] == [1, 1, 1]
    # the parts reading needs three entries
    with pytest.raises(WhatifError, match="must hold three explanations .*import with "
                                          "--causal-reason annotators"):
        import_mucr(rel.jsonl, rel.images, tmp_path / "parts", causal_reason="parts")
    with pytest.raises(WhatifError, match="--causal-reason must be one of annotators, parts, "
                                          "got 'sentences'"):
        import_mucr(rel.jsonl, rel.images, tmp_path / "x",
                    causal_reason="sentences")  # type: ignore[arg-type]


def test_the_declared_readings_are_the_readings() -> None:
    """``--causal-reason``'s choices and default (the entry's signature) are ``reasons``'."""
    assert get_args(Reading) == READINGS
    assert inspect.signature(import_mucr).parameters["causal_reason"].default == DEFAULT_READING
