"""Reading run folders through their schema: the cost of typed, validated records.

Builds (once, with ``bench_items``'s C-VQA-Real-sized dataset) a run folder of 3 runs × 6,288
items, then reads it repeatedly in this process and prints the best CPU time of each reader:

- ``before``: the reader of earlier versions (``samples.jsonl`` parsed in one call and each
  record taken as written, no field checked; kept here as it was);
- ``records``: ``runner.results.load_runs`` (``core.records``: frozen dataclasses, every field
  of every sample and of ``results.json`` checked, metrics against the suite's schema);
- ``pydantic``: the same samples validated by pydantic v2 (a ``TypeAdapter`` of a ``TypedDict``
  and of a ``BaseModel``, from the JSON text), when pydantic is installed: the measurement
  behind the choice of dataclasses (docs/files.md).

The issue's budget: ``records`` at most 1.2 × ``before``.

    PYTHONPATH=src python bench/bench_records.py [--keep DIR] [--repeat 7]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def before(folder: Path) -> int:
    """The earlier reader's work on an intact folder: results.json parsed and its entries'
    types tested, samples.jsonl digested, parsed in one call, each record taken as written."""
    from whatifbench.core.records.results_file import runs_digest, samples_digest
    from whatifbench.core.records.sample import Sample

    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert data["runs_sha256"] == runs_digest(data["runs"])
    for e in data["runs"]:
        assert isinstance(e, dict) and isinstance(e["metrics"], dict)
    text = (folder / "samples.jsonl").read_text(encoding="utf-8")
    assert samples_digest(text, data.get("run_id")) == data["samples_sha256"]
    lines = [line for line in text.split("\n") if line.strip()]
    objects = json.loads("[" + ",".join(lines) + "]")
    names = {f.name for f in fields(Sample)}
    out: dict[tuple[str, str], list[Sample]] = {}
    for obj in objects:
        if obj.get("run_id") != data.get("run_id") or not names <= obj.keys():
            raise ValueError("not sealed")
        sample = object.__new__(Sample)
        sample.__dict__.update({k: v for k, v in obj.items() if k in names})
        out.setdefault((obj["dataset"], obj["model"]), []).append(sample)
    return sum(len(v) for v in out.values())


def records(folder: Path) -> int:
    """Today's reader."""
    from whatifbench.runner.results import load_runs

    return sum(len(r.samples) for r in load_runs(folder))


def pydantic_readers() -> dict[str, Callable[[Path], int]]:
    """pydantic v2 validating the same samples (``{}`` without pydantic)."""
    try:
        from pydantic import BaseModel, ConfigDict, TypeAdapter
    except ImportError:
        return {}
    from typing import Optional

    from typing_extensions import TypedDict

    class SampleDict(TypedDict):
        run_id: Optional[str]  # noqa: UP045
        dataset: str
        model: str
        item_id: str
        pair_id: Optional[str]  # noqa: UP045
        role: Optional[str]  # noqa: UP045
        group: Optional[str]  # noqa: UP045
        question: str
        prompt: str
        target: str
        response: Optional[str]  # noqa: UP045
        scores: Optional[list[float]]  # noqa: UP045
        prediction: Optional[str]  # noqa: UP045
        correct: Optional[bool]  # noqa: UP045
        unparsed: bool
        flag: Optional[str]  # noqa: UP045
        error: Optional[str]  # noqa: UP045
        parses: dict[str, Optional[str]]  # noqa: UP045
        meta: dict[str, Any]
        score: Optional[float]  # noqa: UP045
        judgement: dict[str, Any]
        trace: Optional[dict[str, Any]]  # noqa: UP045
        model_input: Optional[str]  # noqa: UP045
        generation: Optional[dict[str, Any]]  # noqa: UP045

    class SampleModel(BaseModel):
        model_config = ConfigDict(strict=True, frozen=True)
        __annotations__ = dict(SampleDict.__annotations__)

    as_dicts = TypeAdapter(list[SampleDict], config=ConfigDict(strict=True))
    as_models = TypeAdapter(list[SampleModel])

    def blob(folder: Path) -> bytes:
        text = (folder / "samples.jsonl").read_text(encoding="utf-8")
        return ("[" + ",".join(t for t in text.split("\n") if t.strip()) + "]").encode()

    return {"pydantic TypedDict": lambda f: len(as_dicts.validate_json(blob(f))),
            "pydantic BaseModel": lambda f: len(as_models.validate_json(blob(f)))}


def best(read: Callable[[Path], int], folder: Path, repeat: int) -> tuple[float, int]:
    """The least CPU time of ``repeat`` reads (the machine may be shared: CPU time, best of)."""
    times = []
    n = 0
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        n = read(folder)
        times.append(time.process_time() - start)
    return min(times), n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", metavar="DIR", help="build in DIR (reused when it exists)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        runs = root / "runs"
        if not (runs / "results.json").is_file():
            from bench_items import make_dataset, make_runs

            os.environ["WHATIF_HOME"] = str(root / "home")
            root.mkdir(parents=True, exist_ok=True)
            make_runs(make_dataset(root / "ds"), runs, 3)
        readers = {"before": before, "records": records, **pydantic_readers()}
        results = {name: best(read, runs, args.repeat) for name, read in readers.items()}
        base = results["before"][0]
        for name, (seconds, n) in results.items():
            print(f"{name:20s} {n:6d} samples  {seconds:.3f} s CPU  {seconds / base:.2f} × before")


if __name__ == "__main__":
    main()
