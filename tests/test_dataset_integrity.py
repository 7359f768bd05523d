"""Issue 11, items 6, 7 and the lone-surrogate case of 10: datasets are what their card says,
stay inside their folder, hold images of a bounded size and text that can be stored."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images
from PIL import Image
from util import make_choice_dataset, png

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.images import MAX_PIXELS, inspect_image
from whatifbench.errors import WhatifError
from whatifbench.report.images import thumbnail_bytes

RUN = ["--model", "builtin:constant", "--no-progress"]


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.png"
    secret.parent.mkdir()
    secret.write_bytes(png((255, 0, 0)))
    return secret


@pytest.mark.parametrize("how", ["file", "folder"])
def test_images_leading_outside_the_dataset_are_refused(
        tmp_path: Path, how: str, fake_openai: object, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    secret = _secret(tmp_path)
    if how == "file":
        (ds / "images" / "img_001.png").unlink()
        (ds / "images" / "img_001.png").symlink_to(secret)
    else:
        (ds / "images").rename(tmp_path / "outside" / "images")
        (ds / "images").symlink_to(tmp_path / "outside" / "images")
    with pytest.raises(WhatifError) as err:
        load_dataset(ds, verify=False)
    assert "outside the dataset folder" in str(err.value) and "items.jsonl:" in str(err.value)
    server = fake_openai({})  # type: ignore[operator]
    assert main(["run", "--suite", str(ds), "--model", "openai:m", "--base-url", server.url,
                 "--no-verify", "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "outside the dataset folder" in capsys.readouterr().err
    assert server.requests() == []  # nothing was uploaded


def test_report_never_embeds_a_file_from_outside(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=1)
    out = tmp_path / "out"
    assert main(["run", "--suite", str(ds), *RUN, "--out", str(out)]) == 0
    (ds / "images" / "img_000.png").unlink()  # replaced by a link after the run
    (ds / "images" / "img_000.png").symlink_to(_secret(tmp_path))
    assert main(["report", str(out), "--out", str(tmp_path / "r")]) == 0
    assert "data:image/jpeg" not in (tmp_path / "r" / "report.html").read_text()


def _tamper(ds: Path, what: str) -> str:
    if what == "card":
        card = json.loads((ds / "card.json").read_text())
        card["hashes"]["images_sha256"] = "0" * 64
        (ds / "card.json").write_text(json.dumps(card))
        return "images_sha256 does not match its own list"
    if what == "items":
        text = (ds / "items.jsonl").read_text().replace("How many dots", "How many DOTS", 1)
        (ds / "items.jsonl").write_text(text)
        return "items.jsonl changed after card.json was written"
    if what == "image":
        (ds / "images" / "img_003.png").write_bytes(png((1, 2, 3)))
        return "images/img_003.png changed after card.json was written"
    (ds / "images" / "img_004.png").unlink()
    lines = [json.loads(x) for x in (ds / "items.jsonl").read_text().splitlines()]
    (ds / "items.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines
                                            if x["pair_id"] != "p4"))
    return "images/img_004.png is listed in card.json but missing"


@pytest.mark.parametrize("what", ["card", "items", "image", "missing"])
def test_runs_verify_the_card_hashes_and_name_what_changed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    needle = _tamper(ds, what)
    assert main(["run", "--suite", str(ds), *RUN, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert needle in err and "--no-verify" in err
    assert not (tmp_path / "out").exists()
    assert main(["run", "--suite", str(ds), *RUN, "--out", str(tmp_path / "out"),
                 "--no-verify"]) == 0
    spec = json.loads((tmp_path / "out" / "results.json").read_text())["runs"][0]["spec"]
    assert spec["dataset"]["hashes_verified"] is False


def test_a_verified_run_says_so(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), *RUN, "--out", str(tmp_path / "out")]) == 0
    spec = json.loads((tmp_path / "out" / "results.json").read_text())["runs"][0]["spec"]
    card = json.loads((ds / "card.json").read_text())
    assert spec["dataset"]["hashes_verified"] is True
    assert spec["dataset"]["images_sha256"] == card["hashes"]["images_sha256"]


def _huge_png(path: Path, side: int = 12000) -> Path:
    Image.new("1", (side, side)).save(path, optimize=True)
    return path


def test_huge_images_are_refused_at_load_and_import(
        tmp_path: Path, shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    huge = _huge_png(tmp_path / "huge.png")
    assert huge.stat().st_size < 1_000_000  # small file, 144 megapixels
    ds = make_choice_dataset(tmp_path / "ds")
    (ds / "images" / "img_002.png").write_bytes(huge.read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no raw PIL warning reaches the user
        with pytest.raises(WhatifError) as err:
            load_dataset(ds)
    text = str(err.value)
    assert "images/img_002.png is 12000×12000 pixels (144.0 megapixels)" in text
    assert f"limit of {MAX_PIXELS / 1e6:g} megapixels" in text and "items.jsonl:5" in text
    images = tmp_path / "coco"
    names = sample_images(shared_dir, images)
    (images / names[0]).write_bytes(huge.read_bytes())
    assert main(["import", "cvqa-real", "--csv", str(sample_csv(shared_dir)), "--images",
                 str(images), "--out", str(tmp_path / "real")]) == 2
    err_text = capsys.readouterr().err
    assert "12000×12000 pixels" in err_text and "Traceback" not in err_text
    assert "DecompressionBomb" not in err_text


def test_pixel_limit_can_be_set_and_thumbnails_stay_small(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.jpg"
    Image.new("RGB", (4000, 3000), (10, 200, 30)).save(big, quality=70)
    assert inspect_image(big)[0] is None
    data = thumbnail_bytes(big, 160)
    assert data is not None
    with Image.open(__import__("io").BytesIO(data)) as thumb:
        assert max(thumb.size) == 160
    monkeypatch.setenv("WHATIF_MAX_PIXELS", "1000000")
    assert "above the limit of 1 megapixels" in str(inspect_image(big)[0])
    assert thumbnail_bytes(big, 161) is None  # never decoded above the limit


def test_a_lone_surrogate_is_refused_with_file_and_line(
        tmp_path: Path, shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    lines = (ds / "items.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace("How many dots", "How many \\ud800 dots")
    lines[3] = lines[3].replace("How many dots", "How many \\ud83d\\ude00 dots")  # a real pair
    (ds / "items.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["run", "--suite", str(ds), *RUN, "--no-verify", "--out",
                 str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "items.jsonl:3: holds a lone surrogate '\\ud800'" in err
    assert "items.jsonl:4" not in err and "internal error" not in err
    release = tmp_path / "cello.jsonl"  # the same check guards the JSONL importers
    record = json.loads((shared_dir / "data/cello/example_record.json").read_text())
    release.write_text(json.dumps(record).replace("?", "\\udfff?", 1) + "\n")
    (tmp_path / "vg").mkdir()
    assert main(["import", "cello", "--jsonl", str(release), "--images", str(tmp_path / "vg"),
                 "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert "cello.jsonl:1: holds a lone surrogate" in err and "internal error" not in err
