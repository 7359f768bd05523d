"""``whatif human serve|import|export|references``: a thin layer over ``whatifbench.human.api``."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path

from whatifbench.cli.view import add_server_options
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive whole number")
    return number


@register("command", "human")
class HumanCommand:
    """Human baselines: annotate in a local web app, import a crowd sheet, export the answers."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """The ``serve``, ``import``, ``export`` and ``references`` sub-commands."""
        sub = parser.add_subparsers(dest="human_action", metavar="ACTION")
        s = sub.add_parser(
            "serve", help="annotate a dataset in a local web app",
            description="Serve a keyboard-first annotation app for DATASET on 127.0.0.1 (unless "
            "--host is given; then only with the access token in the link). Answers are saved "
            "as they are given under $WHATIF_HOME/human/, keyed by the dataset's hash and the "
            "annotator: stop the server any way you like and start it again to resume.")
        s.add_argument("dataset", metavar="DATASET")
        s.add_argument("--annotator", action="append", default=[], metavar="NAME",
                       help="print (and open) this annotator's link; repeat for several people. "
                            "Without it the page asks for a name")
        s.add_argument("--host", metavar="ADDRESS",
                       help="listen on this address (e.g. 0.0.0.0 for a lab network); the links "
                            "then carry a random access token, printed only to a terminal "
                            "(never to a file or pipe) unless --show-token. Default: 127.0.0.1 "
                            "only")
        s.add_argument("--show-token", action="store_true",
                       help="with --host: print the links with their access token even when "
                            "the output is not a terminal (it then lands in that file or log)")
        s.add_argument("--per-item", type=_positive, metavar="K",
                       help="deal each item to K annotators only (default: everyone gets every "
                            "item)")
        s.add_argument("--limit", type=_positive, metavar="N",
                       help="about N items: whole pairs spread over the groups, as 'whatif run "
                            "--limit'")
        s.add_argument("--seed", type=int, default=0, help="seed of the order (default 0)")
        s.add_argument("--store", metavar="FILE",
                       help="annotation store (default $WHATIF_HOME/human/<items sha256>.sqlite)")
        add_server_options(s)
        i = sub.add_parser(
            "import", help="a crowd sheet (CSV/JSONL) → a run folder",
            description="Score a crowd sheet (CSV or JSONL with item_id, annotator, answer and "
            "optionally seconds) with the suite's own parser and metrics and write a run folder "
            "with one row per annotator and, with three or more, a human (majority) row.")
        i.add_argument("dataset", metavar="DATASET")
        i.add_argument("sheet", metavar="SHEET", help="sheet.csv or sheet.jsonl")
        i.add_argument("--out", required=True, metavar="RUN_DIR", help="new (or empty) folder")
        i.add_argument("--skip-invalid", action="store_true",
                       help="skip rows with problems (listed) instead of stopping")
        i.add_argument("--overwrite", action="store_true",
                       help="replace --out if it holds an earlier run (only a run folder we wrote)")
        e = sub.add_parser(
            "export", help="the app's answers → a run folder",
            description="Write the answers collected by 'whatif human serve' for DATASET as a run "
            "folder (results, samples, report), one row per annotator and, with three or more, a "
            "human (majority) row.")
        e.add_argument("dataset", metavar="DATASET")
        e.add_argument("--out", required=True, metavar="RUN_DIR", help="new (or empty) folder")
        e.add_argument("--annotator", action="append", default=[], metavar="NAME",
                       help="only these annotators (repeatable)")
        e.add_argument("--store", metavar="FILE", help="annotation store (default: the dataset's)")
        e.add_argument("--overwrite", action="store_true",
                       help="replace --out if it holds an earlier run (only a run folder we wrote)")
        r = sub.add_parser(
            "references", help="MuCR: a dataset copy with the explanations as judge references",
            description="Write a copy of a MuCR DATASET whose Exp items carry the explanations "
            "people wrote in the app (or a sheet) as additional references for the judge.")
        r.add_argument("dataset", metavar="DATASET")
        r.add_argument("--out", required=True, metavar="NEW_DATASET")
        r.add_argument("--sheet", metavar="SHEET", help="take the explanations from a crowd sheet")
        r.add_argument("--store", metavar="FILE", help="annotation store (default: the dataset's)")
        r.add_argument("--overwrite", action="store_true", help="replace --out if it exists")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        """Dispatch to the API."""
        action = getattr(args, "human_action", None)
        if action == "serve":
            return _serve(args)
        if action in ("import", "export"):
            return _write(args)
        if action == "references":
            return _references(args)
        raise WhatifError("'whatif human' needs an action: serve, import, export or references.")


def _serve(args: argparse.Namespace) -> int:
    from whatifbench.cli.terminal import print_to_terminal, to_terminal
    from whatifbench.core.dataset import load_dataset
    from whatifbench.human import api
    from whatifbench.human.records import Settings, check_name
    from whatifbench.report.bounded_server import serve_until_interrupted

    names = [check_name(n) for n in args.annotator]
    dataset = load_dataset(args.dataset)
    settings = Settings(per_item=args.per_item, limit=args.limit, seed=args.seed)
    server = api.serve(dataset, settings, args.host, args.port, args.store)
    pool = server.store.pool
    print(f"Annotating {dataset.card.name}: {pool.n_items} items ({len(pool.units)} units), "
          f"{server.store.settings.describe()}; answers are saved in {server.store.path}",
          flush=True)
    links = [server.url(n) for n in names] or [server.url()]
    private = not server.local and (args.show_token or to_terminal(sys.stdout))
    for name, link in zip(names or ["(the page asks for a name)"], links, strict=True):
        if private:  # the user's own terminal: the link works as printed
            print_to_terminal(f"  {name}: {link}", sys.stdout)
        else:
            print(f"  {name}: {link}", flush=True)  # redacted: token=***
    if not server.local and not private:
        print("  (The links' access token is printed only to a terminal, to keep it out of "
              "logs and files: start the server in a terminal, or pass --show-token.)",
              flush=True)
    print("Ctrl-C stops the server; start it again to resume.", flush=True)
    if not args.no_browser:
        webbrowser.open(links[0])
    serve_until_interrupted(server, "Stopped; every answer is saved.")
    return 0


def _write(args: argparse.Namespace) -> int:
    from whatifbench.core.dataset import load_dataset
    from whatifbench.core.table import terminal_width
    from whatifbench.human import api
    from whatifbench.report.render import tables_for

    dataset = load_dataset(args.dataset)
    if args.human_action == "import":
        done = api.import_sheet(dataset, args.sheet, args.out, skip_invalid=args.skip_invalid,
                                overwrite=args.overwrite)
    else:
        done = api.export_runs(dataset, args.out, store=args.store, annotators=args.annotator,
                               overwrite=args.overwrite)
    for table in tables_for(done.runs):
        print()
        print(table.to_text(terminal_width()))
    for problem in done.skipped:
        print(f"skipped: {problem}", file=sys.stderr)
    if done.n_skipped > len(done.skipped):
        print(f"skipped: ... and {done.n_skipped - len(done.skipped)} more rows "
              f"({done.n_skipped} in all)", file=sys.stderr)
    print(f"\nResults: {done.paths['results.json']}\nReport:  {done.paths['report.html']}")
    return 0


def _references(args: argparse.Namespace) -> int:
    from whatifbench.core.dataset import load_dataset
    from whatifbench.human import api
    from whatifbench.human.sheet import read_sheet

    dataset = load_dataset(args.dataset)
    answers = (list(read_sheet(args.sheet, dataset).answers) if args.sheet
               else api.stored_answers(dataset, args.store))
    added = api.write_references(dataset, answers, Path(args.out), args.overwrite)
    print(f"Wrote {args.out}: {added} explanation(s) added as judge references.")
    return 0
