"""Release interop: export to / import from the C-VQA-Synthetic CSV, and every bad input."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from PIL import Image

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.release import HEADER

SAMPLE = "data/cvqa/C-VQA-Synthetic_questions_sample.csv"
KEYS = ("id", "question", "choices", "target", "group", "pair_id", "role", "images")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rel") / "suite"
    CvqaSyntheticGenerator.generate(out, per_template=3, seed=7, workers=1, design="paper")
    return out


def release(shared_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the release sample CSV and stand-in PNGs named as its img_paths."""
    csv_path = tmp_path / "questions.csv"
    shutil.copyfile(shared_dir / SAMPLE, csv_path)
    images = tmp_path / "images"
    images.mkdir()
    for line in csv_path.read_text().splitlines()[1:]:
        Image.new("RGB", (8, 8), "white").save(images / line.split(",", 1)[0])
    return csv_path, images


def fields(folder: Path) -> list[tuple[object, ...]]:
    return [tuple(getattr(i, k) for k in KEYS) for i in load_dataset(folder).items]


def leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith(".")]


def test_generate_export_import_round_trip(generated: Path, tmp_path: Path) -> None:
    out = tmp_path / "release"
    assert main(["export", str(generated), "--format", "cvqa-csv", "--out", str(out)]) == 0
    lines = (out / "questions.csv").read_text().splitlines()
    assert lines[0] == ",".join(HEADER) and len(lines) == 1 + 18
    assert lines[1].startswith("abs_counting_000001.png,How many flowers are ")
    assert lines[-1].endswith(",abs_counting_6")
    assert min(p.name for p in (out / "images").iterdir()) == "abs_counting_000001.png"
    back = tmp_path / "back"
    assert main(["import", "cvqa-synthetic", "--csv", str(out / "questions.csv"), "--images",
                 str(out / "images"), "--out", str(back)]) == 0
    assert fields(back) == fields(generated)
    for item in load_dataset(back).items:
        assert (back / item.images[0]).read_bytes() == (generated / item.images[0]).read_bytes()


def test_release_sample_imports_verbatim_and_reexports_identically(
        shared_dir: Path, tmp_path: Path) -> None:
    csv_path, images = release(shared_dir, tmp_path)
    data_dir = tmp_path / "ds"
    assert main(["import", "cvqa-synthetic", "--csv", str(csv_path), "--images", str(images),
                 "--out", str(data_dir)]) == 0
    data = load_dataset(data_dir)
    assert len(data.items) == 60 and data.card.seed is None
    rows = [line.split(",") for line in csv_path.read_text().splitlines()[1:]]
    first = {i.id: i for i in data.items}["abs_counting_000061:original"]
    assert first.question == rows[0][1]  # verbatim
    assert first.choices == ("16", "21", "18", "23") and first.target == "21"  # answer B
    cf = {i.id: i for i in data.items}["abs_counting_002973:counterfactual"]
    assert cf.target == "3" and cf.group == "abs_counting_6"  # new answer D of A:5 B:1 C:6 D:3
    out = tmp_path / "again"
    assert main(["export", str(data_dir), "--format", "cvqa-csv", "--out", str(out)]) == 0
    assert (out / "questions.csv").read_bytes() == csv_path.read_bytes()


def test_export_refuses_to_overwrite_without_flag(generated: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "release"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["export", str(generated), "--format", "cvqa-csv", "--out", str(out)]) == 2
    assert "already exists and is not empty" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"
    # --overwrite replaces only a folder we wrote: this one is the user's
    assert main(["export", str(generated), "--format", "cvqa-csv", "--out", str(out),
                 "--overwrite"]) == 2
    assert "did not write it" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"
    ours = tmp_path / "ours"
    assert main(["export", str(generated), "--format", "cvqa-csv", "--out", str(ours)]) == 0
    (ours / "questions.csv").write_text("stale")
    assert main(["export", str(generated), "--format", "cvqa-csv", "--out", str(ours),
                 "--overwrite"]) == 0
    assert (ours / "questions.csv").read_text().startswith("img_path,")


