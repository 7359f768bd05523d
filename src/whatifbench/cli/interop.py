"""Other tools' formats in the registry: exporters ``hf``, ``lmms-eval`` and ``vlmevalkit``, the
importer ``hf`` and the command ``whatif import-results``. Thin layers: the work (and every
optional library) lives in ``whatifbench.integrations``, imported when a tool runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError


@register("exporter", "hf")
class HfExporter:
    """Hugging Face datasets folder: Parquet shards with Image features + dataset card."""

    suites = None
    """Every suite."""

    @staticmethod
    def read_back(export: Path, dataset: Dataset, work: Path) -> list[Item]:
        """The folder imported again (``whatif import hf``)."""
        from whatifbench.integrations.hf_datasets import import_hf

        import_hf(export, work)
        return list(load_dataset(work).items)

    @staticmethod
    def add_arguments(parser: argparse._ActionsContainer) -> None:
        """``--license`` and ``--with-answers`` (also used by lmms-eval, which writes the same
        folder inside)."""
        parser.add_argument("--license", default="unknown", metavar="ID",
                            help="hf, lmms-eval: license id for the dataset card (e.g. "
                                 "cc-by-4.0; default: unknown)")
        parser.add_argument("--with-answers", action="store_true",
                            help="hf, lmms-eval: write each item's whole record (answers, seeds "
                                 "and programs in provenance, private metadata, the images no "
                                 "item shows) for a copy into another whatifbench; by default "
                                 "rows hold what a harness may show (docs/integrations.md)")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Export with the parsed options."""
        from whatifbench.integrations.hf_datasets import export_hf

        done = export_hf(args.dataset, args.out, overwrite=args.overwrite, license=args.license,
                         with_answers=args.with_answers)
        print(f"{done.rows} items in {len(done.shards)} Parquet shard(s); load it with "
              f"datasets.load_dataset({str(args.out)!r}).")
        return 0


@register("importer", "hf")
class HfImporter:
    """A Hugging Face datasets folder (or Parquet file) written by 'whatif export --format hf'."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """``--path`` and, for a Parquet file without its card, ``--suite``."""
        parser.add_argument("--path", required=True, metavar="DIR_OR_PARQUET",
                            help="the exported folder (README.md + data/), or one .parquet file")
        parser.add_argument("--suite", help="suite of the items when no dataset card is found")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Import with the parsed options."""
        from whatifbench.integrations.hf_datasets import import_hf

        import_hf(args.path, args.out, overwrite=args.overwrite, suite=args.suite)
        return 0


