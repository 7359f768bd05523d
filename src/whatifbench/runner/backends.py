"""Create backends from specs such as ``builtin:random``, ``hf:/path`` or ``openai:gpt-4o``."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Mapping, Sequence
from typing import Any

from whatifbench.core.registry import lookup
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend


def parse_model_args(pairs: Sequence[str]) -> dict[str, Any]:
    """``-M key=value`` pairs → dict; values are read as Python literals when they are one
    (numbers, booleans, None), else kept as strings. Nothing is ever evaluated as code."""
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
        args[key.strip()] = value
    return args


def make_backend(spec: str, args: Mapping[str, Any]) -> Backend:
    """Instantiate the backend registered for ``spec``."""
    entry = lookup("backend", spec)
    cls = entry.obj
    if getattr(cls, "name_arg_required", False) and (":" not in spec or not spec.split(":", 1)[1]):
        raise WhatifError(
            f"The backend {spec!r} needs a model after the colon, e.g. {entry.name}:MODEL."
        )
    backend: Backend = cls(spec, dict(args))
    return backend


def add_model_arguments(parser: argparse.ArgumentParser, *, required: bool, help: str) -> None:
    """``--model SPEC``, ``-M KEY=VALUE`` (repeatable) and ``--base-url URL`` for a tool that
    calls one model (construction pipelines)."""
    parser.add_argument("--model", required=required, metavar="SPEC", help=help)
    parser.add_argument("-M", dest="model_args", action="append", default=[],
                        metavar="KEY=VALUE", help="argument of the --model backend (repeatable)")
    parser.add_argument("--base-url", help="OpenAI-compatible server URL (sets -M base_url=...)")


def model_args_from(args: argparse.Namespace) -> dict[str, Any]:
    """The backend arguments given by ``-M`` and ``--base-url``."""
    model_args = parse_model_args(args.model_args)
    if getattr(args, "base_url", None):
        model_args["base_url"] = args.base_url
    return model_args
