"""The one registry: suites, backends, generators, importers, exporters, builders, commands,
reviewers.

Generators, importers, exporters, builders and commands are classes with two static methods:
``add_arguments(parser)`` declares their command-line options and ``run(args)`` calls the public
Python API with them; the CLI builds its sub-commands from these entries.

A reviewer (``whatif review``) is the review-sheet hook of a kind of dataset: a class with
``columns``, ``rows(dataset)`` and ``apply(...)`` (see ``whatifbench.review.base``). An
image backend renders pictures from text for construction pipelines (MuCR's; see
``whatifbench.models.imagegen``).

Modules register themselves with the ``register`` decorator when imported. ``load_plugins``
imports every direct sub-module of the ``PLUGIN_PACKAGES``; those
modules stay light (heavy dependencies such as torch are imported inside factories), so the
core works without optional extras.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from whatifbench.errors import WhatifError

KINDS = ("suite", "backend", "generator", "importer", "exporter", "builder", "command",
         "reviewer", "image-backend")
PLUGIN_PACKAGES = ("whatifbench.suites", "whatifbench.models", "whatifbench.review",
                   "whatifbench.analysis")

T = TypeVar("T")


@dataclass(frozen=True)
class Entry:
    """One registered thing."""

    kind: str
    """One of ``KINDS``."""
    name: str
    """Its public name (``cvqa-synthetic``, ``builtin:random``, ``hf`` ...)."""
    obj: Any
    """The class or function."""
    summary: str
    """One line for ``whatif suites`` / ``whatif models``."""


_ENTRIES: dict[str, dict[str, Entry]] = {kind: {} for kind in KINDS}
_LOADED = False


def register(kind: str, name: str, summary: str | None = None) -> Callable[[T], T]:
    """Decorator: register ``obj`` under ``kind``/``name`` (each name once)."""
    if kind not in KINDS:
        raise ValueError(f"unknown registry kind {kind!r}")

    def deco(obj: T) -> T:
        doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
        text = summary or (doc[0] if doc else "")
        old = _ENTRIES[kind].get(name)
        if old is not None and old.obj is not obj:
            raise ValueError(f"{kind} {name!r} is registered twice")
        _ENTRIES[kind][name] = Entry(kind, name, obj, text)
        return obj

    return deco


def load_plugins() -> None:
    """Import the plugin packages once so that their registrations run."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for package_name in PLUGIN_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__, prefix=f"{package_name}."):
            importlib.import_module(info.name)


def entries(kind: str) -> list[Entry]:
    """All entries of a kind, sorted by name."""
    load_plugins()
    return sorted(_ENTRIES[kind].values(), key=lambda e: e.name)


def lookup(kind: str, name: str) -> Entry:
    """The entry registered under ``name``; a ``WhatifError`` listing the choices otherwise."""
    load_plugins()
    table = _ENTRIES[kind]
    if name in table:
        return table[name]
    if kind == "backend" and ":" in name and name.split(":", 1)[0] in table:
        return table[name.split(":", 1)[0]]
    available = ", ".join(sorted(_family_names(kind))) or "none"
    hint = {"backend": " (see 'whatif models')", "suite": " (see 'whatif suites')"}.get(kind, "")
    raise WhatifError(f"Unknown {kind} {name!r}. Available: {available}{hint}.")


def _family_names(kind: str) -> list[str]:
    names = []
    for entry in _ENTRIES[kind].values():
        names.append(entry.name + ":..." if kind == "backend" and ":" not in entry.name
                     else entry.name)
    return names
