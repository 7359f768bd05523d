"""The published JSON Schemas of a run folder's files, generated from the records:
``results.schema.json`` (``results.json``, version ``VERSION``, each registered suite's metrics
checked by its ``metrics_schema``) and ``samples.schema.json`` (one line of ``samples.jsonl``).

    python -m whatifbench.core.records.publish    # rewrites both files beside this module

tests/test_records_schema.py regenerates them and fails when they differ, and validates the
files a run writes against them with ``jsonschema``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from whatifbench.core.records.jsonschema import SchemaWriter
from whatifbench.core.records.results_file import FORMAT, VERSION, ResultsFile
from whatifbench.core.records.sample import Sample

HERE = Path(__file__).resolve().parent
RESULTS_SCHEMA = HERE / "results.schema.json"
SAMPLES_SCHEMA = HERE / "samples.schema.json"
BASE = "urn:whatifbench:schema:"


def results_schema() -> dict[str, Any]:
    """The JSON Schema of ``results.json`` as this version writes it."""
    from whatifbench.core.registry import listing, lookup

    writer = SchemaWriter()
    top = writer.of(ResultsFile)
    body = writer.defs["ResultsFile"]
    body["properties"]["format"] = {"const": FORMAT}
    body["properties"]["version"] = {"const": VERSION}
    body["required"] = sorted({*body.get("required", ()), "format", "version"})
    by_suite = []
    for listed in listing("suite"):
        if not listed.module.startswith("whatifbench."):
            continue  # a plugin's schema is its own
        schema = getattr(lookup("suite", listed.name).obj, "metrics_schema", None)
        if schema is not None:
            by_suite.append({"if": {"properties": {"suite": {"const": listed.name}}},
                             "then": {"properties": {"metrics": writer.of(schema)}}})
    writer.defs["RunEntry"]["allOf"] = by_suite
    return {"$schema": SchemaWriter.DIALECT, "$id": BASE + "results.schema.json",
            "title": "whatifbench results.json",
            "description": "The runs of one run folder: each run's suite, dataset, model, "
                           "metrics and spec (docs/files.md).", **top,
            "$defs": dict(sorted(writer.defs.items()))}


def samples_schema() -> dict[str, Any]:
    """The JSON Schema of one line of ``samples.jsonl``."""
    writer = SchemaWriter()
    writer.of(Sample)
    line = dict(writer.defs.pop("Sample"))
    line["properties"] = {"run_id": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                          "dataset": {"type": "string"}, "model": {"type": "string"},
                          **line["properties"]}
    line["required"] = ["dataset", "model", *line.get("required", [])]
    return {"$schema": SchemaWriter.DIALECT, "$id": BASE + "samples.schema.json",
            "title": "whatifbench samples.jsonl line", **line,
            **({"$defs": writer.defs} if writer.defs else {})}


def text(schema: dict[str, Any]) -> str:
    """A schema file's text."""
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


def write() -> list[Path]:
    """Rewrite both schema files."""
    RESULTS_SCHEMA.write_text(text(results_schema()), encoding="utf-8")
    SAMPLES_SCHEMA.write_text(text(samples_schema()), encoding="utf-8")
    return [RESULTS_SCHEMA, SAMPLES_SCHEMA]


if __name__ == "__main__":
    for path in write():
        print(f"wrote {path}", file=sys.stderr)
