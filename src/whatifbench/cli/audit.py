"""``whatif audit DATASET [--json] [--by KEY] [--strict] [--refresh]``: a thin layer over
``whatifbench.analysis.audit.audit``."""

from __future__ import annotations

import argparse
import json
import time

from whatifbench.core.registry import register

EXIT_CODES = """exit status:
  0    audited (and, with --strict, nothing flagged)
  1    --strict, and the dataset or a slice is flagged: answerable without the image
  2    bad input (not a dataset, a --by key no item has, scikit-learn missing)"""


@register("command", "audit")
class AuditCommand:
    """Validity audit: blind baselines per slice and pair rules (can it be passed blind?)."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """DATASET, --json, --by, --strict, --refresh."""
        parser.description = (
            "What a score on a dataset can mean: blind baselines that read only the question "
            "and options (option priors, majority per wording, a learned scorer), "
            "cross-validated by pair, beside chance, per slice (template, category, task type, "
            "role, group; --by any meta key), flagged where guessing blind clearly beats "
            "chance; and how often a counterfactual answer follows from the original's by a "
            "fixed rule. The result is cached by the dataset's items hash.")
        parser.epilog = EXIT_CODES
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        parser.add_argument("dataset", metavar="DATASET", help="a dataset folder")
        parser.add_argument("--json", action="store_true",
                            help="print the result as one JSON object")
        parser.add_argument("--by", action="append", default=[], metavar="KEY",
                            help="also slice by this key: an item field (group, role, kind) or "
                                 "any meta key (repeatable)")
        parser.add_argument("--strict", action="store_true",
                            help="exit 1 when the dataset or a slice is flagged (for CI of "
                                 "generators)")
        parser.add_argument("--refresh", action="store_true",
                            help="compute again even when a cached result exists")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Audit, print, and say whether anything is flagged."""
        from whatifbench.analysis.audit.audit import audit_dataset, flagged_slices
        from whatifbench.analysis.audit.tables import headline, tables
        from whatifbench.report.table import terminal_width

        start = time.perf_counter()
        result = audit_dataset(args.dataset, by=args.by, refresh=args.refresh)
        flagged = bool(result["blind"].get("flagged")) or bool(flagged_slices(result))
        if args.json:
            print(json.dumps(result, ensure_ascii=False, indent=1))
        else:
            print(headline(result))
            for table in tables(result):
                print()
                print(table.to_text(terminal_width()))
            print(f"\n({time.perf_counter() - start:.1f} s)")
        return 1 if args.strict and flagged else 0
