"""``whatif analyze bias RUN --groups FILE``: a thin layer over ``whatifbench.analysis``."""

from __future__ import annotations

import argparse
from pathlib import Path

from whatifbench.analysis.bias import analyze_bias, bias_tables, write_bias
from whatifbench.core.outputs import check_output
from whatifbench.core.registry import register
from whatifbench.core.table import terminal_width
from whatifbench.errors import WhatifError


@register("command", "analyze")
class AnalyzeCommand:
    """Analyses of run results: 'bias' (accuracy drop by image subgroup, C-VQA §4.3)."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """The ``bias`` sub-command."""
        sub = parser.add_subparsers(dest="analysis", metavar="ANALYSIS")
        bias = sub.add_parser("bias", help="accuracy drop by image subgroup, with the gap's CI",
                              description="Join a CSV image,group with a run folder; per model "
                              "and subgroup: original and counterfactual accuracy, their diff, "
                              "and the gap between subgroups' diffs, with 95% intervals "
                              "(Newcombe, MOVER).")
        bias.add_argument("run", metavar="RUN", help="a 'whatif run' output folder")
        bias.add_argument("--groups", required=True, metavar="FILE",
                          help="CSV with columns image,group (image = COCO file name)")
        bias.add_argument("--out", metavar="DIR", help="where to write bias.json/.md/.png "
                          "(default RUN/bias)")
        bias.add_argument("--overwrite", action="store_true",
                          help="replace --out if it holds an earlier analysis of ours")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Run the analysis, print the tables, write the files."""
        if args.analysis != "bias":
            raise WhatifError("'whatif analyze' needs an analysis: bias.")
        out = Path(args.out) if args.out else Path(args.run) / "bias"
        # RUN/bias may sit inside the run folder; it must not touch the files it reads.
        inputs = [args.groups, Path(args.run) / "results.json", Path(args.run) / "samples.jsonl"]
        check_output(out, inputs, args.overwrite, kind="analysis")
        report = analyze_bias(args.run, args.groups)
        for table in bias_tables(report):
            print(table.to_text(terminal_width()))
            print()
        paths = write_bias(report, out, args.overwrite, inputs)
        print(f"Wrote {paths['json']}, {paths['md']} and {paths['png']}")
        return 0
