"""``whatif items DATASET RUN... [--json FILE] [--csv FILE] [--bank FILE] [--cleaned DIR]``: a
thin layer over ``whatifbench.analysis.items``."""

from __future__ import annotations

import argparse
import textwrap
import time

from whatifbench.core.registry import register


@register("command", "items")
class ItemsCommand:
    """Item quality: which items are broken, which measure anything (and an IRT item bank)."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """DATASET, RUN..., --json, --csv, --bank, --cleaned, --top, --overwrite."""
        parser.description = textwrap.fill(
            "Per item, from every run and human run given: share right, difficulty and "
            "discrimination (point-biserial; a 2PL IRT fit with 20 runs or more), people's "
            "majority answer and agreement, whether the text alone answers it (the audit's "
            "cache), whether the image changes the answer (runs with and without images), "
            "parse failures and judge disagreement; suspect items (a likely wrong key, never "
            "parsed, negative discrimination, answerable blind) first, with their reasons. "
            "docs/item-quality.md explains each flag and what to do about it.", 79,
            break_on_hyphens=False)
        parser.add_argument("dataset", metavar="DATASET", help="the dataset folder")
        parser.add_argument("runs", nargs="+", metavar="RUN",
                            help="run folders of this dataset ('whatif run --out', 'whatif "
                                 "human import/export'); a folder may hold several runs")
        parser.add_argument("--json", metavar="FILE",
                            help="write every item as {\"items\": [{\"id\", \"suspect\", "
                                 "\"reasons\", ...}]}, suspects first")
        parser.add_argument("--csv", metavar="FILE", help="write every item as a CSV row")
        parser.add_argument("--bank", metavar="FILE",
                            help="fit a 2PL item bank from the runs (20 or more) for 'whatif "
                                 "run --budget N --bank FILE'")
        parser.add_argument("--cleaned", metavar="DIR",
                            help="a reviewed version of DATASET ('whatif review import'): show "
                                 "each run's score on it beside the original")
        parser.add_argument("--top", type=int, default=20, metavar="N",
                            help="suspects printed (default 20; --json/--csv hold all)")
        parser.add_argument("--overwrite", action="store_true",
                            help="replace existing --json/--csv/--bank files")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Compute, print the suspects, write what was asked."""
        from whatifbench.analysis.items.output import (
            bank_json,
            bank_of,
            enough_for_bank,
            report_csv,
            report_json,
            suspects_table,
        )
        from whatifbench.analysis.items.report import analyse
        from whatifbench.analysis.items.responses import load_respondents
        from whatifbench.core.dataset import load_dataset
        from whatifbench.core.outputs import check_distinct, check_output, write_output_file
        from whatifbench.core.table import terminal_width

        start = time.perf_counter()
        inputs = [args.dataset, *args.runs, *([args.cleaned] if args.cleaned else [])]
        outputs = [(o, p) for o, p in (("json", args.json), ("csv", args.csv),
                                       ("bank", args.bank)) if p]
        check_distinct((f"--{option}", path) for option, path in outputs)  # before any work
        for _, path in outputs:
            check_output(path, inputs, args.overwrite, file=True)
        dataset = load_dataset(args.dataset, check_images=False)
        notes: list[str] = []
        respondents = load_respondents(dataset, args.runs, notes)
        if args.bank:
            enough_for_bank(respondents)
        report, irt = analyse(dataset, respondents, notes)
        print(suspects_table(report, max(0, args.top)).to_text(terminal_width()))
        texts = {"json": lambda: report_json(report), "csv": lambda: report_csv(report)}
        if args.bank:
            bank = bank_of(dataset, irt)
            texts["bank"] = lambda: bank_json(bank)
        for kind, path in outputs:
            write_output_file(path, texts[kind]().encode("utf-8"), args.overwrite, inputs)
            print(f"Wrote {kind} to {path}")
        if args.cleaned:
            from whatifbench.analysis.items.cleaned import cleaned_table

            print()
            print(cleaned_table(dataset, load_dataset(args.cleaned, check_images=False),
                                args.runs).to_text(terminal_width()))
        print(f"({time.perf_counter() - start:.1f} s)")
        return 0

