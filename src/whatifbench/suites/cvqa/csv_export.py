"""``whatif export DATASET --format cvqa-csv``: the C-VQA release table for either suite.

Both releases share one CSV layout (``img_path,query,answer,new query,new answer,type``);
C-VQA-Synthetic answers are option letters, C-VQA-Real answers digits or yes/no. The dataset's
suite picks the writer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.params import declared
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.suites.cvqa.real.exporter import export_release as export_real
from whatifbench.suites.cvqa.synthetic.io_export import export_release as export_synthetic

WRITERS: dict[str, Callable[..., Path]] = {"cvqa-real": export_real,
                                           "cvqa-synthetic": export_synthetic}


@register("exporter", "cvqa-csv")
class CvqaCsvExporter:
    """C-VQA release format: questions.csv (one row per pair) + images/ (Real or Synthetic)."""

    suites = tuple(WRITERS)
    """The suites it exports."""

    @staticmethod
    def read_back(export: Path, dataset: Dataset, work: Path) -> list[Item]:
        """The export imported again with the release importer of the dataset's suite."""
        from whatifbench.suites.cvqa.real.importer import import_release as import_real
        from whatifbench.suites.cvqa.synthetic.io_import import import_release as import_syn

        readers: dict[str, Callable[..., object]] = {"cvqa-real": import_real,
                                                     "cvqa-synthetic": import_syn}
        reader = readers[dataset.suite]
        reader(export / "questions.csv", export / "images", work)
        return list(load_dataset(work).items)

    @staticmethod
    @declared
    def entry(dataset: str | Path | Dataset, out: str | Path, overwrite: bool = False) -> Path:
        """Export with the writer of the dataset's suite (no options beyond the export
        command's DATASET, --out and --overwrite); the CSV's path."""
        loaded = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
        writer = WRITERS.get(loaded.suite)
        if writer is None:
            raise WhatifError(
                f"The dataset {loaded.root} belongs to the suite {loaded.suite!r}; the "
                f"cvqa-csv format holds {' and '.join(sorted(WRITERS))} datasets."
            )
        return writer(loaded, out, overwrite=overwrite)
