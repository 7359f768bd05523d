"""``-M`` arguments when one run evaluates several models: each backend takes its own."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from whatifbench.errors import WhatifError


def own_args(cls: type, args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments meant for backend class ``cls``: the names it declares in ``arg_names``,
    and any name that no other registered backend declares (so that a typo still reaches
    ``cls``, which reports it). The models of one run share their ``-M`` arguments, so
    ``--model hf:DIR --model openai:NAME -M batch_size=4 -M max_connections=8`` gives each
    backend only its own."""
    from whatifbench.core.registry import entries

    mine: frozenset[str] = getattr(cls, "arg_names", None) or frozenset()
    declared: set[str] = set()
    for entry in entries("backend"):
        if entry.obj is not cls:
            declared |= set(getattr(entry.obj, "arg_names", None) or ())
    return {k: v for k, v in args.items() if k in mine or k not in declared}


def reject_unknown(spec: str, args: Mapping[str, Any], known: Iterable[str],
                   flag: str = "-M") -> None:
    """Raise one ``WhatifError`` naming the arguments ``spec`` does not take, and those it does."""
    names = sorted(set(known))
    unknown = sorted(set(args) - set(names))
    if unknown:
        raise WhatifError(
            f"Unknown argument(s) {', '.join(unknown)} for {spec}; it takes "
            f"{', '.join(names)} ({flag} key=value)."
        )
