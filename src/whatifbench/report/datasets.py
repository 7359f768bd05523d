"""Find the dataset a run used, so reports show its images, options and provenance: through the
absolute path in the run spec, or through ``--dataset-root`` when the data moved. A dataset is
accepted only when its ``items.jsonl`` still has the hash the run recorded."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whatifbench.core.fsutil import sha256_bytes
from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import read_bytes
from whatifbench.core.records.spec import RunSpec


@dataclass(frozen=True)
class DatasetView:
    """A run's dataset as the report sees it."""

    name: str
    """The dataset's name (from the run)."""
    recorded: str
    """The path the run spec recorded."""
    root: Path | None
    """The folder found (``None``: not available)."""
    problem: str | None
    """Why images and options are unavailable (``None`` when found)."""
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The raw ``items.jsonl`` objects by id (empty when not found)."""


def _candidates(recorded: str, roots: Sequence[Path]) -> list[Path]:
    path = Path(recorded) if recorded else None
    found: list[Path] = []
    for root in roots:
        found.append(Path(root))
        if path is not None and path.name:
            found.append(Path(root) / path.name)
    if path is not None:
        found.append(path)
    return list(dict.fromkeys(p.resolve() for p in found))


def locate(spec: RunSpec, name: str, roots: Sequence[Path] = ()) -> DatasetView:
    """The dataset of a run spec (``spec.dataset``), checked against its recorded hash
    (remembered for the last few datasets: a report asks once per page and once per message)."""
    recorded = spec.dataset_path or ""
    stamp = []
    for folder in _candidates(recorded, roots):
        try:
            st = (folder / "items.jsonl").stat()
        except OSError:
            continue
        stamp.append((str(folder), st.st_mtime_ns, st.st_size))
    return _locate(recorded, spec.items_sha256, name, tuple(roots), tuple(stamp))


def missing_data(sources: Sequence[Any], options: Any) -> list[str]:
    """The problem of each distinct dataset whose images cannot be shown (``Source``s)."""
    found: dict[str, None] = {}
    for src in sources:
        view = locate(src.run.spec, src.run.dataset, options.dataset_roots)
        if view.problem:
            found.setdefault(view.problem)
    return list(found)


@functools.lru_cache(maxsize=8)
def _locate(recorded: str, expected: str | None, name: str, roots: tuple[Path, ...],
            stamp: tuple[tuple[str, int, int], ...]) -> DatasetView:
    """``locate`` for one state of the candidate folders (``stamp``: their items.jsonl files'
    modification times and sizes, so a changed or moved dataset is looked at again)."""
    if not expected:
        return DatasetView(name, recorded, None, (
            f"The run on the dataset {name} records no hash of its items (its results.json was "
            "edited), so its images and options are not shown: the folder it names may hold "
            "another dataset now. Re-create the run folder with 'whatif run --out'."))
    changed: list[Path] = []
    for folder in _candidates(recorded, roots):
        items = folder / "items.jsonl"
        if not items.is_file():
            continue
        try:
            raw = read_bytes(items)
            if sha256_bytes(raw) != expected:
                changed.append(folder)
                continue
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        return DatasetView(name, recorded, folder, None, _items(text))
    where = f"at {recorded}" if recorded else "recorded in the run spec"
    if changed:
        problem = (f"The dataset {name} at {changed[0]} has changed since the run (its "
                   "items.jsonl hash differs), so its images and options are not shown; pass "
                   "--dataset-root with the folder of the data the run used.")
    else:
        problem = (f"The dataset {name} is not {where}, so its images and options are not "
                   "shown; pass --dataset-root with the dataset folder (or the folder holding "
                   "it) if the data moved.")
    return DatasetView(name, recorded, None, problem)


def _items(text: str) -> dict[str, dict[str, Any]]:
    """The items by id, line by line (a broken line is left out). One parse of the joined
    lines would cost a nesting check over the whole file; a line's check is nearly free."""
    objects = []
    for line in text.split("\n"):  # not splitlines: U+2028
        if not line.strip():
            continue
        try:
            objects.append(loads(line))
        except ValueError:
            continue
    return {obj["id"]: obj for obj in objects
            if isinstance(obj, dict) and isinstance(obj.get("id"), str)}
