"""``whatif export DATASET --format cfmm-jsonl|cfmm-csv --out FILE``: a CFMM dataset (imported or
generated) back in the import schema, one pair per line; ``--images DATASET/images`` re-imports
it."""

from __future__ import annotations

from pathlib import Path

from whatifbench.core.csvtext import csv_text
from whatifbench.core.dataset import IMAGES, Dataset, load_dataset
from whatifbench.core.fsutil import dumps
from whatifbench.core.item import Item
from whatifbench.core.outputs import check_output, write_output_file
from whatifbench.core.params import declared
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.suites.cfmm.pairs import complete_pairs
from whatifbench.suites.cfmm.schema import FIELDS, PairRecord, Question, record_to_row


def _question(item: Item) -> Question:
    a, b = item.choices
    return Question(item.question, (a, b), item.target, item.provenance.get("explanation"))


def dataset_records(dataset: Dataset) -> list[PairRecord]:
    """The dataset's pairs as records (every item must be a two-option question of a pair)."""
    if dataset.suite not in ("cfmm", "cfmm-synthetic"):
        raise WhatifError(f"{dataset.root} is a {dataset.suite} dataset; the CFMM formats "
                          "export CFMM datasets only.")
    pairs = complete_pairs(dataset.items)
    paired = {i.id for pair in pairs for i in pair}
    bad = [i.id for i in dataset.items if i.id not in paired or len(i.choices) != 2
           or len(i.images) != 1]
    if bad:
        raise WhatifError(f"{dataset.root}: {len(bad)} item(s) are not two-option questions of "
                          f"a complete basic/counterfactual pair with one image (first: "
                          f"{', '.join(bad[:5])}); the CFMM formats cannot hold them.")
    records = []
    for n, (basic, cf) in enumerate(pairs, start=1):
        image = basic.images[0].removeprefix(f"{IMAGES}/")
        records.append(PairRecord(basic.pair_id or basic.id, image, basic.group or "",
                                  _question(basic), _question(cf), n))
    return records


def export_cfmm(dataset: str | Path, out: str | Path, fmt: str, overwrite: bool = False) -> int:
    """Write the dataset's pairs as ``jsonl`` or ``csv``; return the number of pairs."""
    check_output(out, [dataset], overwrite, file=True)  # before reading the dataset
    rows = [record_to_row(r) for r in dataset_records(load_dataset(dataset, check_images=False))]
    if fmt == "jsonl":
        text = "".join(dumps({k: v for k, v in row.items() if v}) + "\n" for row in rows)
    else:
        text = csv_text([FIELDS, *([row[f] for f in FIELDS] for row in rows)])
    write_output_file(out, text.encode("utf-8"), overwrite, [dataset])
    return len(rows)


class _Exporter:
    fmt = "jsonl"
    suites = ("cfmm",)
    """The suites it exports."""

    @classmethod
    def read_back(cls, export: Path, dataset: Dataset, work: Path) -> list[Item]:
        """The export imported again (``import_cfmm``, the dataset's images folder)."""
        from whatifbench.suites.cfmm.importer import import_cfmm

        if cls.fmt == "jsonl":
            import_cfmm(work, images=dataset.root / "images", jsonl=export)
        else:
            import_cfmm(work, images=dataset.root / "images", csv_file=export)
        return list(load_dataset(work).items)


@register("exporter", "cfmm-jsonl")
class CfmmJsonlExporter(_Exporter):
    """CFMM pairs as JSONL in the import schema (one pair per line)."""

    fmt = "jsonl"

    @staticmethod
    @declared
    def entry(dataset: str | Path, out: str | Path, overwrite: bool = False) -> int:
        """``export_cfmm`` as JSONL (no options beyond DATASET, --out and --overwrite)."""
        return export_cfmm(dataset, out, "jsonl", overwrite)


@register("exporter", "cfmm-csv")
class CfmmCsvExporter(_Exporter):
    """CFMM pairs as CSV in the import schema (one pair per row)."""

    fmt = "csv"

    @staticmethod
    @declared
    def entry(dataset: str | Path, out: str | Path, overwrite: bool = False) -> int:
        """``export_cfmm`` as CSV (no options beyond DATASET, --out and --overwrite)."""
        return export_cfmm(dataset, out, "csv", overwrite)
