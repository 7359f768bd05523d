"""Sub-commands of ``whatif``; each parses options and calls the public API.

Building the parser imports nothing heavy: the modules a command needs are imported when it
runs, and plugins (``whatif generate NAME`` ...) are listed from the registry's manifest.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench.core.outside import BUILT_IN
from whatifbench.core.protocol import (
    ABLATIONS,
    ANSWER_MODES,
    DECODINGS,
    LAYOUTS,
    SCORE_BY,
    STRATEGIES,
    Protocol,
)
from whatifbench.core.registry import listing, lookup
from whatifbench.core.table import terminal_width
from whatifbench.errors import EXIT_BACKEND_ERRORS, WhatifError
from whatifbench.report import MAX_IMAGES, REPLY_CHARS

if TYPE_CHECKING:
    from whatifbench.runner.results import RunResult

RUN_EXIT_CODES = """exit status:
  0    success
  1    internal error (a bug in whatifbench)
  2    user error: bad input, or a model that cannot be used (one message, no outputs)
  3    the run finished and wrote its outputs, but some items ended in a backend error
       (shown in every table; run the same command again to retry exactly those)
  130  interrupted (Ctrl-C); rerun the same command to resume"""


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


# -- run -------------------------------------------------------------------------------------
def add_run(sub: Any) -> None:
    """``whatif run``."""
    p = sub.add_parser("run", help="evaluate models on datasets (no arguments: the built-in demo)",
                       description=textwrap.fill(
                           "Evaluate models on datasets. With no --suite it generates (once) a "
                           "small C-VQA-Synthetic suite; with no --model it runs the built-in "
                           "reference models that apply to each suite.", 79,
                           break_on_hyphens=False),
                       epilog=RUN_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", action="append", metavar="DIR", help="dataset folder (repeatable)")
    p.add_argument("--model", action="append", metavar="[NAME=]SPEC",
                   help="backend spec, e.g. builtin:random, hf:PATH, openai:MODEL (repeatable); "
                        "NAME=SPEC shows the model as NAME in tables and reports")
    p.add_argument("-M", dest="model_args", action="append", default=[], metavar="KEY=VALUE",
                   help="backend argument (repeatable), e.g. -M batch_size=8")
    p.add_argument("--base-url", action="append", metavar="URL",
                   help="OpenAI-compatible server URL (sets -M base_url=...); repeat it to spread "
                        "the calls over several servers")
    p.add_argument("--out", metavar="DIR",
                   help="output folder, new or empty (default whatif-out/run-TIME-RANDOM)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --out if it holds an earlier run (only a run folder we wrote)")
    p.add_argument("--no-verify", action="store_true",
                   help="skip checking the datasets' files against their card hashes")
    p.add_argument("--limit", type=int, metavar="N",
                   help="evaluate about N items: whole pairs (never half a pair) taken in turn "
                        "from each group (template, category, task type ...), in file order; "
                        "deterministic, and the groups covered are recorded in results.json")
    p.add_argument("--subset", type=_subset, metavar="SHARE|NAME",
                   help="evaluate a seeded random share of pairs (e.g. 0.1), or a named subset "
                        "of the suite (e.g. paper: the release's own sampling)")
    p.add_argument("--seed", type=int, default=0, help="seed for --subset and demonstrations")
    p.add_argument("--prompt", default="default",
                   help="prompt variant: default (ours) | paper (the release's prompt for the "
                        "model's family, chosen from the backend and recorded in results.json) "
                        "| paper:FAMILY (force one, e.g. paper:blip2, paper:llava)")
    p.add_argument("--strategy", default="zero-shot", choices=STRATEGIES,
                   help="zero-shot (default) | cot (adds \"Let's think step by step\") | "
                        "one-shot / one-shot-cot (one solved demonstration first, with a short "
                        "reasoning for -cot) | ccot (a scene description first, then the "
                        "question)")
    p.add_argument("--answer-mode", choices=ANSWER_MODES, help="default: the suite's own")
    p.add_argument("--image-layout", default="multi", choices=LAYOUTS,
                   help="items with several images: multi (default: each image sent apart) | "
                        "composite (one labelled image holding them all)")
    p.add_argument("--parser", default="default", help="parser to score with: default | paper")
    p.add_argument("--score-by", choices=SCORE_BY,
                   help="rank mode: summed or per-token mean log-probability (default: the "
                        "suite's own)")
    p.add_argument("--max-new-tokens", type=int, metavar="N",
                   help="generation budget per reply (default: the suite's own for a short "
                        "answer, 512 with --strategy cot or ccot)")
    p.add_argument("--decoding", choices=DECODINGS,
                   help="with --prompt paper: release (default: the release script's generation "
                        "call, sampled where it samples, seeded per item from --seed) | greedy "
                        "(the same request, searched greedily)")
    p.add_argument("--image-ablation", choices=ABLATIONS,
                   help="replace each question's image: blank (mid-grey, same size), shuffled "
                        "(another pair's image, seeded by --seed) or none (no image sent); the "
                        "rows read e.g. 'llava [image: blank]'")
    p.add_argument("--budget", type=int, metavar="N",
                   help="evaluate about N items chosen from --bank (whole pairs) and report the "
                        "estimated full-suite score with an interval, labelled as an estimate")
    p.add_argument("--bank", metavar="FILE",
                   help="with --budget: the item bank ('whatif items DATASET RUN... --bank FILE')")
    p.add_argument("--budget-method", metavar="{stratified,random}", default="stratified",
                   help="with --budget: stratified (default: at random within strata of the "
                        "bank's difficulty) or random (a plain random sample); either gives an "
                        "interval that holds for any model")
    p.add_argument("--judge", metavar="SPEC",
                   help="judge for free-text answers (MuCR Exp), e.g. openai:gpt-4o; default: the "
                        "suite's own (MuCR: the offline embedding:all-MiniLM-L6-v2)")
    p.add_argument("--judge-arg", dest="judge_args", action="append", default=[],
                   metavar="KEY=VALUE", help="judge backend argument (repeatable)")
    p.add_argument("--store", metavar="FILE", help="run store (default $WHATIF_HOME/store.sqlite)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    _full_replies_argument(p)
    from whatifbench.cli.options import add_executor_arguments

    add_executor_arguments(p, "run")
    p.set_defaults(func=run_command)


def _full_replies_argument(p: Any) -> None:
    p.add_argument("--full-replies", action="store_true",
                   help=f"keep whole replies in samples.jsonl (default: the first {REPLY_CHARS:,} "
                        "characters of each)")


def _budget(args: argparse.Namespace) -> Any:
    """``--budget N --bank FILE`` as ``analysis.items.budget.Budget`` (``None`` without)."""
    if args.budget is None and args.bank is None:
        return None
    if args.budget is None or args.bank is None:
        raise WhatifError("--budget N and --bank FILE go together: the bank ('whatif items "
                          "DATASET RUN... --bank FILE') says which items are worth asking.")
    from whatifbench.runner.budget import Budget

    return Budget(args.budget, args.bank, args.budget_method)


def _subset(value: str) -> float | str:
    """``--subset``: a number is a share; a word names a suite's subset."""
    try:
        return float(value)
    except ValueError:
        if not value.isidentifier():
            raise argparse.ArgumentTypeError(
                f"{value!r} is neither a share such as 0.1 nor a subset name such as paper"
            ) from None
        return value


