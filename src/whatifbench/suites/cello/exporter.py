"""``whatif export DATASET --format cello-jsonl --out FILE``: records in the release format."""

from __future__ import annotations

from pathlib import Path

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.fsutil import dumps
from whatifbench.core.item import Item
from whatifbench.core.outputs import check_output, write_output_file
from whatifbench.core.params import declared
from whatifbench.core.registry import register
from whatifbench.suites.cello.records import record_from_item


@declared
def export_cello(dataset: str | Path, out: str | Path, overwrite: bool = False) -> int:
    """Write one release record per item to ``out`` (atomically); returns the record count."""
    check_output(out, [dataset], overwrite, file=True)  # before reading the dataset
    data = load_dataset(dataset, check_images=False)
    lines = [dumps(record_from_item(item)) for item in data.items]
    write_output_file(out, ("\n".join(lines) + "\n").encode("utf-8"), overwrite, [dataset])
    return len(lines)


@register("exporter", "cello-jsonl")
class CelloJsonlExporter:
    """CELLO release JSONL (cello_data.jsonl records)."""

    suites = ("cello",)
    """The suites it exports."""

    @staticmethod
    def read_back(export: Path, dataset: Dataset, work: Path) -> list[Item]:
        """The export imported again (``import_cello``, the dataset's images folder)."""
        from whatifbench.suites.cello.importer import import_cello

        import_cello(export, dataset.root / "images", work)
        return list(load_dataset(work).items)

    entry = staticmethod(export_cello)
    """No options beyond DATASET, --out and --overwrite."""
