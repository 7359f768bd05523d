"""Hugging Face datasets export/import: a round trip on every suite kind gives identical
items, image bytes and card; the folder loads with datasets.load_dataset offline; the card's
YAML metadata; bad inputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from interop_util import BUILDERS, kind_datasets  # noqa: F401  (session fixture)
from PIL import Image

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.errors import WhatifError
from whatifbench.integrations.hf_card import read_card_yaml
from whatifbench.integrations.hf_datasets import export_hf, import_hf

datasets = pytest.importorskip("datasets")


def files(folder: Path) -> dict[str, bytes]:
    """Every file under a dataset folder (relative path → bytes) but its private folder, which
    no export carries."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.relative_to(folder).parts[0] != "private"}


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_round_trip_is_identical(kind: str, kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    source = kind_datasets(kind)
    assert main(["export", str(source), "--format", "hf", "--out", str(tmp_path / "hf"),
                 "--license", "cc-by-4.0", "--with-answers"]) == 0
    assert main(["import", "hf", "--path", str(tmp_path / "hf"), "--out",
                 str(tmp_path / "back")]) == 0
    assert files(tmp_path / "back") == files(source)  # items.jsonl, card.json, every image

    data = load_dataset(source)
    loaded = datasets.load_dataset(str(tmp_path / "hf"), split="test",
                                   cache_dir=str(tmp_path / "cache"))
    assert loaded.num_rows == len(data.items)
    assert loaded["id"] == [item.id for item in data.items]
    assert loaded["pair_id"] == [item.pair_id for item in data.items]
    assert loaded["role"] == [item.role for item in data.items]
    assert [json.loads(p) for p in loaded["provenance"]] == [i.provenance for i in data.items]
    multi = any(len(item.images) != 1 for item in data.items)
    column = "images" if multi else "image"
    feature = loaded.features[column]
    assert isinstance(feature.feature if multi else feature, datasets.Image)
    first = loaded[0][column]
    pictures = first if multi else [first]
    assert len(pictures) == len(data.items[0].images)
    with Image.open(source / data.items[0].images[0]) as original:
        assert pictures[0].size == original.size

    extras = sorted(p.relative_to(source).as_posix() for p in (source / "images").rglob("*")
                    if p.is_file() and p.relative_to(source).as_posix() not in
                    {rel for item in data.items for rel in item.images})
    if extras:  # images no item shows (CFMM's intervened scenes): their own configuration
        extra = datasets.load_dataset(str(tmp_path / "hf"), "extra_images", split="test",
                                      cache_dir=str(tmp_path / "cache"))
        assert extra["path"] == extras
    meta = read_card_yaml(tmp_path / "hf" / "README.md")
    assert meta["license"] == "cc-by-4.0"
    assert "visual-question-answering" in meta["task_categories"]
    assert meta["configs"][0]["data_files"][0] == {"split": "test", "path": "data/test-*"}
    card = meta["whatifbench"]
    assert (card["suite"], card["seed"], card["generator"]) == (
        data.suite, data.card.seed, data.card.generator)
    assert card["counts"]["by_group"] == data.card.counts["by_group"]
    assert card["hashes"]["items_sha256"] == data.items_sha256


def test_multi_image_items_keep_their_order(kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    source = kind_datasets("multi-image")
    export_hf(source, tmp_path / "hf")
    loaded = datasets.load_dataset(str(tmp_path / "hf"), split="test",
                                   cache_dir=str(tmp_path / "cache"))
    raw = loaded.cast_column("images", datasets.List(datasets.Image(decode=False)))
    for item, row in zip(load_dataset(source).items, raw, strict=True):
        assert [im["bytes"] for im in row["images"]] == [
            (source / rel).read_bytes() for rel in item.images]
        assert row["image_paths"] == list(item.images)


def test_shards_and_a_single_parquet_file(kind_datasets, tmp_path: Path) -> None:  # noqa: F811
    source = kind_datasets("choice")
    done = export_hf(source, tmp_path / "hf", shard_bytes=40_000, with_answers=True)
    assert len(done.shards) > 1
    import_hf(tmp_path / "hf", tmp_path / "back")
    assert files(tmp_path / "back") == files(source)
    loaded = datasets.load_dataset(str(tmp_path / "hf"), split="test",
                                   cache_dir=str(tmp_path / "cache"))
    assert loaded["id"] == [item.id for item in load_dataset(source).items]
    # One shard on its own: the card is found two folders up (DIR/data/x.parquet).
    first = tmp_path / "hf" / done.shards[0]
    card = import_hf(first, tmp_path / "part")
    part = load_dataset(tmp_path / "part")
    assert 0 < len(part.items) < len(load_dataset(source).items)
    assert card.suite == "cvqa-synthetic" and card.counts["items"] == len(part.items)


def test_missing_library_says_which_extra(kind_datasets, tmp_path: Path,  # noqa: F811
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # as if it were not installed
    with pytest.raises(WhatifError, match=r'pip install "whatifbench\[datasets\]"'):
        export_hf(kind_datasets("choice"), tmp_path / "hf")
    assert not (tmp_path / "hf").exists()


def test_bad_inputs(kind_datasets, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    source = kind_datasets("choice")
    done = export_hf(source, tmp_path / "hf")
    loose = tmp_path / "loose.parquet"
    loose.write_bytes((tmp_path / "hf" / done.shards[0]).read_bytes())
    with pytest.raises(WhatifError, match="--suite"):
        import_hf(loose, tmp_path / "a")
    import_hf(loose, tmp_path / "b", suite="cvqa-synthetic")  # no card: named by --suite
    assert len(load_dataset(tmp_path / "b").items) == len(load_dataset(source).items)
    with pytest.raises(WhatifError, match="says the suite is 'cvqa-synthetic'"):
        import_hf(tmp_path / "hf", tmp_path / "c", suite="cello")
    (tmp_path / "empty").mkdir()
    assert main(["import", "hf", "--path", str(tmp_path / "empty"), "--out",
                 str(tmp_path / "d")]) == 2
    assert "holds no Parquet files" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()

    # A row whose kind is unknown: one message naming the row, nothing written.
    table = datasets.load_dataset(str(tmp_path / "hf"), split="test",
                                  cache_dir=str(tmp_path / "cache"))
    broken = table.map(lambda row, i: {"kind": "essay" if i == 2 else row["kind"]},
                       with_indices=True)
    (tmp_path / "bad" / "data").mkdir(parents=True)
    (tmp_path / "bad" / "README.md").write_bytes((tmp_path / "hf" / "README.md").read_bytes())
    broken.to_parquet(str(tmp_path / "bad" / "data" / "test-00000-of-00001.parquet"))
    with pytest.raises(WhatifError, match=r"row 3 .*'kind' is 'essay'"):
        import_hf(tmp_path / "bad", tmp_path / "e")
    assert not (tmp_path / "e").exists()
    # The export refuses to replace an existing folder without --overwrite.
    assert main(["export", str(source), "--format", "hf", "--out", str(tmp_path / "hf")]) == 2
    assert "--overwrite" in capsys.readouterr().err