def run_command(args: argparse.Namespace) -> int:
    """Evaluate, print the tables, write results and reports."""
    from whatifbench import api
    from whatifbench.cli.options import executor_config, model_args_from
    from whatifbench.core.dataset import load_dataset
    from whatifbench.core.outputs import check_output
    from whatifbench.models.make import parse_model_args
    from whatifbench.report.labels import model_name
    from whatifbench.runner.evaluate import RunOptions
    from whatifbench.runner.results import default_run_folder
    from whatifbench.runner.store import RunStore

    executor = executor_config(args)
    out = Path(args.out) if args.out else default_run_folder()
    check_output(out, [*(args.suite or []), *([args.store] if args.store else []),
                       *([args.bank] if args.bank else [])],
                 args.overwrite, kind="run")  # before any work; creates nothing
    suites = ([load_dataset(s, verify=not args.no_verify) for s in args.suite] if args.suite
              else [api.default_dataset(log=_err, progress=not args.no_progress)])
    models = args.model or list(api.DEFAULT_MODELS)
    model_args = model_args_from(args)
    protocol = Protocol(prompt=args.prompt, strategy=args.strategy, answer_mode=args.answer_mode,
                        image_layout=args.image_layout, parser=args.parser,
                        max_new_tokens=args.max_new_tokens, score_by=args.score_by,
                        decoding=args.decoding).validate()
    options = RunOptions(limit=args.limit, subset=args.subset, seed=args.seed,
                         progress=not args.no_progress, judge=args.judge,
                         judge_args=parse_model_args(args.judge_args),
                         image_ablation=args.image_ablation, budget=_budget(args))
    store = RunStore(args.store) if args.store else RunStore()

    def log(result: RunResult) -> None:
        _err(f"{result.dataset} × {model_name(result)}: "
             f"{result.execution.summary(result.n_items)}")

    try:
        with api.open_executor(executor, log=_err) as where:
            runs = api.run_all(suites, models, model_args, protocol, options, store,
                               on_result=log, defaults=not args.model, on_skip=_err,
                               executor=where)
    finally:
        store.close()
    if store.unkept:
        _err(store.unkept)
    if store.damaged:
        _err(f"{store.damaged} stored answer(s) failed the store's integrity check; they were "
             "not used but computed again.")
    if not args.suite:  # the demo's tables show what a reader without the picture scores
        api.ensure_audit(suites[0], log=_err)
    paths = api.write_outputs(out, runs, args.overwrite, [s.root for s in suites],
                              full_replies=args.full_replies)
    for table in api.tables_for(runs, slices=False):  # per slice: in report.md and the page
        print()
        print(table.to_text(terminal_width()))
    print(f"\nResults: {paths['results.json']}\nReport:  {paths['report.html']}")
    failed = sum(r.n_errors for r in runs)
    requests = sum(r.execution.errors + r.execution.judge_errors for r in runs)
    if failed or requests:
        _err(f"{failed} item(s) ended in a backend error ({requests} request(s) failed after "
             "all retries); they are counted wrong and marked in every table. Run the same "
             f"command again to retry them (exit status {EXIT_BACKEND_ERRORS}).")
        return EXIT_BACKEND_ERRORS
    return 0