def run_import(csv_path: Path, images: Path, out: Path,
               capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["import", "cvqa-synthetic", "--csv", str(csv_path), "--images", str(images),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert not out.exists() and leftovers(out.parent) == []
    return err


def test_missing_images_are_counted_and_named(shared_dir: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    csv_path, images = release(shared_dir, tmp_path)
    for name in ("abs_counting_000061.png", "abs_counting_002973.png"):
        (images / name).unlink()
    err = run_import(csv_path, images, tmp_path / "ds", capsys)
    assert "2 of 30 images are missing" in err
    assert "abs_counting_000061.png, abs_counting_002973.png" in err


def test_corrupt_image_is_reported(shared_dir: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    csv_path, images = release(shared_dir, tmp_path)
    (images / "abs_counting_000293.png").write_bytes(b"not a png at all")
    err = run_import(csv_path, images, tmp_path / "ds", capsys)
    assert "1 image cannot be read" in err and "abs_counting_000293.png" in err


@pytest.mark.parametrize(("line", "old", "new", "message"), [
    (6, ",D,How many", ",E,How many", "'answer' is 'E'; use one of A, B, C, D"),
    (11, "A:10  B:7", "A:10 B:7", "'query' does not end with ' Select the correct answer"),
    (12, ",abs_counting_3", ",abs_counting_9", "'type' is 'abs_counting_9'"),
    (20, "A:16  B:14", "A:16  B:x", "options ['16', 'x', '25', '19'] are not all"),
    (27, ",abs_counting_6", "", "expected 6 fields, found 5"),
])
def test_malformed_rows_name_file_and_line(shared_dir: Path, tmp_path: Path, line: int, old: str,
                                           new: str, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    csv_path, images = release(shared_dir, tmp_path)
    lines = csv_path.read_text().split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    csv_path.write_text("\n".join(lines))
    err = run_import(csv_path, images, tmp_path / "ds", capsys)
    assert f"{csv_path}:{line}: " in err and message in err


def test_bad_header_is_rejected(shared_dir: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    csv_path, images = release(shared_dir, tmp_path)
    text = csv_path.read_text().replace("new answer", "new_answer", 1)
    csv_path.write_text(text)
    err = run_import(csv_path, images, tmp_path / "ds", capsys)
    assert f"{csv_path}:1: the header is" in err and "img_path,query,answer,new query" in err


def test_unwritable_output_is_reported(shared_dir: Path, tmp_path: Path, generated: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    csv_path, images = release(shared_dir, tmp_path)
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    out = blocker / "ds"
    assert main(["import", "cvqa-synthetic", "--csv", str(csv_path), "--images", str(images),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Cannot create the folder" in err and "Traceback" not in err
    assert main(["export", str(generated), "--format", "cvqa-csv", "--out", str(out)]) == 2
    assert "Cannot create the folder" in capsys.readouterr().err
    assert blocker.read_text() == "not a folder"


def test_inputs_are_left_untouched(shared_dir: Path, tmp_path: Path) -> None:
    csv_path, images = release(shared_dir, tmp_path)
    before = {p.name: p.read_bytes() for p in [csv_path, *images.iterdir()]}
    assert main(["import", "cvqa-synthetic", "--csv", str(csv_path), "--images", str(images),
                 "--out", str(tmp_path / "ds")]) == 0
    assert {p.name: p.read_bytes() for p in [csv_path, *images.iterdir()]} == before


def test_export_rejects_datasets_that_do_not_fit(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from whatifbench.core.dataset import DatasetWriter
    from whatifbench.core.item import Item

    src = tmp_path / "other"
    with DatasetWriter(src) as writer:
        picture = io.BytesIO()
        Image.new("RGB", (4, 4)).save(picture, format="PNG")
        rel = writer.add_image("x.png", picture.getvalue())
        writer.add_items([
            Item("x:original", (rel,), "How many?", "choice", "1", ("1", "2", "3"), "x",
                 "original", "abs_counting_1"),
            Item("x:counterfactual", (rel,), "How many if?", "choice", "2", ("1", "2", "3"),
                 "x", "counterfactual", "abs_counting_1"),
        ])
        writer.finish(name="x", suite="cvqa-synthetic", version="0", generator={}, seed=None)
    out = tmp_path / "release"
    assert main(["export", str(src), "--format", "cvqa-csv", "--out", str(out)]) == 2
    assert "is not a 4-option multiple-choice item" in capsys.readouterr().err
    assert not out.exists()