@register("exporter", "lmms-eval")
class LmmsEvalExporter:
    """lmms-eval task folder: task YAML, plain utils.py, the data as a Hugging Face folder."""

    suites = None
    """Every suite."""

    @staticmethod
    def read_back(export: Path, dataset: Dataset, work: Path) -> list[Item]:
        """The task's data (its Hugging Face folder) imported again."""
        from whatifbench.integrations.hf_datasets import import_hf

        import_hf(export / "hf", work)
        return list(load_dataset(work).items)

    @staticmethod
    def add_arguments(parser: argparse._ActionsContainer) -> None:
        """``--task`` and ``--dataset-path``."""
        parser.add_argument("--task", metavar="NAME",
                            help="lmms-eval: task name (default whatif_<dataset name>)")
        parser.add_argument("--dataset-path", metavar="PATH_OR_HUB_ID",
                            help="lmms-eval: where the task loads the data (a --format hf folder "
                                 "or hub id); default: write it into OUT/hf")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Export with the parsed options."""
        from whatifbench.integrations.lmms.export import export_lmms_eval

        done = export_lmms_eval(args.dataset, args.out, overwrite=args.overwrite,
                                task=args.task, dataset_path=args.dataset_path,
                                license=args.license, with_answers=args.with_answers)
        print(f"lmms-eval task {done.task!r} (metrics: {', '.join(done.metrics)}); run it with\n"
              f"  lmms-eval --model MODEL --model_args ... --tasks {done.task} "
              f"--include_path {args.out} --log_samples --output_path logs/")
        return 0


@register("exporter", "vlmevalkit")
class VlmevalkitExporter:
    """VLMEvalKit custom multiple-choice TSV (base64 images, options A-D, pair columns)."""

    suites = None
    """Every suite (its multiple-choice items; free text is refused with a reason)."""

    @staticmethod
    def read_back(export: Path, dataset: Dataset, work: Path) -> list[Item]:
        """The TSV's rows as items (question, options, answer, pair columns; no images)."""
        from whatifbench.integrations.vlmevalkit import read_vlmevalkit

        return read_vlmevalkit(export)

    @staticmethod
    def add_arguments(parser: argparse._ActionsContainer) -> None:
        """``--choice-only``."""
        parser.add_argument("--choice-only", action="store_true",
                            help="vlmevalkit: leave out free-text items (MuCR's explanations)")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Export with the parsed options."""
        from whatifbench.integrations.vlmevalkit import export_vlmevalkit

        n = export_vlmevalkit(args.dataset, args.out, overwrite=args.overwrite,
                              choice_only=args.choice_only)
        name = Path(args.out).stem
        print(f"{n} questions; copy it to $LMUData/{name}.tsv and run VLMEvalKit with "
              f"--data {name}.")
        return 0


@register("command", "import-results")
class ImportResultsCommand:
    """Turn another tool's logged replies into a whatifbench run folder (results, report)."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """``lmms-eval SAMPLES --dataset DATASET --out RUN_DIR``."""
        tools = parser.add_subparsers(dest="tool", metavar="TOOL")
        lmms = tools.add_parser(
            "lmms-eval", help="samples of a task written by 'whatif export --format lmms-eval'",
            description="Score the samples lmms-eval logged (--log_samples) for a task written "
            "by 'whatif export --format lmms-eval' with whatifbench's own parsers, judges and "
            "metrics, and write a run folder like 'whatif run' does.")
        lmms.add_argument("samples", metavar="SAMPLES.jsonl",
                          help="lmms-eval's DATE_samples_TASK.jsonl, or the log folder holding "
                               "it (--output_path)")
        lmms.add_argument("--dataset", required=True, metavar="DATASET",
                          help="the whatifbench dataset the task was exported from")
        lmms.add_argument("--out", required=True, metavar="RUN_DIR", help="new (or empty) folder")
        lmms.add_argument("--overwrite", action="store_true",
                          help="replace --out if it holds an earlier run (only a run folder we "
                               "wrote)")
        lmms.add_argument("--model", metavar="NAME",
                          help="model name in the results (default lmms-eval:MODEL:PRETRAINED)")
        lmms.add_argument("--store", metavar="FILE",
                          help="run store (default $WHATIF_HOME/store.sqlite)")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Import, print the tables, write the run folder."""
        if args.tool != "lmms-eval":
            raise WhatifError("'whatif import-results' needs a tool: lmms-eval.")
        from whatifbench import api
        from whatifbench.core.dataset import load_dataset
        from whatifbench.core.outputs import check_output
        from whatifbench.integrations.lmms.samples import import_lmms_eval
        from whatifbench.report.table import terminal_width

        inputs = [args.samples, args.dataset, *([args.store] if args.store else [])]
        out = Path(args.out)
        check_output(out, inputs, args.overwrite, kind="run")  # before any work
        dataset = load_dataset(args.dataset, verify=True)
        done = import_lmms_eval(args.samples, dataset, model=args.model, store=args.store)
        paths = api.write_outputs(out, [done.run], args.overwrite, inputs)
        for table in api.tables_for([done.run]):
            print()
            print(table.to_text(terminal_width()))
        if done.disagreements:
            print(f"\nwarning: the task's utils.py scored {len(done.disagreements)} item(s) "
                  f"differently from whatifbench (first: {', '.join(done.disagreements[:5])}); "
                  "the results use whatifbench's scoring.", file=sys.stderr)
        else:
            print(f"\nThe task's own scoring agrees with whatifbench's on all {done.compared} "
                  "items it scored.")
        print(f"Results: {paths['results.json']}\nReport:  {paths['report.html']}")
        return 0
