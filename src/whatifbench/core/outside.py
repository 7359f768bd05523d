"""Plugins from outside the package: found, loaded with their package's name, and blamed for
their own errors.

An installed distribution declares modules under the ``whatifbench.plugins`` entry point; each
module registers its plugins when imported (``core.registry.register``). ``found()`` reads the
entry points the way ``importlib.metadata`` does (each ``sys.path`` folder's ``*.dist-info`` and
``*.egg-info``, their ``entry_points.txt``) but without importing it (40 ms, every command would
pay it; this takes a few): ``whatif --help`` and the listings include outside plugins at no
cost while none is installed. ``owner(traceback)`` names the plugin package whose code an
exception passed through, so the CLI reports it as that package's, not as a bug of whatifbench.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

GROUP = "whatifbench.plugins"
"""The entry-point group of outside plugins."""
BUILT_IN = "whatifbench"
"""The package that registers the built-in plugins."""


@dataclass(frozen=True)
class Outside:
    """One module an installed distribution declares as a plugin."""

    package: str
    """The distribution's name (``my-plugin``)."""
    name: str
    """The entry point's name."""
    module: str
    """The module to import (``my_plugin.suite``)."""


def _section(text: str) -> list[tuple[str, str]]:
    """``(name, value)`` of the ``[whatifbench.plugins]`` section of an ``entry_points.txt``."""
    out: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            inside = line == f"[{GROUP}]"
            continue
        if inside and "=" in line:
            name, value = line.split("=", 1)
            out.append((name.strip(), value.strip()))
    return out


def _package(folder: str) -> str:
    """A distribution's name from its ``*.dist-info`` folder (``METADATA``'s ``Name``, else the
    folder's name up to the version)."""
    for meta in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, meta), encoding="utf-8") as f:
                for line in f:
                    if line.lower().startswith("name:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        break
        except OSError:
            continue
    return os.path.basename(folder).rsplit(".", 1)[0].split("-")[0]


def found() -> list[Outside]:
    """Every module declared under ``whatifbench.plugins`` by a distribution on ``sys.path``
    (the first distribution of a name wins, as ``importlib.metadata`` decides); remembered under
    ``$WHATIF_HOME/cache`` until a folder of ``sys.path`` changes (installing or removing a
    distribution changes its folder), so that a command pays a few ``stat`` calls."""
    key = _stamp()
    cache = _cache_path()
    try:
        with open(cache, encoding="utf-8") as f:
            stored = json.load(f)
        if stored["key"] == key:
            return [Outside(*row) for row in stored["found"]]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    out = _scan()
    from whatifbench.core.fsutil import write_cache

    text = json.dumps({"key": key, "found": [[o.package, o.name, o.module] for o in out]})
    write_cache(cache, text.encode("utf-8"))  # best-effort: a read-only home scans each time
    return out


def _cache_path() -> Path:
    from whatifbench.core.home import whatif_home

    return whatif_home() / "cache" / "plugins-found.json"


def _stamp() -> list[list[Any]]:
    """Each ``sys.path`` folder with its modification time (``None``: not a folder)."""
    out: list[list[Any]] = []
    for entry in sys.path:
        try:
            out.append([entry, os.stat(entry or ".").st_mtime_ns])
        except OSError:
            out.append([entry, None])
    return out


def _scan() -> list[Outside]:
    """``found`` read from the folders themselves."""
    out: list[Outside] = []
    seen: set[str] = set()
    for entry in sys.path:
        where = entry or "."
        try:
            names = sorted(os.listdir(where))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            folder = os.path.join(where, name)
            try:
                with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):
                continue
            if f"[{GROUP}]" not in text:
                continue
            package = _package(folder)
            key = package.lower().replace("_", "-")
            if key in seen:
                continue
            seen.add(key)
            out += [Outside(package, point, value.split(":", 1)[0].strip())
                    for point, value in _section(text)]
    return out


_OWNERS: dict[str, str] = {}
"""Top-level module names of loaded outside plugins → their package."""


def claim(module: str, package: str) -> None:
    """Record that ``module``'s top-level package belongs to the distribution ``package``."""
    _OWNERS.setdefault(module.split(".", 1)[0], package)


def package_of(module: str) -> str:
    """The distribution that owns ``module``: an outside plugin's package, else whatifbench's
    (``BUILT_IN``) or, for a module of neither (a test, a script), its top-level name."""
    top = module.split(".", 1)[0]
    if top == BUILT_IN:
        return BUILT_IN
    return _OWNERS.get(top, top)


def owner(tb: TracebackType | None) -> tuple[str, str] | None:
    """``(package, module)`` of the innermost frame of ``tb`` that runs an outside plugin's code
    (the exception passed through it), or ``None``."""
    found_: tuple[str, str] | None = None
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        package = _OWNERS.get(module.split(".", 1)[0])
        if package is not None:
            found_ = (package, module)
        tb = tb.tb_next
    return found_
