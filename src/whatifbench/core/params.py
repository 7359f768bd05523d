"""Parameters declared once: a tool's (generator's, importer's, builder's, exporter's) entry
function is the one declaration of its options. Its typed signature gives the names, types and
defaults; ``Annotated[T, Param(...)]`` adds the help, the bounds, the command-line flag and the
name on the dataset card. From it come the command-line options (``cli.params``, ``whatif
audit --generator -p``), the validation of every call (``@declared``: the Python API checks as
the CLI does) and the card's ``generator.params`` (``card_params``), as inspect_ai's ``-T``
comes from a ``@task``'s signature.

Options that several tools share and whose parsing belongs to a higher layer are declared with
a marker the CLI expands: ``Executor()`` (``--executor``, ``--ray-*``: the value is an open job
map), ``Model(...)`` (``--model SPEC``, ``-M KEY=VALUE``, ``--base-url``). ``Design(...)`` and
``SECRET`` are expanded here (``--design``, ``--secret-file``).
"""

from __future__ import annotations

import argparse
import builtins
import functools
import inspect
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from whatifbench.core.design import DEFAULT_DESIGN, DESIGNS
from whatifbench.errors import WhatifError

F = TypeVar("F", bound=Callable[..., Any])

NO_DEFAULT = inspect.Parameter.empty


@dataclass(frozen=True)
class Param:
    """What a signature cannot say about one parameter (``Annotated[int, Param("…", low=1)]``)."""

    help: str
    """One phrase for ``--help`` (the default is appended unless the phrase names it)."""
    metavar: str | None = None
    low: float | None = None
    """Smallest value accepted (inclusive); ``None``: no bound."""
    high: float | None = None
    """Largest value accepted (inclusive); ``None``: no bound."""
    flag: str | None = None
    """The command-line flag (default ``--`` and the name with dashes)."""
    positional: bool = False
    """A positional command-line argument instead of a flag."""
    card: str | bool = True
    """Recorded in the card's ``generator.params`` (under this name when a string); ``False``
    for what changes only the speed or where things are kept."""
    cli_default: Any = NO_DEFAULT
    """The command line's default when it differs from the API's (a progress bar: shown on a
    terminal, off for callers); a ``True`` switch becomes ``--no-…``."""


@dataclass(frozen=True)
class Design:
    """``--design shortcut-free|paper`` (``core.design``); ``doc``: what shortcut-free changes."""

    doc: str


@dataclass(frozen=True)
class Secret:
    """``--secret-file FILE``: the naming secret of opaque names (``core.namekey``)."""


SECRET = Secret()


@dataclass(frozen=True)
class Executor:
    """``--executor local|ray`` and its ``--ray-*`` options (expanded by the CLI); the value is
    an open job map, or ``None`` for local processes."""


@dataclass(frozen=True)
class Model:
    """A model the tool calls: ``--OPTION SPEC``, ``SHORT KEY=VALUE`` (repeatable) and
    ``BASE_URL`` (expanded by the CLI); ``args``: the entry's parameter that receives the
    ``KEY=VALUE`` arguments as a mapping."""

    help: str
    args: str
    option: str = "model"
    short: str = "-M"
    base_url: str = "--base-url"


Marker = Param | Design | Secret | Executor | Model


@dataclass(frozen=True)
class Declared:
    """One parameter of an entry function, as its signature and annotation declare it."""

    name: str
    kind: Any
    """The value's type without ``Annotated`` and ``None`` (``int``, ``str``, a ``Literal``…)."""
    optional: bool
    """``None`` is accepted."""
    default: Any
    """``NO_DEFAULT`` when it has none (a required option)."""
    marker: Marker | None

    @property
    def flag(self) -> str:
        """The command-line flag (``--per-category``)."""
        if isinstance(self.marker, Param) and self.marker.flag:
            return self.marker.flag
        return "--" + self.name.replace("_", "-")

    @property
    def cli_default(self) -> Any:
        """The command line's default."""
        if isinstance(self.marker, Param) and self.marker.cli_default is not NO_DEFAULT:
            return self.marker.cli_default
        return self.default


class _Names(dict[str, Any]):
    """Evaluation namespace of postponed annotations: a name known only to type checkers (an
    import under ``TYPE_CHECKING``) reads as ``Any``."""

    def __init__(self, module: Mapping[str, Any]) -> None:
        super().__init__()
        self.module = module

    def __missing__(self, key: str) -> Any:
        if key in self.module:
            return self.module[key]
        return getattr(builtins, key, Any)


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    inner = inspect.unwrap(fn)
    module = getattr(inner, "__globals__", {})
    return typing.get_type_hints(inner, localns=_Names(module), include_extras=True)


