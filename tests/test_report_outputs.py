"""Report outputs: rows that say what they are, portable reports, tables as data, figures,
execution counts, and ``whatif view`` on the loopback interface."""

from __future__ import annotations

import base64
import csv
import io
import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from PIL import Image
from util import make_choice_dataset, page_data

from whatifbench.cli.main import main
from whatifbench.core.suite import Sample
from whatifbench.report import draw, images, overview
from whatifbench.report.figures import FigureSpec, Panel, Series
from whatifbench.report.payload import Strings
from whatifbench.report.sources import load_sources


def _run(ds: Path, out: Path, *args: str, model: str = "builtin:random") -> None:
    assert main(["run", "--suite", str(ds), "--model", model, "--out", str(out),
                 "--no-progress", *args]) == 0


def test_run_records_the_absolute_dataset_path_a_display_name_and_tables_as_data(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    make_choice_dataset(tmp_path / "ds")
    monkeypatch.chdir(tmp_path)
    _run(Path("ds"), Path("out"), model="eyes=builtin:ignore-premise")
    captured = capsys.readouterr()
    assert "handmade × eyes: 12 items, 0 from the store, 12 computed, 0 errors" in captured.err
    [run] = json.loads((tmp_path / "out" / "results.json").read_text())["runs"]
    assert run["spec"]["dataset"]["path"] == str((tmp_path / "ds").resolve())
    assert run["spec"]["model_name"] == "eyes" and run["model"] == "builtin:ignore-premise"
    assert "| eyes |" in (tmp_path / "out" / "report.md").read_text()
    assert "\neyes " in captured.out
    execution = json.loads((tmp_path / "out" / "execution.json").read_text())["runs"][0]
    assert (execution["computed"], execution["from_store"], execution["errors"]) == (12, 0, 0)
    tables = sorted(p.name for p in (tmp_path / "out" / "tables").iterdir())
    assert tables == ["01-c-vqa-synthetic-handmade.csv", "01-c-vqa-synthetic-handmade.tex"]
    rows = list(csv.DictReader((tmp_path / "out" / "tables" / tables[0]).open()))
    assert rows[0]["model"] == "eyes" and float(rows[0]["all orig"]) == 100.0
    assert float(rows[0]["all cf (Δ) Δ"]) == -float(run["metrics"]["drop"])
    assert float(rows[0]["all cf (Δ) Δ p"]) == run["metrics"]["drop_mcnemar_p"]
    tex = (tmp_path / "out" / "tables" / tables[1]).read_text()
    assert r"\begin{tabular}" in tex and r"$\pm$" in tex and "($-100.0$)" in tex


def test_terminal_tables_fit_the_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Piped (issue 40, item 13: it was about 250 columns wide) or on an 80-column terminal,
    the tables fit in 80 columns, split into blocks; a wider COLUMNS gets whole lines."""
    ds = make_choice_dataset(tmp_path / "ds")
    monkeypatch.delenv("COLUMNS", raising=False)
    _run(ds, tmp_path / "piped")
    piped = capsys.readouterr().out
    table = piped[:piped.index("Results:")]
    assert max(len(line) for line in table.splitlines()) <= 80
    # the rows' names start each block (the reference rows' longer names make the blocks
    # narrower: three of them here)
    blocks = table.count("chance (guessing)")
    assert blocks >= 2 and table.count("builtin:random") == blocks
    monkeypatch.setenv("COLUMNS", "80")
    _run(ds, tmp_path / "narrow")
    assert capsys.readouterr().out[:len(table)] == table
    monkeypatch.setenv("COLUMNS", "300")
    _run(ds, tmp_path / "wide")
    wide = capsys.readouterr().out
    assert max(len(line) for line in wide.splitlines()) > 80  # whole lines


def test_merged_rows_name_what_differs_and_where_they_came_from(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # whole labels on one line
    ds = make_choice_dataset(tmp_path / "ds")
    _run(ds, tmp_path / "a")
    _run(ds, tmp_path / "b", "--strategy", "cot")
    _run(ds, tmp_path / "c", "--parser", "default", "--prompt", "paper")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "c"),
                 "--out", str(tmp_path / "m")]) == 0
    out = capsys.readouterr().out
    assert "builtin:random [prompt=default, strategy=zero-shot, max_new_tokens=64]" in out
    assert "builtin:random [prompt=default, strategy=cot, max_new_tokens=512]" in out
    assert "builtin:random [prompt=paper:llava, strategy=zero-shot, max_new_tokens=512]" in out
    md = (tmp_path / "m" / "report.md").read_text()
    assert f"| {(tmp_path / 'b').resolve()} |" in md  # the Runs table names each folder
    data = page_data((tmp_path / "m" / "report.html").read_text())
    assert [r["folder"] for r in data["runs"]] == [str((tmp_path / x).resolve()) for x in "abc"]
    # The merged folder reads back with each run's own samples (same model three times).
    again = load_sources([tmp_path / "m"])
    assert [len(s.run.samples) for s in again] == [12, 12, 12]
    assert [s.run.samples[0].prompt != again[1].run.samples[0].prompt for s in again] == [
        True, False, True]
    assert [s.folder for s in again] == [str((tmp_path / x).resolve()) for x in "abc"]
    assert all(r["execution"]["computed"] + r["execution"]["from_store"] == 12
               for r in data["runs"])


def test_reports_find_moved_data_through_dataset_root_and_say_when_they_cannot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "data" / "ds")
    _run(ds, tmp_path / "run")
    shutil.move(tmp_path / "data", tmp_path / "moved")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "r1")]) == 0
    err = capsys.readouterr().err
    assert "The dataset handmade is not at" in err and "--dataset-root" in err
    lost = page_data((tmp_path / "r1" / "report.html").read_text())["datasets"][0]
    assert lost["found"] is None and "--dataset-root" in lost["problem"] and not lost["thumbs"]
    assert lost["items"]["choices"][0] == []  # options come from the dataset
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "r2"),
                 "--dataset-root", str(tmp_path / "moved")]) == 0
    assert "--dataset-root" not in capsys.readouterr().err
    found = page_data((tmp_path / "r2" / "report.html").read_text())["datasets"][0]
    assert found["found"] == str((tmp_path / "moved" / "ds").resolve())
    assert len(found["thumbs"]) == 6 and found["problem"] is None
    items = tmp_path / "moved" / "ds" / "items.jsonl"
    items.write_text(items.read_text().replace("How many dots", "How many spots"))
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "r3"),
                 "--dataset-root", str(tmp_path / "moved" / "ds"), "--max-images", "2"]) == 0
    assert "has changed since the run" in capsys.readouterr().err


def test_thumbnail_budget(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    _run(ds, tmp_path / "run")
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "r"),
                 "--max-images", "2"]) == 0
    data = page_data((tmp_path / "r" / "report.html").read_text())["datasets"][0]
    assert len(data["thumbs"]) == 2 and len(data["images"]) == 6


def test_thumbnail_uris_read_the_cache_and_decode_only_what_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHATIF_HOME", str(tmp_path / "home"))
    paths = []
    for k, size in enumerate([(40, 30), (300, 200), (10, 400)]):
        paths.append(tmp_path / f"{k}.png")
        Image.new("RGB", size, (k * 80, 20, 200)).save(paths[-1])
    (tmp_path / "folder.png").mkdir()
    paths += [tmp_path / "missing.png", tmp_path / "folder.png"]
    one_by_one = [images.thumbnail_uri(p, 64) for p in paths[:1]]  # cached before the batch
    decoded: list[Path] = []
    encode = images._encode
    monkeypatch.setattr(images, "_encode", lambda p, *a: decoded.append(p) or encode(p, *a))
    uris = images.thumbnail_uris(paths, 64)
    assert uris[:1] == one_by_one and uris[3:] == [None, None]
    assert sorted(decoded) == paths[1:3]  # the cached one was read, not decoded again
    for uri, side in zip(uris[:3], [(40, 30), (64, 43), (2, 64)], strict=True):
        assert uri is not None and uri.startswith("data:image/jpeg;base64,")
        with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as img:
            assert img.size == side
    decoded.clear()
    assert images.thumbnail_uris(paths, 64) == uris and decoded == []  # all from the cache now


def test_strings_many_equals_one_call_each() -> None:
    values = ["a", None, "b", "a", 3, ["x", 1], {"k": "v"}, "3", "", "b" * 50]
    one, many = Strings(clip=20), Strings(clip=20)
    assert many.many(values) == [one(v) for v in values]
    assert many.values == one.values and many.many(["a", "b" * 50]) == [0, one("b" * 50)]


def test_believes_eyes_pairs_each_wrong_counterfactual_with_its_first_question() -> None:
    def sample(pair: str, role: str, target: str, prediction: str | None) -> Sample:
        return Sample(f"{pair}-{role}", pair, role, None, "q", "p", target, prediction, None,
                      prediction, prediction == target, prediction is None, None, None)

    def item(s: Sample) -> dict[str, object]:
        return {"target": s.target, "kind": "number"}

    samples = [sample("a", "original", "2", "2"), sample("a", "counterfactual", "3", "2"),
               sample("b", "basic", "5", "5"), sample("b", "counterfactual", "6", "4"),
               sample("c", "original", "1", "1"), sample("c", "counterfactual", "1", "0"),
               sample("d", "counterfactual", "7", "1"),  # no first question: not counted
               sample("e", "original", "2", "2"), sample("e", "counterfactual", "4", "4")]
    items = {s.item_id: item(s) for s in samples}
    # a: repeated; b: wrong but not repeated; c: same target (uninformative); e: right. The
    # suite's pair roles say which first question counts (b's is basic).
    original = ("original", "counterfactual")
    assert overview.believes_eyes(samples, items, original) == {"k": 1, "n": 1, "share": 100.0}
    assert overview.believes_eyes(samples, items, ("basic", "counterfactual")) == {
        "k": 0, "n": 1, "share": 0.0}
    assert overview.believes_eyes(samples[:1], items, original) == {"k": 0, "n": 0, "share": None}
    assert overview.believes_eyes(samples, items, None) == {"k": 0, "n": 0, "share": None}


def test_figures_as_pdf_and_png_and_memoised_svg(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    _run(ds, tmp_path / "run")
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "r"), "--figures",
                 str(tmp_path / "figs")]) == 0
    names = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert names == ["cvqa-synthetic-handmade-accuracy-by-group.pdf",
                     "cvqa-synthetic-handmade-accuracy-by-group.png",
                     "cvqa-synthetic-handmade-change-by-group.pdf",
                     "cvqa-synthetic-handmade-change-by-group.png"]
    with Image.open(tmp_path / "figs" / names[1]) as img:
        assert img.width > 1000
    assert (tmp_path / "figs" / names[0]).read_bytes().startswith(b"%PDF")
    spec = FigureSpec("x", "t", "y", (Panel("", ("a", "b"), (
        Series("m", (50.0, None), ((40.0, 60.0), None)),)),))
    first = draw.svg(spec, tmp_path / "cache")
    assert first.startswith("<?xml") and "<script" not in first

    def refuse(_spec: FigureSpec) -> None:
        raise AssertionError("drawn again")

    monkeypatch.setattr(draw, "_figure", refuse)
    assert draw.svg(spec, tmp_path / "cache") == first  # same data: read from the cache
    other = FigureSpec("x", "t", "y", (Panel("", ("a",), (Series("m", (1.0,), (None,)),)),))
    with pytest.raises(AssertionError, match="drawn again"):
        draw.svg(other, tmp_path / "cache")


def test_view_command_serves_on_the_loopback_interface(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    _run(ds, tmp_path / "run")
    proc = subprocess.Popen([sys.executable, "-m", "whatifbench", "view", str(tmp_path / "run"),
                             "--no-open"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Serving the results explorer at http://127.0.0.1:"), line
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url, timeout=30) as reply:
            page = reply.read().decode()
        data = page_data(page)
        assert data["images"] == "serve" and data["datasets"][0]["found"]
        with urllib.request.urlopen(url + "image/0/images/img_000.png", timeout=30) as reply:
            assert reply.headers["Content-Type"] == "image/png"
            assert reply.read() == (ds / "images" / "img_000.png").read_bytes()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_generating_the_default_suite_shows_progress(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from whatifbench import api
    from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator

    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    CvqaSyntheticGenerator.generate(tmp_path / "ds", per_template=1, workers=1, progress=True)
    assert "generating images:" in screen.getvalue() and "/6 [" in screen.getvalue()
    asked: list[bool] = []

    real = CvqaSyntheticGenerator.generate

    def fake(out: Path, **kwargs: object) -> None:
        asked.append(bool(kwargs["progress"]))
        real(out, per_template=1, seed=0, workers=1, overwrite=True)  # a small, real suite

    monkeypatch.setattr(CvqaSyntheticGenerator, "generate", staticmethod(fake))
    assert api.default_suite(progress=True).is_dir()
    assert asked == [True]
