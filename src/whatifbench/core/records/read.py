"""Reading a file through its schema: one ``WhatifError`` naming the file, the line and the
field for a value of the wrong type, out of range or nested too deep.

``parse_file(tp, text, path, fix)`` parses a JSON document and builds it as ``tp``;
``parse_line`` does the same for one line of a JSON Lines file. A fault deep inside a document
is located on its line (``line_of``: the document is scanned again, only when something is
wrong, so reading stays one parse)."""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from whatifbench.core.jsonfile import MAX_DEPTH, loads
from whatifbench.core.records.schema import Path as FieldPath
from whatifbench.core.records.schema import SchemaError, parse
from whatifbench.errors import WhatifError

_SCALAR = re.compile(r'-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|'
                     r'-?Infinity')
_SPACE = re.compile(r"[ \t\n\r]*")


def problem(file: str | Path, exc: SchemaError, line: int | None = None, fix: str = "") -> str:
    """``FILE:LINE: field runs[2].n_items is "7", not a whole number ≥ 0. FIX``."""
    at = f"{file}:{line}" if line is not None else str(file)
    return f"{at}: {exc.sentence()}." + (f" {fix}" if fix else "")


def refuse(file: str | Path, exc: SchemaError, text: str | None = None, line: int | None = None,
           fix: str = "") -> WhatifError:
    """The ``WhatifError`` for ``exc`` in ``file`` (the line found in ``text`` when not given;
    ``line`` is where ``text`` starts in the file when both are given)."""
    if text is not None:
        found = line_of(text, exc.path)
        line = found if line is None else line + found - 1
    return WhatifError(problem(file, exc, line, fix))


def parse_text(text: str, file: str | Path, line: int | None = None, fix: str = "") -> Any:
    """``text`` as JSON; invalid JSON or nesting deeper than ``MAX_DEPTH`` is one
    ``WhatifError`` naming the file and line."""
    try:
        return loads(text)
    except ValueError as exc:
        at = line if line is not None else getattr(exc, "lineno", None)
        if line is not None and getattr(exc, "lineno", 1) > 1:
            at = line + exc.lineno - 1  # type: ignore[attr-defined]
        where = f"{file}:{at}" if at is not None else str(file)
        msg = getattr(exc, "msg", str(exc))
        raise WhatifError(f"{where}: not valid JSON ({msg})." + (f" {fix}" if fix else "")) \
            from None


def parse_file(tp: Any, text: str, file: str | Path, fix: str = "") -> Any:
    """A JSON document built as ``tp`` (see the module docstring)."""
    data = parse_text(text, file, fix=fix)
    try:
        return parse(tp, data)
    except SchemaError as exc:
        raise refuse(file, exc, text, fix=fix) from None


def parse_line(tp: Any, line: str, file: str | Path, lineno: int, fix: str = "") -> Any:
    """One JSON Lines record built as ``tp``."""
    data = parse_text(line, file, lineno, fix)
    try:
        return parse(tp, data)
    except SchemaError as exc:
        raise WhatifError(problem(file, exc, lineno, fix)) from None


def check_depth(value: Any, path: FieldPath = (), depth: int = 0) -> None:
    """Refuse (``SchemaError``) a value built in memory nested deeper than ``MAX_DEPTH``
    (values parsed by ``core.jsonfile.loads`` never are)."""
    if depth > MAX_DEPTH:
        raise SchemaError(path, f"nested at most {MAX_DEPTH} levels deep", value)
    if isinstance(value, dict):
        for k, v in value.items():
            check_depth(v, (*path, k), depth + 1)
    elif isinstance(value, list):
        for k, v in enumerate(value):
            check_depth(v, (*path, k), depth + 1)


def line_of(text: str, path: FieldPath) -> int:
    """The line of ``text`` (a JSON document) where the value at ``path`` starts, or where its
    object starts when the path's last key is missing; 1 when the text cannot be followed."""
    try:
        pos = _find(text, _skip(text, 0), path)
    except (ValueError, IndexError):
        pos = 0
    return text.count("\n", 0, pos) + 1


def _skip(text: str, pos: int) -> int:
    m = _SPACE.match(text, pos)
    return m.end() if m else pos


def _find(text: str, pos: int, path: FieldPath) -> int:
    """The position of the value at ``path`` below the value starting at ``pos``."""
    if not path:
        return pos
    key, rest = path[0], path[1:]
    if text[pos] == "{":
        pos = _skip(text, pos + 1)
        while text[pos] != "}":
            name, pos = scanstring(text, pos + 1)
            pos = _skip(text, _skip(text, pos) + 1)  # the colon
            if name == key:
                return _find(text, pos, rest)
            pos = _skip(text, _end(text, pos))
            if text[pos] == ",":
                pos = _skip(text, pos + 1)
        return pos
    if text[pos] == "[":
        pos = _skip(text, pos + 1)
        k = 0
        while text[pos] != "]":
            if k == key:
                return _find(text, pos, rest)
            pos = _skip(text, _end(text, pos))
            if text[pos] == ",":
                pos = _skip(text, pos + 1)
            k += 1
        return pos
    return pos


def _end(text: str, pos: int) -> int:
    """The position after the value starting at ``pos``."""
    c = text[pos]
    if c == '"':
        return int(scanstring(text, pos + 1)[1])
    if c in "{[":
        close = "}" if c == "{" else "]"
        pos = _skip(text, pos + 1)
        while text[pos] != close:
            if c == "{":
                pos = _skip(text, int(scanstring(text, pos + 1)[1]))
                pos = _skip(text, pos + 1)
            pos = _skip(text, _end(text, pos))
            if text[pos] == ",":
                pos = _skip(text, pos + 1)
        return pos + 1
    m = _SCALAR.match(text, pos)
    if m is None:
        raise ValueError(f"no JSON value at {pos}")
    return m.end()


def dumps_pretty(value: Any) -> str:
    """JSON with two-space indentation, non-ASCII kept (``results.json``)."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
