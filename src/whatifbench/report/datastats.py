"""Dataset statistics for ``whatif stats``: the tables live in ``core.datastats`` (a suite's
``stats`` builds on them); this module adds the answer histograms (matplotlib) and keeps the
name for plugins."""

from __future__ import annotations

from pathlib import Path

from whatifbench.core.dataset import Dataset
from whatifbench.core.datastats import *  # noqa: F403
from whatifbench.core.table import Table


def plot_table(dataset: Dataset, plots: Path) -> Table:
    """Answer histograms per group written under ``plots``, listed as a table."""
    from whatifbench.report.plots import answer_histograms

    written = answer_histograms(dataset.items, plots, dataset.card.name)
    return Table("plots", ("file",), tuple((str(p),) for p in written))