def _split(hint: Any) -> tuple[Any, bool, Marker | None]:
    """``(kind, optional, marker)`` of a type hint."""
    marker = None
    if get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        marker = next((e for e in extras if isinstance(e, Marker)), None)
    optional = False
    if get_origin(hint) in (Union, types.UnionType):
        members = [a for a in get_args(hint) if a is not type(None)]
        optional = len(members) < len(get_args(hint))
        if all(m in (str, Path) for m in members):
            hint = str
        elif len(members) == 1:
            hint = members[0]
        else:
            hint = Any
    return hint, optional, marker


@functools.cache
def declared_params(fn: Callable[..., Any]) -> tuple[Declared, ...]:
    """The parameters of ``fn`` (``self``/``cls`` left out), as declared."""
    out = []
    hints = _hints(fn)
    for name, p in inspect.signature(fn).parameters.items():
        if name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind, optional, marker = _split(hints.get(name, Any))
        out.append(Declared(name, kind, optional, p.default, marker))
    return tuple(out)


def _is_sequence(kind: Any) -> bool:
    return get_origin(kind) in (list, tuple, Sequence, typing.Sequence)


def _bounds(d: Declared, value: Any) -> None:
    marker = d.marker
    if isinstance(marker, Param) and isinstance(value, (int, float)) and \
            not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            raise WhatifError(f"{d.flag} must be a finite number, got {value}.")
        if marker.low is not None and value < marker.low:
            raise WhatifError(f"{d.flag} must be at least {marker.low:g}, got {value:g}.")
        if marker.high is not None and value > marker.high:
            raise WhatifError(f"{d.flag} must be at most {marker.high:g}, got {value:g}.")
    if get_origin(d.kind) is Literal and value is not None and value not in get_args(d.kind):
        raise WhatifError(f"{d.flag} must be one of {', '.join(map(str, get_args(d.kind)))}, "
                          f"got {value!r}.")
    if isinstance(marker, Design) and value not in DESIGNS:
        raise WhatifError(f"--design must be one of {', '.join(DESIGNS)}, got {value!r}.")


def check(fn: Callable[..., Any], values: Mapping[str, Any]) -> None:
    """Refuse (``WhatifError``, naming the flag, the bound and the value) a value of ``values``
    outside its declared bounds or choices."""
    for d in declared_params(fn):
        if d.name in values:
            _bounds(d, values[d.name])


def declared(fn: F) -> F:
    """Check every call of an entry function against its declared bounds and choices (the
    Python API refuses what the command line refuses, with the same sentence)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        check(fn, bound.arguments)
        return fn(*args, **kwargs)

    return checked  # type: ignore[return-value]


def card_params(fn: Callable[..., Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The card's ``generator.params`` of a call: each declared parameter recorded on the card
    (``Param.card``), in the signature's order, under its card name; paths as their names."""
    out: dict[str, Any] = {}
    for d in declared_params(fn):
        recorded = d.marker.card if isinstance(d.marker, Param) else isinstance(d.marker, Design)
        if not recorded or d.name not in values:
            continue
        value = values[d.name]
        if isinstance(value, Path):
            value = value.name
        elif isinstance(value, tuple):
            value = list(value)
        out[recorded if isinstance(recorded, str) else d.name] = value
    return out


# -- the command line ---------------------------------------------------------------------------
def _help(d: Declared, text: str) -> str:
    shown = d.cli_default
    if shown is NO_DEFAULT or shown is None or isinstance(shown, bool) or shown == "" \
            or "default" in text:
        return text
    return f"{text} (default {','.join(shown) if _is_sequence(d.kind) else shown})"