# -- generate / import / build ---------------------------------------------------------------
def add_tools(sub: Any, kind: str, verb: str, help_text: str,
              chosen: Callable[[str], bool] = lambda name: True) -> None:
    """``whatif generate|import|build NAME ...`` from the registry; only the tools that
    ``chosen`` accepts (the one the command line names) are imported to add their options."""
    p = sub.add_parser(verb, help=help_text, description=help_text)
    names = p.add_subparsers(dest="name", metavar="NAME")
    for listed in listing(kind):
        tool = names.add_parser(listed.name, help=listed.summary, description=listed.summary)
        if not chosen(listed.name):
            continue
        obj = lookup(kind, listed.name).obj
        tool.add_argument("--out", required=True, metavar="DIR", help="dataset folder to write")
        tool.add_argument("--overwrite", action="store_true",
                          help="replace --out if it exists")
        from whatifbench.cli.params import add_tool_options
        from whatifbench.core.params import entry_or_warn

        fn = entry_or_warn(obj, kind)
        if fn is None:
            obj.add_arguments(tool)
        else:
            add_tool_options(tool, fn, verb, skip=TOOL_OWN)
        tool.set_defaults(func=_tool_runner(obj, verb, fn))
    p.set_defaults(func=lambda a: _missing_name(verb, kind))


TOOL_OWN = ("out", "overwrite")
"""Parameters of an entry function that the command itself gives (``--out``, ``--overwrite``)."""
EXPORT_OWN = ("dataset", "out", "overwrite")
"""The same for exporters (``DATASET``, ``--out``, ``--overwrite``)."""

NOT_INPUTS = frozenset({"out", "command", "name"})
"""Parsed values that are never input paths: the output, the command and the tool's name."""


def path_arguments(args: argparse.Namespace) -> list[str]:
    """Every option value (but ``--out`` and the tool's name) that names an existing file or
    folder: the inputs an output must not touch, whatever the tool calls its options."""
    found = []
    for key, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        found += [v for v in values if key not in NOT_INPUTS and isinstance(v, str) and v
                  and os.path.lexists(v)]
    return found


def _missing_name(verb: str, kind: str) -> int:
    names = ", ".join(e.name for e in listing(kind)) or "none"
    raise WhatifError(f"'whatif {verb}' needs a name: one of {names}.")


