"""VLMEvalKit custom MCQ TSV: parsed back the way VLMEvalKit reads it (pandas, tab-separated;
image lists as Python list literals), it holds the same questions, options, answers, images and
pairs; free-text suites are refused for this multiple-choice-only format."""

from __future__ import annotations

import ast
import base64
from pathlib import Path

import pytest
from interop_util import kind_datasets  # noqa: F401  (session fixture)

from whatifbench.answers.letters import letter_for
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.errors import WhatifError
from whatifbench.integrations.vlmevalkit import export_vlmevalkit

pandas = pytest.importorskip("pandas")


def read_tsv(path: Path) -> list[dict[str, object]]:
    """The TSV as VLMEvalKit's ``load`` reads it (``pd.read_csv(sep='\\t')``)."""
    frame = pandas.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    return frame.to_dict("records")


@pytest.mark.parametrize("kind", ["choice", "cfmm", "cello"])
def test_tsv_parses_back_to_the_same_questions(kind: str, kind_datasets,  # noqa: F811
                                                tmp_path: Path) -> None:
    folder = kind_datasets(kind)
    data = load_dataset(folder)
    out = tmp_path / "WHATIF.tsv"
    assert main(["export", str(folder), "--format", "vlmevalkit", "--out", str(out)]) == 0
    rows = read_tsv(out)
    assert len(rows) == len(data.items)
    width = max(len(item.choices) for item in data.items)
    for k, (row, item) in enumerate(zip(rows, data.items, strict=True)):
        assert int(str(row["index"])) == k
        assert row["question"] == item.question
        options = [row[letter_for(i)] for i in range(width)]
        assert options[:len(item.choices)] == list(item.choices)
        assert all(o == "" for o in options[len(item.choices):])
        assert row["answer"] == letter_for(item.target_index)
        assert (row["item_id"], row["pair_id"], row["role"], row["category"]) == (
            item.id, item.pair_id or "", item.role or "", item.group or "")
        assert base64.b64decode(str(row["image"])) == (folder / item.images[0]).read_bytes()


def test_multi_image_items_and_free_text(kind_datasets, tmp_path: Path,  # noqa: F811
                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = kind_datasets("multi-image")  # MuCR: c2e/e2c/cue are choices, exp is free text
    data = load_dataset(folder)
    assert main(["export", str(folder), "--format", "vlmevalkit", "--out",
                 str(tmp_path / "a.tsv")]) == 2
    err = capsys.readouterr().err
    assert "free-text (text) questions" in err and "--choice-only" in err
    assert not (tmp_path / "a.tsv").exists()
    n = export_vlmevalkit(folder, tmp_path / "b.tsv", choice_only=True)
    choice = [item for item in data.items if item.kind == "choice"]
    assert n == len(choice) < len(data.items)
    for row, item in zip(read_tsv(tmp_path / "b.tsv"), choice, strict=True):
        images = ast.literal_eval(str(row["image"])) if len(item.images) > 1 else [row["image"]]
        assert [base64.b64decode(str(x)) for x in images] == [
            (folder / rel).read_bytes() for rel in item.images]
        labels = item.meta["image_labels"]
        assert row["hint"] == f"The images are shown in this order: {', '.join(labels)}."


def test_free_text_suite_is_refused(kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    with pytest.raises(WhatifError, match="no multiple-choice items .* number, yes-no"):
        export_vlmevalkit(kind_datasets("number-yes-no"), tmp_path / "real.tsv")
    assert not (tmp_path / "real.tsv").exists()
    (tmp_path / "there.tsv").write_text("keep me")
    with pytest.raises(WhatifError, match="already exists"):
        export_vlmevalkit(kind_datasets("choice"), tmp_path / "there.tsv")
    assert (tmp_path / "there.tsv").read_text() == "keep me"
