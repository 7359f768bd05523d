"""``whatif``: a thin command line over the public API."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import sys
import traceback
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from whatifbench import __version__
from whatifbench.cli import commands, view
from whatifbench.cli.terminal import safe_output
from whatifbench.core.outside import owner
from whatifbench.core.registry import listing, lookup
from whatifbench.core.suggest import closest
from whatifbench.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USER,
    WhatifDeprecationWarning,
    WhatifError,
)
from whatifbench.secrets import redact

TOOLS = (
    ("generator", "generate", "generate a procedural suite into a dataset folder"),
    ("importer", "import", "turn released files into a dataset folder"),
    ("builder", "build", "run a construction pipeline (LLM-assisted) into a dataset folder"),
)


class Parser(argparse.ArgumentParser):
    """``argparse`` with a "did you mean" for a mistyped command, tool name, choice or option
    (its subparsers are of this class too)."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and value not in choices:
            near = closest(str(value), [str(c) for c in choices])
            hint = f"; did you mean {near!r}?" if near else ""
            listed = ", ".join(repr(str(c)) for c in choices)
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{hint} (choose from {listed})")
        super()._check_value(action, value)

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        words = list(sys.argv[1:] if args is None else args)
        parsed, extras = self.parse_known_args(words, namespace)
        if extras:
            parser = self._parser_for(words)  # its usage, not the top level's
            options = [o for o in parser._option_string_actions if o.startswith("--")]
            hints = [f"did you mean {near}?" for near in
                     (closest(x.split("=", 1)[0], options) for x in extras if x.startswith("-"))
                     if near]
            parser.error(f"unrecognized arguments: {' '.join(extras)}"
                         + (f"; {'; '.join(hints)}" if hints else ""))
        return parsed

    def _parser_for(self, words: Sequence[str]) -> argparse.ArgumentParser:
        """The parser of the (sub)command the words name."""
        parser: argparse.ArgumentParser = self
        for word in words:
            found = None
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction) and word in action.choices:
                    found = action.choices[word]
            if found is not None:
                parser = found
        return parser