def _tool_runner(tool: Any, verb: str, fn: Callable[..., Any] | None) -> Any:
    def run(args: argparse.Namespace) -> int:
        from whatifbench.core.dataset import load_dataset
        from whatifbench.core.outputs import check_output

        check_output(args.out, path_arguments(args), args.overwrite)  # fail before any work
        if fn is None:
            result = tool.run(args)
        else:
            from whatifbench.cli.params import tool_values

            with tool_values(args, fn, TOOL_OWN) as values:
                result = fn(out=args.out, overwrite=args.overwrite, **values)
            said = getattr(tool, "summary", None)
            if callable(said):
                print(said(result, args.out), file=sys.stderr)
        if verb != "export":
            dataset = load_dataset(args.out)
            counts = dataset.card.counts
            pairs = counts.get("pairs", 0)
            print(f"Wrote {counts.get('items', len(dataset.items))} items"
                  + (f" ({pairs} pairs)" if pairs else "") + f" to {args.out}")
        return int(result) if isinstance(result, int) else 0
    return run


def command_runner(fn: Callable[..., Any]) -> Callable[[argparse.Namespace], int]:
    """``whatif NAME ...`` of a command plugin whose entry declares its parameters."""
    def run(args: argparse.Namespace) -> int:
        from whatifbench.cli.params import tool_values

        with tool_values(args, fn) as values:
            result = fn(**values)
        return int(result) if isinstance(result, int) else 0
    return run


# -- export ----------------------------------------------------------------------------------
def add_export(sub: Any, chosen: Callable[[], bool] = lambda: True) -> None:
    """``whatif export DATASET --format F --out PATH`` (the exporters' own options are added,
    importing them, only when ``chosen()``: the command line is an export)."""
    p = sub.add_parser("export", help="write a dataset in a release format",
                       description="Write a dataset in a release format.")
    p.add_argument("dataset", metavar="DATASET")
    formats = [e.name for e in listing("exporter")]
    p.add_argument("--format", required=True, choices=formats)
    p.add_argument("--out", required=True, metavar="PATH")
    p.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    if chosen():  # format-specific options, one group per format (imports every exporter)
        from whatifbench.cli.params import add_tool_options
        from whatifbench.core.params import entry_or_warn

        for name in formats:
            tool = lookup("exporter", name).obj
            group = p.add_argument_group(f"{name} options")
            fn = entry_or_warn(tool, "exporter")
            if fn is None:
                tool.add_arguments(group)
            else:
                add_tool_options(group, fn, "export", skip=EXPORT_OWN)
    p.set_defaults(func=export_command)


def export_command(args: argparse.Namespace) -> int:
    """Run the chosen exporter."""
    from whatifbench.cli.params import tool_values
    from whatifbench.core.params import entry_of

    tool = lookup("exporter", args.format).obj
    fn = entry_of(tool, "exporter")
    if fn is None:
        tool.run(args)
    else:
        with tool_values(args, fn, EXPORT_OWN) as values:
            fn(dataset=args.dataset, out=args.out, overwrite=args.overwrite, **values)
    print(f"Wrote {args.format} to {args.out}")
    return 0


# -- report ----------------------------------------------------------------------------------
def add_report(sub: Any) -> None:
    """``whatif report RUN_DIR ... --out DIR``."""
    p = sub.add_parser("report", help="merge run folders into one set of tables and reports",
                       description="Merge the results of several 'whatif run --out' folders "
                       "(e.g. one per strategy or layout) into one results.json, tables and "
                       "reports.")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--out", required=True, metavar="DIR", help="new (or empty) folder")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --out if it holds an earlier run (only a run folder we wrote)")
    p.add_argument("--figures", metavar="DIR", help="also write every figure as PDF and PNG")
    p.add_argument("--dataset-root", action="append", default=[], metavar="DIR",
                   help="where datasets moved to (the dataset folder or its parent; "
                        "repeatable); images and options are found through it")
    p.add_argument("--max-images", type=int, default=MAX_IMAGES, metavar="N",
                   help=f"thumbnails embedded in report.html (default {MAX_IMAGES}; "
                        "'whatif view' shows every image)")
    _full_replies_argument(p)
    p.set_defaults(func=report_command)


