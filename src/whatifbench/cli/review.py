"""``whatif review export|import``: a thin layer over ``whatifbench.review.api``."""

from __future__ import annotations

import argparse

from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.review.api import KEYS, export_review, import_review
from whatifbench.review.keys import KeysReviewer


@register("reviewer", KEYS)
class KeysSheet(KeysReviewer):
    """Answer keys of any dataset, one row per item (``--sheet keys``).

    Registered here because ``review/`` is not a plugin package (``core.registry``)."""


@register("command", "review")
class ReviewCommand:
    """Human review: export a sheet (CSV/HTML) of a dataset, import the decisions."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """The ``export`` and ``import`` sub-commands."""
        sub = parser.add_subparsers(dest="review_action", metavar="ACTION")
        exp = sub.add_parser("export", help="write a review sheet (.csv or .html)",
                             description="Write a review sheet of DATASET: .csv to fill in a "
                             "spreadsheet, .html to view the images and fill it in a browser.")
        exp.add_argument("dataset", metavar="DATASET")
        exp.add_argument("--out", required=True, metavar="SHEET", help="sheet.csv or sheet.html")
        exp.add_argument("--overwrite", action="store_true", help="replace an existing sheet")
        exp.add_argument("--sheet", metavar="KIND",
                         help="which sheet: keys (any dataset's answer keys, one row per item) "
                              "or a dataset kind's own (default: the dataset's)")
        exp.add_argument("--suspects", metavar="ITEMS_JSON",
                         help="a 'whatif items --json' file: its suspect items come first, "
                              "with their reasons")
        imp = sub.add_parser("import", help="apply a filled-in sheet",
                             description="Apply accept/edit/reject/new decisions of SHEET to "
                             "DATASET, writing a new dataset (--out) or replacing it atomically "
                             "(--in-place).")
        imp.add_argument("dataset", metavar="DATASET")
        imp.add_argument("sheet_file", metavar="SHEET", help="the filled-in CSV sheet")
        imp.add_argument("--out", metavar="DIR", help="folder for the reviewed dataset")
        imp.add_argument("--in-place", action="store_true",
                         help="replace DATASET with the reviewed dataset (atomic)")
        imp.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
        imp.add_argument("--sheet", metavar="KIND",
                         help="the sheet's kind as exported (a keys sheet is recognised by "
                              "its answer_key column)")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Dispatch to the API."""
        if args.review_action == "export":
            path = export_review(args.dataset, args.out, overwrite=args.overwrite,
                                 sheet=args.sheet, suspects=args.suspects)
            print(f"Wrote the review sheet {path}")
            return 0
        if args.review_action == "import":
            card = import_review(args.dataset, args.sheet_file, args.out,
                                 in_place=args.in_place, overwrite=args.overwrite,
                                 kind=args.sheet)
            where = args.dataset if args.in_place else args.out
            decisions = card.counts.get("review", {})
            summary = ", ".join(f"{n} {d}" for d, n in decisions.items()) or "none"
            print(f"Wrote {card.counts.get('items', 0)} items ({card.counts.get('pairs', 0)} "
                  f"pairs) to {where}; decisions: {summary}")
            note = card.extra.get("reviewed")
            if isinstance(note, dict) and note.get("note"):
                print(f"{note['note']} New version: {card.version}.")
            return 0
        raise WhatifError("'whatif review' needs an action: export or import.")