def _words(argv: Sequence[str]) -> list[str]:
    """The leading words of a command line (before its first option): command, tool name."""
    words = []
    for arg in argv:
        if arg.startswith("-"):
            break
        words.append(arg)
    return words


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser. Plugins are listed from the registry's manifest; only the plugin the
    command line names (``whatif generate NAME``, ``whatif review``) is imported to add its
    options. ``argv=None`` builds every plugin's options (imports them all)."""
    words = None if argv is None else _words(argv)

    def chosen(*path: str) -> bool:
        return words is None or words[:len(path)] == list(path)

    parser = Parser(
        prog="whatif",
        description="Build, run and analyse counterfactual and causal reasoning benchmarks "
                    "for vision-language models.",
    )
    parser.add_argument("--version", action="version", version=f"whatifbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_run(sub)
    for kind, verb, help_text in TOOLS:
        commands.add_tools(sub, kind, verb, help_text, functools.partial(chosen, verb))
    commands.add_export(sub, functools.partial(chosen, "export"))
    commands.add_report(sub)
    view.add_view(sub)
    commands.add_stats(sub)
    commands.add_listing(sub)
    for listed in listing("command"):
        p = sub.add_parser(listed.name, help=listed.summary, description=listed.summary)
        if chosen(listed.name):
            from whatifbench.cli.params import add_tool_options
            from whatifbench.core.params import entry_or_warn

            tool = lookup("command", listed.name).obj
            fn = entry_or_warn(tool, "command")
            if fn is None:
                tool.add_arguments(p)
                p.set_defaults(func=tool.run)
            else:
                add_tool_options(p, fn, listed.name)
                p.set_defaults(func=commands.command_runner(fn))
    return parser


def _demo() -> list[str]:
    """Bare ``whatif``: the demo run, announced (what it does, where it writes)."""
    from whatifbench.runner.results import default_run_folder

    out = default_run_folder()
    print(f"whatif: no command given, so this runs the demo ('whatif run' without options): "
          "the built-in reference models on a small generated C-VQA-Synthetic suite (made once "
          f"under $WHATIF_HOME), with the results written into {out} ('whatif --help' lists "
          "the commands, 'whatif run --help' the options of a run).", file=sys.stderr,
          flush=True)
    return ["run", "--out", str(out)]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run a command; user errors print one message and exit 2 (exit codes:
    ``whatifbench.errors``). Messages pass ``secrets.redact``; everything printed is cleaned of
    control sequences (``cli.terminal``)."""
    with safe_output(), sigterm_as_interrupt():
        return _main(argv)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread: every ``finally`` and ``except KeyboardInterrupt``
    runs as for Ctrl-C (temporary folders removed, partial outputs discarded)."""


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into ``Terminated`` for the block (the main thread only; a second SIGTERM
    during the clean-up is ignored, so the clean-up finishes). A forked child (a plugin's pool
    worker, which its pool stops with SIGTERM) inherits the handler and dies of the signal."""
    owner = os.getpid()

    def terminated(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    warnings.simplefilter("default", WhatifDeprecationWarning)  # once each, to plugin authors
    try:
        if not argv:
            argv = _demo()
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not hasattr(args, "func"):
            parser.print_help()
            return EXIT_USER
        try:
            code = args.func(args)
        except SystemExit as exc:  # a plugin's sys.exit never ends whatif silently
            return _plugin_exit(exc)
        return int(code or 0)
    except WhatifError as exc:
        found = owner(exc.__traceback__)
        said = f"whatif: error (plugin {found[0]}): {exc}" if found else f"whatif: error: {exc}"
        print(redact(said), file=sys.stderr)
        return EXIT_USER
    except Terminated:
        print("\nwhatif: terminated (SIGTERM); temporary files were removed. Every response "
              "received so far is saved in the run store; run the same command again to resume.",
              file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("\nwhatif: interrupted. Every response received so far is saved in the run store; "
              "run the same command again to resume.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_INTERNAL
    except Exception as exc:  # noqa: BLE001  (a bug: say so plainly, keep the trace)
        if os.environ.get("WHATIF_DEBUG"):
            traceback.print_exc()
        elif (found := owner(exc.__traceback__)) is not None:
            print(redact(f"whatif: error in the plugin package {found[0]} (module {found[1]}): "
                         f"{type(exc).__name__}: {exc}. This is a bug in {found[0]}, not in "
                         f"whatifbench; report it to its authors (WHATIF_DEBUG=1 shows the "
                         "traceback)."), file=sys.stderr)
        else:
            print(redact(f"whatif: internal error ({type(exc).__name__}: {exc}). This is a bug "
                         "in whatifbench; rerun with WHATIF_DEBUG=1 for the traceback and report "
                         "it."), file=sys.stderr)
        return EXIT_INTERNAL


def _plugin_exit(exc: SystemExit) -> int:
    """A ``SystemExit`` raised while a command ran: whatif's own (re-raised) or a plugin's,
    which is said and ends the command as a plugin's error, never with the plugin's status
    (``sys.exit(3)`` would read as "finished with backend errors")."""
    found = owner(exc.__traceback__)
    if found is None:
        raise exc
    print(redact(f"whatif: error in the plugin package {found[0]} (module {found[1]}): it "
                 f"called sys.exit({exc.code!r}) inside whatif, which would end the command "
                 f"with no word of why. This is a bug in {found[0]}: a plugin raises "
                 "WhatifError for a user's mistake (or returns); report it to its authors "
                 "(WHATIF_DEBUG=1 shows the traceback)."), file=sys.stderr)
    if os.environ.get("WHATIF_DEBUG"):
        traceback.print_exception(exc)
    return EXIT_INTERNAL