def report_command(args: argparse.Namespace) -> int:
    """Merge runs, print the tables, write the reports (and figures)."""
    from whatifbench import api
    from whatifbench.core.outputs import check_inputs, check_output
    from whatifbench.report.datasets import missing_data
    from whatifbench.report.payload import Options
    from whatifbench.report.sources import load_sources

    check_output(args.out, args.runs, args.overwrite, kind="run")
    if args.figures:
        check_inputs(args.figures, args.runs)
    notes: list[str] = []
    sources = load_sources(args.runs, notes)
    for note in notes:
        print(f"whatif: note: {note}", file=sys.stderr)
    runs = [s.run for s in sources]
    options = Options(max_images=max(0, args.max_images),
                      dataset_roots=tuple(Path(d) for d in args.dataset_root))
    paths = api.write_outputs(Path(args.out), runs, args.overwrite, args.runs, sources=sources,
                              options=options, full_replies=args.full_replies)
    for table in api.tables_for(runs, options.dataset_roots, slices=False):
        print()
        print(table.to_text(terminal_width()))
    for problem in missing_data(sources, options):
        _err(problem)
    print(f"\nResults: {paths['results.json']}\nReport:  {paths['report.html']}")
    if args.figures:
        from whatifbench.report.draw import save
        from whatifbench.report.figures import figures_for

        written = save(figures_for(runs), Path(args.figures))
        print(f"Figures: {len(written)} files in {args.figures}")
    return 0


# -- stats -----------------------------------------------------------------------------------
def add_stats(sub: Any) -> None:
    """``whatif stats DATASET`` or ``whatif stats scene_graphs.json``."""
    p = sub.add_parser("stats", help="dataset statistics (counts, lengths, answer distributions)",
                       description="Print statistics of a dataset; with --plots DIR also write "
                       "plots as PNG. Given a Visual Genome scene_graphs.json (as DATASET or "
                       "with --scene-graphs), print its predicate coverage instead.")
    p.add_argument("dataset", metavar="DATASET", nargs="?",
                   help="dataset folder, or a scene_graphs.json file")
    p.add_argument("--scene-graphs", metavar="FILE",
                   help="Visual Genome scene_graphs.json: mapped and unmapped predicates with "
                        "counts, graph types found")
    p.add_argument("--plots", metavar="DIR", help="folder for PNG plots")
    p.set_defaults(func=stats_command)


def stats_command(args: argparse.Namespace) -> int:
    """Print the suite's statistics tables (or a scene-graph input's predicate coverage)."""
    from whatifbench.core.dataset import load_dataset
    from whatifbench.runner.evaluate import get_suite

    source = args.scene_graphs or (args.dataset if args.dataset and Path(args.dataset).is_file()
                                   else None)
    if source is not None:
        tables = source_stats(Path(source))
    elif args.dataset is None:
        raise WhatifError("'whatif stats' needs a DATASET folder or --scene-graphs FILE.")
    else:
        dataset = load_dataset(args.dataset, check_images=False)
        if args.plots:
            from whatifbench.core.outputs import check_inputs

            check_inputs(args.plots, [dataset.root])
        plots = Path(args.plots) if args.plots else None
        tables = get_suite(dataset.suite).stats(dataset, plots)
        if plots is not None:
            from whatifbench.report.datastats import plot_table

            tables.append(plot_table(dataset, plots))
    for table in tables:
        print(table.to_text(terminal_width()))
        print()
    return 0


def source_stats(path: Path) -> list[Any]:
    """The statistics of a suite's source file (``Suite.source_stats``: CELLO reads a Visual
    Genome scene_graphs.json), from the first suite that reads it."""
    from whatifbench.core.registry import listing
    from whatifbench.core.suite import suite_for

    for listed in listing("suite"):
        tables = suite_for(listed.name).source_stats(path)
        if tables is not None:
            return tables
    raise WhatifError(f"{path} is a file, and no suite reads it as a source (a dataset is a "
                      "folder with items.jsonl); see 'whatif stats --help'.")


# -- listings --------------------------------------------------------------------------------
def add_listing(sub: Any) -> None:
    """``whatif suites`` and ``whatif models``."""
    p = sub.add_parser("suites", help="list suites, generators, importers, exporters, builders")
    p.set_defaults(func=lambda a: _list(("suite", "generator", "importer", "exporter", "builder")))
    p = sub.add_parser("models", help="list model backends")
    p.set_defaults(func=lambda a: _list(("backend", "image-backend")))


def plain(summary: str) -> str:
    """A docstring's summary as a terminal shows it: the double backquotes that mark literals
    in reStructuredText dropped."""
    return summary.replace("``", "")


def _list(kinds: tuple[str, ...]) -> int:
    for kind in kinds:
        rows = listing(kind)
        print(f"{kind}s:")
        for e in rows:
            source = f" [plugin: {e.package}]" if e.package != BUILT_IN else ""
            print(f"  {e.name:<28} {plain(e.summary)}{source}")
        if not rows:
            print("  (none)")
    return 0

