"""Create backends from specs such as ``builtin:random``, ``hf:/path`` or ``openai:gpt-4o``."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from whatifbench.core.registry import lookup
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.shared_args import own_args, reject_unknown

REPEATABLE = frozenset({"base_url"})
"""Arguments that may be given several times (``-M base_url=A -M base_url=B``: a list)."""


def parse_model_args(pairs: Sequence[str]) -> dict[str, Any]:
    """``-M key=value`` pairs → dict; values are read as Python literals when they are one
    (numbers, booleans, None), else kept as strings. Nothing is ever evaluated as code. A
    ``REPEATABLE`` argument given more than once becomes a list."""
    args: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise WhatifError(
                f"Backend argument {pair!r} is not of the form key=value (-M key=value)."
            )
        try:
            value: Any = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        if raw in ("true", "false"):
            value = raw == "true"
        key = key.strip()
        if key in REPEATABLE and key in args:
            value = merge_values(args[key], value)
        args[key] = value
    return args


def merge_values(old: Any, new: Any) -> list[Any]:
    """Values of a repeatable argument, in order, each once."""
    out: list[Any] = []
    for value in (*_listed(old), *_listed(new)):
        if value not in out:
            out.append(value)
    return out


def _listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def backend_class(spec: str) -> type[Backend]:
    """The backend class registered for ``spec`` (nothing is instantiated)."""
    entry = lookup("backend", spec)
    cls: type[Backend] = entry.obj
    if getattr(cls, "name_arg_required", False) and (":" not in spec or not spec.split(":", 1)[1]):
        raise WhatifError(
            f"The backend {spec!r} needs a model after the colon, e.g. {entry.name}:MODEL."
        )
    return cls


def backend_args(spec: str, args: Mapping[str, Any], *, shared: bool = False
                 ) -> tuple[type[Backend], dict[str, Any]]:
    """The class registered for ``spec`` and the arguments it gets. Argument names it does not
    declare (``Backend.arg_names``) are refused; with ``shared`` (the ``-M`` arguments of a run
    with several models) it takes only its own, and ``check_shared_args`` checks the rest. A
    backend that forwards arguments to inner backends gets them all and checks them itself."""
    cls = backend_class(spec)
    args = dict(args)
    if not cls.forwards_args:
        if shared:
            args = own_args(cls, args)
        if cls.arg_names is not None:
            reject_unknown(spec, args, cls.arg_names)
    return cls, args


def make_backend(spec: str, args: Mapping[str, Any], *, shared: bool = False) -> Backend:
    """Instantiate the backend registered for ``spec`` (arguments checked by ``backend_args``)."""
    cls, args = backend_args(spec, args, shared=shared)
    return cls(spec, args)


def check_shared_args(args: Mapping[str, Any], specs: Sequence[str]) -> None:
    """Refuse ``-M`` names that none of a run's models takes (not decidable when one of them
    forwards arguments to inner models: those check their own)."""
    classes = [backend_class(spec) for spec in specs]
    if any(cls.arg_names is None or cls.forwards_args for cls in classes):
        return
    taken = {name for cls in classes for name in cls.arg_names or ()}
    unknown = sorted(set(args) - taken)
    if unknown:
        which = "; ".join(f"{spec} takes {', '.join(sorted(cls.arg_names or ())) or 'none'}"
                          for spec, cls in zip(specs, classes, strict=True))
        raise WhatifError(
            f"No model of this run takes the argument(s) {', '.join(unknown)} ({which}); check "
            "the -M names (see docs/backends.md)."
        )