def _comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class _Extend(argparse.Action):
    """A list option given comma-separated, repeated, or both (``--task a,b --task c``: the
    three); the first use replaces the default."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        current = getattr(namespace, self.dest, None)
        items = [] if current is self.default or current is None else list(current)
        setattr(namespace, self.dest, [*items, *values])


def add_plain(parser: argparse.ArgumentParser | Any, d: Declared) -> bool:
    """Add the option of a parameter this module expands; ``False`` for a marker the CLI
    expands (``Executor``, ``Model``) or a parameter without a declaration."""
    marker = d.marker
    if isinstance(marker, Design):
        parser.add_argument(
            "--design", choices=DESIGNS, default=DEFAULT_DESIGN,
            help=f"shortcut-free (the default of every generator): {marker.doc}; paper: the "
                 "release's distribution, its shortcuts included (to compare with the "
                 "release, not to measure models)")
        return True
    if isinstance(marker, Secret):
        parser.add_argument(
            "--secret-file", metavar="FILE",
            help="the secret opaque file names and ids are keyed with: a file of at least 32 "
                 "hex digits, shared to regenerate the same names elsewhere (default: "
                 "$WHATIF_HOME/naming-secret, made on first use; never part of the dataset)")
        return True
    if not isinstance(marker, Param):
        return False
    dest = d.name
    required = d.cli_default is NO_DEFAULT
    if d.kind is bool:
        if d.cli_default is True:
            flag = "--no-" + d.flag[2:]
            parser.add_argument(flag, dest=dest, action="store_false", help=marker.help)
        else:
            parser.add_argument(d.flag, dest=dest, action="store_true", help=marker.help)
        return True
    options: dict[str, Any] = {"help": _help(d, marker.help)}
    if marker.metavar:
        options["metavar"] = marker.metavar
    if get_origin(d.kind) is Literal:
        options["choices"] = get_args(d.kind)
    elif d.kind in (int, float):
        options["type"] = d.kind
    elif _is_sequence(d.kind):
        options["type"] = _comma_list
        options["action"] = _Extend
    if marker.positional:
        parser.add_argument(dest, **options)
        return True
    if not required:
        options["default"] = d.cli_default
    parser.add_argument(d.flag, dest=dest, required=required, **options)
    return True


def add_options(parser: argparse.ArgumentParser | Any, fn: Callable[..., Any],
                skip: Sequence[str] = ()) -> list[Declared]:
    """Add the options of ``fn``'s declared parameters (but ``skip``) that this module expands;
    returns those left for the caller (``Executor``, ``Model``)."""
    left = []
    given = {*skip, *(d.marker.args for d in declared_params(fn) if isinstance(d.marker, Model))}
    for d in declared_params(fn):
        if d.name in given:  # a model's KEY=VALUE arguments come with its own options
            continue
        if not add_plain(parser, d) and d.marker is not None:
            left.append(d)
    return left


def values_from(args: argparse.Namespace, fn: Callable[..., Any],
                skip: Sequence[str] = ()) -> dict[str, Any]:
    """The parsed values of ``fn``'s parameters this module expands (others are the caller's),
    checked against their bounds."""
    out: dict[str, Any] = {}
    for d in declared_params(fn):
        if d.name in skip or not isinstance(d.marker, Param | Design | Secret):
            continue
        dest = "secret_file" if isinstance(d.marker, Secret) else \
            "design" if isinstance(d.marker, Design) else d.name
        if hasattr(args, dest):
            out[d.name] = getattr(args, dest)
    check(fn, out)
    return out


def entry_of(tool: Any, kind: str) -> Callable[..., Any] | None:
    """The entry function of a registered tool: its ``entry`` (importers, builders, exporters,
    commands) or, for a generator, ``generate``; ``None`` for a tool written against the API
    before parameters were declared (``add_arguments`` and ``run``)."""
    if "add_arguments" in _members(tool):
        return None
    fn = getattr(tool, "entry", None) or (getattr(tool, "generate", None)
                                          if kind == "generator" else None)
    return fn if callable(fn) else None


ENTRY_NAMES = {"generator": "generate"}
"""The entry function's name by kind (``entry`` for the others)."""


def entry_or_warn(tool: Any, kind: str) -> Callable[..., Any] | None:
    """``entry_of``, warning (``WhatifDeprecationWarning``) about a tool outside ``cli`` that
    declares its options with ``add_arguments`` and ``run``, the API before issue 39: it still
    works, and the message names the new way."""
    fn = entry_of(tool, kind)
    if fn is None and not str(getattr(tool, "__module__", "")).startswith("whatifbench.cli"):
        import warnings

        from whatifbench.errors import WhatifDeprecationWarning

        name = ENTRY_NAMES.get(kind, "entry")
        warnings.warn(
            f"{tool.__module__}.{getattr(tool, '__qualname__', tool)} declares its options with "
            "add_arguments and run, the API before issue 39 (it still works): declare each "
            f"parameter once, in the typed signature of its {name} (Annotated[T, Param(help, "
            "...)] from whatifbench.core.params), and drop add_arguments and run "
            "(docs/adding-a-suite.md).", WhatifDeprecationWarning, stacklevel=2)
    return fn


def _members(tool: Any) -> set[str]:
    names: set[str] = set()
    for cls in getattr(tool, "__mro__", (type(tool),)):
        names.update(vars(cls))
    return names
