"""``whatif audit DATASET [--json] [--by KEY] [--strict] [--refresh]`` and ``whatif audit
--generator NAME --seeds 7,8,9 [-p key=value ...]``: a thin layer over
``whatifbench.analysis.audit.audit`` and ``.seeds``."""

from __future__ import annotations

import argparse
import json
import textwrap
import time
from pathlib import Path

from whatifbench.core.registry import register
from whatifbench.errors import EXIT_FLAGGED, WhatifError

EXIT_CODES = f"""exit status:
  0    audited (and, with --strict, nothing flagged)
  1    internal error (a bug in whatifbench)
  2    bad input (not a dataset, a --by key no item has, an unknown generator or -p option,
       scikit-learn missing)
  {EXIT_FLAGGED}    --strict, and the dataset, a slice or a metadata probe is flagged: answerable
       without the image"""


@register("command", "audit")
class AuditCommand:
    """Validity audit: blind baselines, metadata probes, pair rules (can it be passed blind?)."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """DATASET (or --generator, --seeds, -p), --json, --by, --strict, --refresh."""
        parser.description = textwrap.fill(
            "What a score on a dataset can mean: blind baselines that read only the question "
            "and options (option priors, majority per wording, a learned scorer), "
            "cross-validated by pair, beside chance, per slice (template, category, task type, "
            "role, group; --by any meta key); metadata probes that read what a harness could "
            "show besides the text (file names, ids, groups, member order, letters within "
            "pairs); every figure flagged where guessing clearly beats chance (Holm-corrected "
            "over a guesser's slices); and how often a counterfactual answer follows from the "
            "original's by a fixed rule. The result is cached by the dataset's items hash. "
            "With --generator and --seeds it generates each seed into a temporary folder, "
            "audits them and flags what replicates.", 79, break_on_hyphens=False)
        parser.epilog = EXIT_CODES
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        parser.add_argument("dataset", metavar="DATASET", nargs="?",
                            help="a dataset folder (or --generator with --seeds)")
        parser.add_argument("--generator", metavar="NAME",
                            help="audit this generator over --seeds instead of a dataset")
        parser.add_argument("--seeds", metavar="S,S,...",
                            help="with --generator: the seeds to generate and pool, e.g. 7,8,9")
        parser.add_argument("-p", dest="params", action="append", default=[],
                            metavar="KEY=VALUE",
                            help="with --generator: one of its options, e.g. -p per_category=200 "
                                 "or -p design=paper (repeatable; a switch: -p KEY)")
        parser.add_argument("--json", action="store_true",
                            help="print the result as one JSON object")
        parser.add_argument("--by", action="append", default=[], metavar="KEY",
                            help="also slice by this key: an item field (group, role, kind) or "
                                 "any meta key (repeatable)")
        parser.add_argument("--strict", action="store_true",
                            help=f"exit {EXIT_FLAGGED} when the dataset, a slice or a metadata "
                                 "probe is flagged (for CI of generators)")
        parser.add_argument("--refresh", action="store_true",
                            help="compute again even when a cached result exists")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Audit, print, and say whether anything is flagged."""
        from whatifbench.analysis.audit.audit import audit_dataset, flag_labels
        from whatifbench.analysis.audit.tables import headline, seeds_headline, tables
        from whatifbench.core.dataset import refuse_run_folder
        from whatifbench.core.table import terminal_width

        start = time.perf_counter()
        if _generator_audit(args):
            from whatifbench.analysis.audit.seeds import audit_generator, parse_seeds

            result = audit_generator(args.generator, parse_seeds(args.seeds), args.params,
                                     by=args.by, refresh=args.refresh, progress=_progress)
        else:
            refuse_run_folder(Path(args.dataset), "The audit reads datasets; pass the dataset "
                              "folder.")
            result = audit_dataset(args.dataset, by=args.by, refresh=args.refresh)
            _unkept(result["dataset"]["items_sha256"])
        flagged = bool(flag_labels(result))
        if args.json:
            print(json.dumps(result, ensure_ascii=False, indent=1))
        else:
            print(seeds_headline(result) if "runs" in result else headline(result))
            for table in tables(result):
                print()
                print(table.to_text(terminal_width()))
            print(f"\n({time.perf_counter() - start:.1f} s)")
        return EXIT_FLAGGED if args.strict and flagged else 0


def _generator_audit(args: argparse.Namespace) -> bool:
    """Whether the command line asks for a generator over seeds (else a dataset); refuses the
    mixtures with one sentence."""
    if args.generator is None:
        if args.seeds is not None or args.params:
            raise WhatifError("--seeds and -p go with --generator NAME (whatif audit --generator "
                              "NAME --seeds 7,8,9); to audit a dataset leave them out.")
        if args.dataset is None:
            raise WhatifError("Name a dataset folder to audit (whatif audit DATASET), or a "
                              "generator and its seeds (whatif audit --generator NAME --seeds "
                              "7,8,9).")
        return False
    if args.dataset is not None:
        raise WhatifError(f"Give either a dataset ({args.dataset}) or --generator "
                          f"{args.generator}, not both.")
    if args.seeds is None:
        raise WhatifError(f"--generator {args.generator} needs --seeds, e.g. --seeds 7,8,9: the "
                          "seeds to generate and audit.")
    return True


def _unkept(items_sha256: str) -> None:
    """Say so when the audit could not be kept (a read-only or full ``$WHATIF_HOME``)."""
    from whatifbench.analysis.audit.store import audit_path, load_audit

    if load_audit(items_sha256) is None:
        _progress(f"note: the audit could not be kept at {audit_path(items_sha256)} (read-only "
                  "or full $WHATIF_HOME), so reports show no blind row for this dataset; make "
                  "$WHATIF_HOME writable and audit again to add it.")


def _progress(message: str) -> None:
    """Progress of a generator audit, on stderr (stdout stays the result)."""
    import sys

    print(f"whatif audit: {message}", file=sys.stderr, flush=True)
