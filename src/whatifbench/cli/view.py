"""``whatif view RUN_DIR ...``: serve the explorer on 127.0.0.1 and open it in a browser."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path
from typing import Any


def port_number(value: str) -> int:
    """``--port``: a TCP port, 0 to 65535 (0: a free one)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(
            f"{value} is not a port (ports are 0 to 65535; leave --port out for a free one)")
    return number


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """``--port`` and ``--no-browser`` (``--no-open`` is accepted too, undocumented) of the
    commands that serve a page (``view``, ``human serve``)."""
    parser.add_argument("--port", type=port_number, default=0,
                        help="port (default: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--no-open", dest="no_browser", action="store_true",
                        help=argparse.SUPPRESS)


def add_view(sub: Any) -> None:
    """``whatif view``."""
    p = sub.add_parser("view", help="open the results explorer of run folders in a browser",
                       description="Serve the results explorer of one or more 'whatif run' "
                       "(or 'whatif report') folders on 127.0.0.1 and open it in a browser: the "
                       "same page as report.html, with every image at full size read from the "
                       "dataset folders. Stop with Ctrl-C.")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--dataset-root", action="append", default=[], metavar="DIR",
                   help="where datasets moved to (the dataset folder or its parent; "
                        "repeatable)")
    add_server_options(p)
    p.set_defaults(func=view_command)


def view_command(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from whatifbench.report.bounded_server import serve_until_interrupted
    from whatifbench.report.payload import Options
    from whatifbench.report.serve import make_server
    from whatifbench.report.sources import load_sources

    notes: list[str] = []
    sources = load_sources(args.runs, notes)
    for note in notes:
        print(f"whatif: note: {note}", file=sys.stderr)
    options = Options(dataset_roots=tuple(Path(d) for d in args.dataset_root))
    server = make_server(sources, options, args.port)
    print(f"Serving the results explorer at {server.url} (Ctrl-C stops it)", flush=True)
    if not args.no_browser:
        webbrowser.open(server.url)
    serve_until_interrupted(server, "Stopped.")
    return 0
