"""Exports write what a harness may show (issue 41, item 6): the items' public view
(``core.public``: no answer-bearing metadata, provenance without answers, seeds, programs or
worlds, no intervened scenes), unless ``--with-answers`` asks for the whole record; the inspect
task puts no answer where a solver can read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from interop_util import kind_datasets  # noqa: F401  (session fixture)

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.public import PUBLIC_PROVENANCE
from whatifbench.suites.mucr.suite import MucrSuite

pq = pytest.importorskip("pyarrow.parquet")


def rows(folder: Path) -> list[dict[str, object]]:
    """The rows of an exported Hugging Face folder (image bytes left out)."""
    out = []
    for shard in sorted((folder / "data").glob("*.parquet")):
        table = pq.read_table(shard, columns=["id", "meta", "provenance", "target"])
        out += table.to_pylist()
    return out


def test_hf_and_lmms_rows_hold_the_public_view(kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    source = kind_datasets("multi-image")  # mucr-synthetic: meta.record, Exp's references
    data = load_dataset(source)
    assert any(set(MucrSuite.private_meta) & set(i.meta) for i in data.items)
    assert main(["export", str(source), "--format", "hf", "--out", str(tmp_path / "hf")]) == 0
    assert main(["export", str(source), "--format", "lmms-eval", "--out",
                 str(tmp_path / "lmms")]) == 0
    for folder in (tmp_path / "hf", tmp_path / "lmms" / "hf"):
        exported = rows(folder)
        assert [r["id"] for r in exported] == [i.id for i in data.items]
        for row, item in zip(exported, data.items, strict=True):
            meta = json.loads(str(row["meta"]))
            assert not set(MucrSuite.private_meta) & set(meta)
            assert meta == {k: v for k, v in item.meta.items()
                            if k not in MucrSuite.private_meta}
            assert set(json.loads(str(row["provenance"]))) <= set(PUBLIC_PROVENANCE)
            assert row["target"] == item.target  # the scorer's key stays
        assert "with_answers: false" in (folder / "README.md").read_text()
    assert main(["export", str(source), "--format", "hf", "--with-answers", "--out",
                 str(tmp_path / "whole")]) == 0
    whole = rows(tmp_path / "whole")
    assert [json.loads(str(r["provenance"])) for r in whole] == [i.provenance for i in data.items]
    assert "with_answers: true" in (tmp_path / "whole" / "README.md").read_text()


def test_intervened_scenes_are_exported_only_with_answers(kind_datasets,  # noqa: F811
                                                          tmp_path: Path) -> None:
    source = kind_datasets("cfmm")  # images/intervened/: the counterfactual's answer drawn
    assert any((source / "images" / "intervened").iterdir())
    assert main(["export", str(source), "--format", "hf", "--out", str(tmp_path / "hf")]) == 0
    assert not (tmp_path / "hf" / "extra").exists()
    readme = (tmp_path / "hf" / "README.md").read_text()
    assert "extra_images" not in readme
    for row in rows(tmp_path / "hf"):
        assert "intervened_image" not in json.loads(str(row["provenance"]))
    assert main(["export", str(source), "--format", "hf", "--with-answers", "--out",
                 str(tmp_path / "whole")]) == 0
    assert list((tmp_path / "whole" / "extra").rglob("*.parquet"))


def test_inspect_samples_hold_no_answer(kind_datasets) -> None:  # noqa: F811
    pytest.importorskip("inspect_ai")
    from whatifbench.integrations.inspect.samples import inspect_samples, resolved

    data = load_dataset(kind_datasets("multi-image"))
    protocol = resolved(data, Protocol())
    samples = inspect_samples(data, protocol)
    for sample, item in zip(samples, data.items, strict=True):
        assert sample.target == "" and "item" not in (sample.metadata or {})
        shown = json.dumps(sample.metadata)
        assert item.provenance.get("explanation", "\0") not in shown
        assert not any(f'"{k}"' in shown for k in MucrSuite.private_meta)
    whole = inspect_samples(data, protocol, with_answers=True)
    assert [s.target for s in whole] == [i.target for i in data.items]
    assert all((s.metadata or {})["item"]["id"] == i.id for s, i in zip(whole, data.items,
                                                                        strict=True))


@pytest.mark.parametrize("kind", ["choice", "cfmm", "multi-image"])
def test_answer_bearing_provenance_stays_out_of_exports_and_the_shown_fields(
        kind: str, kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    """The shortcut-free designs of issue 41 record what rebuilds an answer: C-VQA's dealt
    ranks of both questions, CFMM's dealt answer with whether it changes, MuCR's worlds behind
    every picture. items.jsonl keeps them; no export and no field the audit reads as shown
    carries them."""
    from whatifbench.analysis.audit.exports import Shown, shown_views

    source = kind_datasets(kind)
    data = load_dataset(source)
    held = {"choice": "dealt", "cfmm": "dealt", "multi-image": "images"}[kind]
    assert all(held in i.provenance for i in data.items if i.kind == "choice")
    if kind == "cfmm":
        assert all("changed" in i.provenance["dealt"] for i in data.items)
    assert main(["export", str(source), "--format", "hf", "--out", str(tmp_path / "hf")]) == 0
    for row in rows(tmp_path / "hf"):
        assert held not in json.loads(str(row["provenance"]))
    views = shown_views(data.items, Shown(data.card.suite, data.card.name))
    for name, (_, fields) in views.items():
        text = json.dumps(fields)
        assert f'"{held}"' not in text and '"world"' not in text, name
